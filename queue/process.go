package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

// handle takes a claimed operation at path through steps 2–4: read (≤ 1 MB) and schema-check,
// apply exactly once, answer atomically, file it. It runs to the end even when ctx ends, so that
// shutting down never leaves an operation half done.
func (p *Processor) handle(ctx context.Context, id, path string) {
	ctx = context.WithoutCancel(ctx)
	start := time.Now()
	prev, answered := p.answered[id]
	op, resp, reused := prev.op, prev.resp, true
	if !answered {
		var err error
		op, resp, reused, err = p.decide(ctx, id, path)
		if errors.Is(err, errUnreadable) {
			p.stalled(id, "cannot read an operation file", err)
			return
		}
		if errors.Is(err, errIncomplete) {
			// Its writer's fd still reaches the file in processing/; the next rescan reads
			// it again.
			p.Log.Info("queue: operation file incomplete; read again at the next rescan", "operationId", id)
			p.hook(HookIncomplete, id)
			return
		}
		delete(p.incomplete, path)
		if err != nil {
			// Not applied and not answered: the processor that reopens the library takes it
			// from processing/ while the writer still waits.
			p.Log.Warn("queue: operation left in processing/", "operationId", id, "err", err)
			p.replaced = err
			return
		}
		// Before the answer: when the writer returns, the library is whole in its one file.
		p.checkpoint(ctx)
		p.hook(HookAfterCommit, id)
	}
	if !resp.OK() { // never one answered already: p.answered holds successes only
		p.failNow(id, path, op, resp, reused, start)
		return
	}
	// An operation this run answered, whose answer was taken since, stayed in processing/ for
	// a stall after the answer: it is filed without being answered again for nobody to collect.
	// Its answer stands: applied_ops holds it, and deciding again would only find it there.
	collected := answered && !exists(join(p.Dir, responseName(id)))
	if !collected {
		if err := p.respond(id, resp); err != nil {
			// Without a response the writer cannot learn the outcome; the op stays in
			// processing/ and the next rescan answers it from applied_ops. Until then the
			// processor is failed, with the reason, so that writers fail fast instead of waiting.
			p.Log.Error("queue: cannot write the response; left in processing/", "operationId", id, "err", err)
			p.stalled(id, "cannot write its answer to the import queue", err)
			return
		}
	}
	p.hook(HookAfterResponse, id)
	p.answered[id] = answeredOp{op: op, resp: resp}
	if !p.file(id, path, processedDir, "") {
		return
	}
	p.hook(HookDone, id)
	delete(p.answered, id)
	p.done(id, op, resp, reused, start)
}

// failNow files an operation that failed, then answers it: the other order left a failure
// answered "not applied" in processing/ when the processor died before filing it (killed,
// a power cut), and the processor that recovered it decided it again: a failure that passes
// (a locked or full library) is not recorded in applied_ops, so that decision applied what the
// writer had been told was not. Filed first, and the filing made durable, nothing is left to
// decide again. When the filing fails, the operation stays in processing/ unanswered, for a
// rescan to decide: its writer was told nothing yet.
func (p *Processor) failNow(id, path string, op promptlib.Operation, resp promptlib.Response, reused bool, start time.Time) {
	if !p.file(id, path, failedDir, fmt.Sprintf("%s: %s", deref(resp.Error), resp.Message)) {
		return
	}
	for _, dir := range []string{join(p.Dir, failedDir), join(p.Dir, processingDir)} { // where it went first
		if err := syncDir(dir); err != nil {
			p.Log.Warn("queue: cannot fsync a queue directory; a power cut could undo the filing", "dir", dir, "err", err)
		}
	}
	if err := p.respond(id, resp); err != nil {
		// Filed, so get_operation_status answers "failed" with the reason; the writer, who
		// fails fast while the processor is failed, is told to ask it. A rescan clears the
		// state (unstick).
		p.Log.Error("queue: cannot write the response of a failed operation; filed in failed/", "operationId", id, "err", err)
		p.stuck = true
		p.Status.failed(fmt.Errorf("queue: the processor cannot write its answer to the import queue (%s); operation %s failed and is filed in failed/", cause(err), id))
		return
	}
	p.hook(HookAfterResponse, id)
	p.hook(HookDone, id)
	p.done(id, op, resp, reused, start)
}

// file moves a handled operation from processing/ into dir (processed/ or failed/, where
// reason is written beside it), dated now. On failure the processor is stalled with the
// operation left in processing/, and file reports false.
func (p *Processor) file(id, path, dir, reason string) bool {
	// Checked before each filing: a processed/ or failed/ swapped for a symlink while running
	// would carry the operation (the user's content) out of the queue.
	if err := realDir(join(p.Dir, dir)); err != nil {
		p.stalled(id, "cannot file the operation in "+dir+"/", err)
		return false
	}
	dst := p.freeName(join(p.Dir, dir), opName(id))
	if reason != "" {
		writeReason(dst, reason)
	}
	// Dated before the move (a rename keeps the date): a queue clean in another process between
	// the two would otherwise find an operation that waited a week already old.
	p.stamp(path)
	if err := renameNoReplace(path, dst); err != nil {
		p.Log.Error("queue: cannot file the operation; left in processing/", "operationId", id, "err", err)
		p.stalled(id, "cannot move the operation out of processing/", err)
		return false
	}
	return true
}

// done logs a handled operation and marks the processor running again. id is its file's: op is
// zero for a file that could not be read as one.
func (p *Processor) done(id string, op promptlib.Operation, resp promptlib.Response, reused bool, start time.Time) {
	p.running()
	attrs := []any{"operationId", id, "operation", string(op.Operation), "status", resp.Status,
		"durationMs", float64(time.Since(start).Microseconds()) / 1000}
	if reused {
		attrs = append(attrs, "reused", true)
	}
	if !resp.OK() {
		attrs = append(attrs, "error", deref(resp.Error))
	}
	p.Log.Info("queue: operation", attrs...)
}

// checkpoint copies the -wal file into the library and empties it, so that between operations
// the library is whole in its one file: a file renamed over it then inherits, by name, an empty
// -wal file rather than the old library's pages (sqlite.org/howtocorrupt.html §2.4), and a
// backup copied from it is complete. It never waits for a reader (the search index build reads
// for seconds): when one is in the way, the next operation or rescan tries again.
func (p *Processor) checkpoint(ctx context.Context) {
	conn, err := p.DB.Conn(ctx)
	if err != nil {
		return
	}
	defer conn.Close()
	var busyTimeout, busy, frames, copied int
	if err := conn.QueryRowContext(ctx, `PRAGMA busy_timeout`).Scan(&busyTimeout); err != nil {
		return
	}
	if _, err := conn.ExecContext(ctx, `PRAGMA busy_timeout = 0`); err != nil {
		return
	}
	err = conn.QueryRowContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`).Scan(&busy, &frames, &copied)
	if _, rerr := conn.ExecContext(ctx, fmt.Sprintf(`PRAGMA busy_timeout = %d`, busyTimeout)); rerr != nil {
		p.Log.Warn("queue: cannot restore the busy timeout", "err", rerr)
	}
	p.unflushed = err != nil || busy != 0
	if p.unflushed {
		p.Log.Debug("queue: checkpoint deferred; a reader is in the way", "err", err, "frames", frames, "copied", copied)
	}
}

// running marks the processor running again after an operation went through, unless something
// else still stalls it.
func (p *Processor) running() {
	if p.Status != nil && !p.stuck {
		if state, _ := p.Status.State(); state != ProcRunning {
			p.Status.set(ProcRunning, nil)
		}
	}
}

// stalled records that operation id is left in processing/: the processor is failed (the
// reason names the cause, such as a full disk) until a rescan gets it through.
func (p *Processor) stalled(id, what string, err error) {
	p.stuck = true
	p.Status.failed(fmt.Errorf("queue: the processor %s (%s); operation %s waits in processing/ and is retried every rescan", what, cause(err), id))
}

// cause is err's root cause as a status reason says it.
func cause(err error) string {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return "the disk is full"
	}
	return rootCause(err)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// errUnreadable leaves a claimed file in processing/, the processor stalled, when reading it
// failed for a reason that passes: the operation is not bad input.
var errUnreadable = errors.New("queue: the operation file cannot be read for now")

// unreadable wraps a read error that passes (no file descriptors or memory left, an I/O error)
// in errUnreadable; other errors are the file's own.
//
// Its errnos answer this question only; dbread's passing and upstream's commandError keep
// lists of their own on purpose. All three count a system short of file descriptors, memory or
// processes (EMFILE, ENFILE, ENOMEM, EAGAIN) as passing. An I/O error (EIO) or an interrupted
// read (EINTR) says nothing of what the operation holds either: failed/ would lose a write the
// user asked for, where a stalled processor reads it again every rescan. A full disk (ENOSPC),
// which dbread's index build meets, cannot fail a read.
func unreadable(err error) error {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EIO, syscall.EAGAIN, syscall.EINTR} {
		if errors.Is(err, errno) {
			return fmt.Errorf("%w: %w", errUnreadable, err)
		}
	}
	return nil
}

// decide reads and checks the claimed file and applies it once; the response says what
// happened. reused is true when applied_ops already held the answer (a replay after a crash).
// An error means there is no answer yet and nothing was applied: errLibraryReplaced when the
// library file is no longer the one the processor opened, errIncomplete when the file ends
// mid-JSON and its writer may still be at work, errUnreadable when it could not be read for now.
func (p *Processor) decide(ctx context.Context, id, path string) (op promptlib.Operation, resp promptlib.Response, reused bool, leave error) {
	open := p.openOp
	if open == nil {
		open = os.OpenFile
	}
	// Never a blocking open: a FIFO swapped in would hang the processor (the claim checked the
	// type, but the file is checked again once open).
	f, err := open(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if u := unreadable(err); u != nil {
			return op, resp, false, u
		}
		return op, invalid("cannot read the operation file: %v", err), false, nil
	}
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return op, invalid("the operation file is not a regular file"), false, nil
	}
	data, ok, err := readLimited(f, promptlib.MaxOperationSize)
	f.Close()
	if u := unreadable(err); u != nil {
		return op, resp, false, u
	}
	switch {
	case err != nil:
		return op, invalid("cannot read the operation file: %v", err), false, nil
	case !ok:
		return op, promptlib.Failure(promptlib.Errorf(promptlib.CodePayloadTooLarge, "the operation file is larger than 1 MB")), false, nil
	}
	if err := schemas.Validate("operation", data); err != nil {
		if !endsMidJSON(data) {
			return op, invalid("the operation file is invalid: %v", err), false, nil
		}
		if p.waitIncomplete(id, path) {
			return op, resp, false, errIncomplete
		}
		return op, invalid("the operation file is invalid: %v. It ends in the middle of its JSON: it was incomplete when read, "+
			"perhaps still being written. Write an operation file under a temporary name (a dot-file such as .{id}.tmp) and "+
			"rename it to {id}.json when it is complete, so that the queue only ever sees it whole", err), false, nil
	}
	if err := json.Unmarshal(data, &op); err != nil {
		return op, invalid("the operation file is invalid: %v", err), false, nil
	}
	if !strings.EqualFold(op.ID, id) {
		return op, invalid("the operation's id %s does not match its file name", op.ID), false, nil
	}
	resp, reused, err = p.applyOnce(ctx, op)
	if errors.Is(err, errLibraryReplaced) {
		return op, resp, false, err
	}
	if err != nil {
		p.Log.Error("queue: apply failed", "operationId", id, "err", err)
		pe := libraryWriteError(err, p.libraryPath(ctx))
		if pe.Code != promptlib.CodeDatabaseLocked {
			// Not only in the answer: health_check must not call the library healthy while
			// every write fails for the same cause. A lock passes on its own.
			p.Status.wrote(fmt.Errorf("queue: the processor's last write to the library failed (operation %s was not applied): %s", id, pe.Message))
		}
		return op, promptlib.Failure(pe), false, nil
	}
	if !reused {
		p.Status.wrote(nil)
	}
	return op, resp, reused, nil
}

// libraryPath names the library file for messages: the path the processor was given, else the
// one SQLite has open.
func (p *Processor) libraryPath(ctx context.Context) string {
	if p.dbPath != "" {
		return p.dbPath
	}
	var seq int
	var name, file string
	if err := p.DB.QueryRowContext(ctx, `PRAGMA database_list`).Scan(&seq, &name, &file); err == nil && file != "" {
		return file
	}
	return DBName
}

func invalid(format string, args ...any) promptlib.Response {
	return promptlib.Failure(promptlib.Errorf(promptlib.CodeInvalidInput, format, args...))
}

// applyOnce is step 3: one BEGIN IMMEDIATE transaction that either finds the operation in
// applied_ops and reuses its answer, or applies it and records the answer. A crash anywhere
// before COMMIT leaves nothing; after it, the record makes the replay a no-op.
func (p *Processor) applyOnce(ctx context.Context, op promptlib.Operation) (promptlib.Response, bool, error) {
	tx, err := p.DB.BeginTx(ctx, nil)
	if err != nil {
		return promptlib.Response{}, false, fmt.Errorf("queue: begin: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	// Checked under the write lock: a file renamed over the library keeps the old one open
	// here, and a write to it would be lost, then leak into the new file through the shared
	// -wal file.
	if err := p.sameLibrary(); err != nil {
		return promptlib.Response{}, false, err
	}
	// Ids are recorded in lower case, as the rest of the queue compares them without case: one
	// operation dropped as {id}.json and {ID}.json is applied once. A record an older version
	// made under another spelling is still found by the id as given.
	if r, ok, err := promptlib.RecordedAnswer(ctx, tx, op.ID); err != nil || ok {
		if err != nil {
			err = fmt.Errorf("queue: %w", err)
		}
		return r, ok, err
	}
	// A failure of the database itself is an error, not an answer: the transaction is rolled
	// back and the caller names the cause (a full disk, a read-only file) in the answer.
	resp, err := promptlib.ApplyCause(ctx, tx, op)
	if err != nil {
		return promptlib.Response{}, false, fmt.Errorf("queue: apply %s: %w", op.ID, err)
	}
	b, _ := json.Marshal(resp)
	if _, err := tx.ExecContext(ctx, `INSERT INTO applied_ops (op_id, applied_at, response) VALUES (?, ?, ?)`,
		promptlib.Key(op.ID), p.Now().Unix(), string(b)); err != nil {
		return promptlib.Response{}, false, fmt.Errorf("queue: record %s: %w", op.ID, err)
	}
	if err := tx.Commit(); err != nil {
		return promptlib.Response{}, false, fmt.Errorf("queue: commit %s: %w", op.ID, err)
	}
	return resp, false, nil
}

// errLibraryReplaced stops a processor whose library file was replaced or removed.
var errLibraryReplaced = errors.New("queue: the library file was replaced")

// sameLibrary is nil while the file at the library's path is the one the processor opened.
func (p *Processor) sameLibrary() error {
	if p.dbFile == nil {
		return nil
	}
	fi, err := os.Stat(p.dbPath)
	if err != nil {
		return fmt.Errorf("%w: %v", errLibraryReplaced, err)
	}
	if !os.SameFile(fi, p.dbFile) {
		return fmt.Errorf("%w: %s is another file now", errLibraryReplaced, p.dbPath)
	}
	return nil
}

func isBusy(err error) bool {
	s := err.Error()
	return strings.Contains(s, "database is locked") || strings.Contains(s, "SQLITE_BUSY")
}

// respond is step 4's first half: the response file appears whole or not at all (temp file,
// fsync, rename).
func (p *Processor) respond(id string, resp promptlib.Response) error {
	b, err := json.Marshal(resp)
	if err != nil {
		return err
	}
	tmp := join(p.Dir, responseTmpName(id))
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return &Error{Op: "respond", Path: tmp, Err: err}
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, join(p.Dir, responseName(id)))
	}
	if err != nil {
		os.Remove(tmp)
		return &Error{Op: "respond", Path: tmp, Err: err}
	}
	// No directory fsync: the durable record of a success is applied_ops, committed before
	// this. A response whose rename a crash undoes is re-answered from that record, because the
	// operation, whose move to processed/ comes later, is then still in processing/. A failure
	// was filed, durably, before it was answered (failNow): a response lost with it leaves its
	// writer "outcome pending", and get_operation_status finds it in failed/.
	return nil
}
