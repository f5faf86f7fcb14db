package queue

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

// Writer is the MCP side of the queue: it drops an operation file and waits for the app's
// response (DESIGN §4, writer steps 2–7). It never touches the database. Safe for concurrent
// use: every call works on its own operation id.
//
// The timing fields exist so tests run fast; NewWriter sets the contract's values.
type Writer struct {
	Dir string // the import queue
	Log *slog.Logger
	FS  FS

	AttemptTimeout time.Duration // how long one attempt waits for the response (5 s)
	Attempts       int           // attempts before withdrawing (3)
	RetryDelay     time.Duration // pause between attempts (1 s)
	Poll           time.Duration // Lstat poll beside fsnotify (50 ms)
	Grace          time.Duration // wait for a late response once the app has taken the op (1.5 s)
	MaxPending     int           // QUEUE_FULL at this many pending operations (1000)
	Now            func() time.Time

	// alive says whether mcpctl's processor can answer: set by WithProcessor (a standalone
	// library) and by WithForcedProcessor; nil where the Prompteka app answers.
	alive func() error
	// forced, set by WithForcedProcessor, are the flags naming the Prompteka library whose queue
	// only an 'mcpctl queue process --force' answers here (LibraryArgs).
	forced string
	// record, set by WithRecord, reads the answer the processor recorded as it applied an
	// operation (applied_ops): nil where the Prompteka app answers.
	record func(ctx context.Context, id string) (promptlib.Response, bool, error)

	// answered holds the responses this writer collected (at most maxAnswered): the app writes
	// a response before it moves the operation's file, so for a moment after a write returns
	// the files alone would call the operation "processing".
	answeredMu sync.Mutex
	answered   map[string]answer

	watch dirWatch // the queue directory, watched while a write waits for its response
}

// answer is a response this writer collected, and why it did not take it as the operation's
// answer (nil when it did).
type answer struct {
	r        promptlib.Response
	mismatch error
}

const maxAnswered = 1024

func (w *Writer) remember(id string, a answer) {
	w.answeredMu.Lock()
	defer w.answeredMu.Unlock()
	if w.answered == nil || len(w.answered) >= maxAnswered {
		w.answered = map[string]answer{}
	}
	w.answered[strings.ToLower(id)] = a
}

func (w *Writer) recalled(id string) (answer, bool) {
	w.answeredMu.Lock()
	defer w.answeredMu.Unlock()
	a, ok := w.answered[id]
	return a, ok
}

// WithProcessor makes w a writer for a standalone library, whose queue mcpctl's own elected
// processor answers: alive (typically (*ProcessorStatus).Alive) is asked before publishing and
// on every poll while waiting, and when it returns an error the write fails at once with
// PROCESSOR_STOPPED and that reason (not applied if the operation could be withdrawn, outcome
// unknown if the processor had taken it) instead of waiting out every attempt. Its messages
// speak of mcpctl's queue processor, never of the Prompteka app. It returns w.
func (w *Writer) WithProcessor(alive func() error) *Writer {
	w.alive = alive
	return w
}

// WithRecord has Status read what mcpctl's processor recorded of an operation when the queue
// files do not tell it (record: a standalone library's applied_ops, read-only). It returns w.
func (w *Writer) WithRecord(record func(ctx context.Context, id string) (promptlib.Response, bool, error)) *Writer {
	w.record = record
	return w
}

// WithForcedProcessor makes w a writer for the Prompteka library of database db where the app cannot
// run (it is a macOS app): there only an 'mcpctl queue process --force' the user starts answers
// its queue. While none holds the queue's lock a write fails at once (PROCESSOR_STOPPED, not
// applied) saying what to run, where it would wait out every attempt for nothing, and so it
// does while the one that holds it is suspended (HolderStopped); when whether one runs cannot be
// told, writes wait as for the app. It returns w.
func (w *Writer) WithForcedProcessor(db string) *Writer {
	w.forced = LibraryArgs(db, w.Dir)
	w.alive = aliveFor(time.Second, func() error {
		switch running, err := Running(w.Dir); {
		case err != nil:
			return nil
		case running:
			return HolderStopped(w.Dir) // suspended with Ctrl-Z in the user's terminal, say
		}
		return errNoForcedProcessor
	})
	return w
}

// aliveFor is alive asked at most once per period while it answers alive: a write asks on
// every poll (50 ms), and Running reads /proc/locks, or elsewhere takes the processor's lock for
// a moment, which a 'queue process --force' starting then would find taken. An answer that the
// processor is down is never kept: the write ends on it, and the next asks again.
func aliveFor(period time.Duration, alive func() error) func() error {
	var mu sync.Mutex
	var until time.Time
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		if time.Now().Before(until) {
			return nil
		}
		err := alive()
		if err == nil {
			until = time.Now().Add(period)
		}
		return err
	}
}

var errNoForcedProcessor = errors.New("the Prompteka app runs only on macOS, and no 'mcpctl queue process --force' runs for this library")

// answerer names who answers operations, for messages.
func (w *Writer) answerer() string {
	if w.alive != nil {
		return "mcpctl's queue processor"
	}
	return "the app"
}

// processorDown is the reason mcpctl's processor cannot answer, or nil (always nil where the
// app answers).
func (w *Writer) processorDown() error {
	if w.alive == nil {
		return nil
	}
	return w.alive()
}

// advise gives err the hint that fits who answers this writer's queue, where the code's own
// hint, written for the Prompteka app, would send the user the wrong way. Three writers exist
// (see cmd/internal/mcpserver's newWriteTools): the app's, for a Prompteka library on macOS,
// keeps the code's hints; a standalone library's (WithProcessor) is answered by mcpctl's elected
// processor, whose state health_check reports; a Prompteka library's away from macOS
// (WithForcedProcessor) only by a 'queue process --force' the user runs in a terminal, which
// health_check sees only as running or not: its terminal shows what it does.
func (w *Writer) advise(err error) {
	var pe *promptlib.Error
	if !errors.As(err, &pe) || pe.Advice != "" {
		return
	}
	switch {
	case errors.As(pe.Err, new(*StoppedHolderError)):
		// Whoever runs it, the user resumes it: nothing to start, fix or wait out.
		pe.Advice = "Tell the user what the message says: the process that applies this library's writes is suspended. Once they have resumed it, call the tool again."
		if pe.Outcome != promptlib.NotApplied {
			// It had taken the operation: resumed, it finishes it.
			pe.Advice = "Tell the user what the message says: the process that applies this library's writes is suspended, holding the operation. Once they have resumed it, it finishes the operation: call get_operation_status with the operation id before retrying."
		}
	case w.forced != "":
		pe.Advice = forcedAdvice(pe, w.forced)
	case w.alive != nil:
		pe.Advice = standaloneAdvice(pe)
	}
}

// standaloneAdvice is the hint for pe where mcpctl's own elected processor answers a standalone
// library ("" keeps the code's hint). An outcome that is unknown is never to be retried blindly:
// the processor may yet apply the operation.
func standaloneAdvice(pe *promptlib.Error) string {
	switch pe.Code {
	case promptlib.CodeQueueFull:
		return "mcpctl's queue processor has 1000 operations waiting; run health_check, wait until it catches up, then try again."
	case promptlib.CodeDatabaseLocked:
		return "The library is locked by another process; try again in a few seconds."
	case promptlib.CodeDatabaseError:
		// The processor's message names the cause (a full disk, a read-only library file) and
		// the fix; "try again in a moment" would only fail the same way.
		return "mcpctl's queue processor could not write the library; the message says why and what to fix. Fix that, then try again; health_check reports the failure until a write succeeds."
	case promptlib.CodeResponseTimeout:
		if pe.Outcome == promptlib.NotApplied {
			return "The library's queue processor is slow or stuck; run health_check, then try again."
		}
		return "Call get_operation_status with the operation id before retrying; health_check reports the queue processor's state."
	case promptlib.CodeProcessorStopped:
		if pe.Outcome != promptlib.NotApplied {
			return "mcpctl's queue processor stopped while it held the operation; health_check gives the reason. Once that is fixed it resumes on its own and finishes the operation: call get_operation_status with the operation id before retrying."
		}
	}
	return ""
}

// forcedAdvice is the hint for pe where only an 'mcpctl queue process --force' the user runs by
// hand answers the Prompteka library that args name (LibraryArgs). It runs in a terminal of its
// own: what it did and why it failed are in its log there, not in health_check.
func forcedAdvice(pe *promptlib.Error, args string) string {
	run := promptlib.Quoted("mcpctl queue process --force " + args)
	switch pe.Code {
	case promptlib.CodeQueueFull:
		return fmt.Sprintf("1000 operations wait in this library's queue for %s to apply them; ask the user to check that it runs, wait until it catches up, then try again.", run)
	case promptlib.CodeDatabaseLocked:
		return "The library is locked by another process; try again in a few seconds."
	case promptlib.CodeDatabaseError:
		return fmt.Sprintf("The %s the user runs could not write the library; the message says why and what to fix. Fix that, then try again.", run)
	case promptlib.CodeResponseTimeout:
		if pe.Outcome == promptlib.NotApplied {
			return fmt.Sprintf("The %s the user runs is slow or stuck: ask the user to look at its terminal (it logs each operation) or to restart it, then try again.", run)
		}
		return fmt.Sprintf("Call get_operation_status with the operation id before retrying; the terminal running %s logs each operation it applies.", run)
	case promptlib.CodeProcessorStopped:
		if pe.Outcome != promptlib.NotApplied {
			return fmt.Sprintf("Ask the user to run %s in a terminal again: it finishes the operation it had taken. Then call get_operation_status with the operation id before retrying.", run)
		}
		return fmt.Sprintf("Ask the user to run %s in a terminal (it applies this library's writes while it runs), then try again.", run)
	}
	return ""
}

// stoppedError is the PROCESSOR_STOPPED error for reason.
func stoppedError(what string, reason error) *promptlib.Error {
	return &promptlib.Error{Code: promptlib.CodeProcessorStopped,
		Message: fmt.Sprintf("%s: mcpctl's queue processor for this library is not running: %v", what, reason), Err: reason}
}

// NewWriter returns a Writer for the queue directory dir with the contract's timings.
func NewWriter(dir string, log *slog.Logger) *Writer {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Writer{
		Dir: dir, Log: log, FS: OSFS{},
		AttemptTimeout: 5 * time.Second, Attempts: 3, RetryDelay: time.Second,
		Poll: 50 * time.Millisecond, Grace: 1500 * time.Millisecond, MaxPending: MaxPending,
		Now: time.Now,
	}
}

// Result is the app's successful answer to an operation.
type Result struct {
	OperationID string
	Response    promptlib.Response
}

// Submit queues one operation and waits for its answer. data is the tool input (validated by the
// caller against the schema and the domain rules). On success it returns the response. Every
// failure is a *promptlib.Error naming the operation id and saying whether the operation was
// applied, not applied, or its outcome is unknown.
func (w *Writer) Submit(ctx context.Context, kind promptlib.OpKind, data any) (Result, error) {
	op, err := promptlib.NewOperation(kind, data)
	if err != nil {
		return Result{}, err
	}
	return w.SubmitOperation(ctx, op)
}

// SubmitOperation is Submit for a ready operation (its id must be fresh).
func (w *Writer) SubmitOperation(ctx context.Context, op promptlib.Operation) (res Result, err error) {
	defer func() { w.advise(err) }()
	body, err := encodeOperation(op)
	if err != nil {
		return Result{}, fmt.Errorf("queue: encode operation %s: %w", op.ID, err)
	}
	if len(body) > promptlib.MaxOperationSize {
		return Result{}, opError(op.ID, promptlib.NotApplied, &promptlib.Error{Code: promptlib.CodePayloadTooLarge,
			Message: fmt.Sprintf("the operation is %d bytes; the queue takes at most %d", len(body), promptlib.MaxOperationSize)})
	}
	// The writer's own output must pass the contract it asks the app to enforce.
	if err := schemas.Validate("operation", body); err != nil {
		return Result{}, opError(op.ID, promptlib.NotApplied, &promptlib.Error{Code: promptlib.CodeInvalidInput, Message: err.Error(), Err: err})
	}
	_, n, err := checkDirPending(w.FS, w.Dir)
	if err != nil {
		return Result{}, opError(op.ID, promptlib.NotApplied, err)
	}
	if err := FullError(n, w.MaxPending); err != nil {
		return Result{}, opError(op.ID, promptlib.NotApplied, err)
	}
	if reason := w.processorDown(); reason != nil {
		return Result{}, opError(op.ID, promptlib.NotApplied, stoppedError("the operation was not queued", reason))
	}
	// Watch before publishing, so that a fast answer cannot slip between the two.
	nudge, unsubscribe := w.watch.subscribe(w.Dir, responseName(op.ID), w.Log)
	defer unsubscribe()
	if err := w.publish(op.ID, body); err != nil {
		return Result{}, opError(op.ID, promptlib.NotApplied, err)
	}
	w.Log.Debug("queue: operation published", "operationId", op.ID, "operation", string(op.Operation), "bytes", len(body))
	return w.await(ctx, op, nudge, time.Now())
}

// encodeOperation is the operation file's bytes: compact, and without HTML escaping, which
// would write each "<", ">" or "&" of a content as six bytes and count them against the limit.
func encodeOperation(op promptlib.Operation) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(op); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// await is steps 4–6: three attempts, then withdraw. A retry only waits again: once published,
// the operation is never dropped a second time. published is when the operation was queued.
func (w *Writer) await(ctx context.Context, op promptlib.Operation, nudge <-chan struct{}, published time.Time) (Result, error) {
	for attempt := 1; attempt <= w.Attempts; attempt++ {
		if attempt > 1 && !pause(ctx, w.RetryDelay) {
			break
		}
		got, err := w.waitResponse(ctx, op.ID, w.AttemptTimeout, nudge)
		var down *processorDown
		if errors.As(err, &down) {
			return w.withdrawStopped(op, down.reason)
		}
		if err != nil {
			return Result{}, err
		}
		if got != nil {
			return w.finish(op, *got)
		}
		if ctx.Err() != nil {
			break
		}
		w.Log.Debug("queue: no response yet", "operationId", op.ID, "attempt", attempt)
	}
	return w.withdraw(ctx, op, nudge, published)
}

// pause waits d or until ctx ends; it reports whether the full pause elapsed.
func pause(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// opError stamps err (a *promptlib.Error, or any error, which becomes INTERNAL_ERROR) with the
// operation id and outcome, and makes its message say both, so the model never retries blindly.
func opError(id string, outcome promptlib.Outcome, err error) *promptlib.Error {
	pe, ok := err.(*promptlib.Error)
	if !ok {
		pe = &promptlib.Error{Code: promptlib.CodeInternal, Message: "the queue failed: " + err.Error(), Err: err}
	}
	out := *pe
	out.OperationID, out.Outcome = id, outcome
	switch outcome {
	case promptlib.Applied:
		out.Message = fmt.Sprintf("%s (operation %s was applied)", pe.Message, id)
	case promptlib.NotApplied:
		out.Message = fmt.Sprintf("%s (operation %s was not applied)", pe.Message, id)
	default:
		out.Message = fmt.Sprintf("%s (operation %s: outcome unknown)", pe.Message, id)
	}
	return &out
}
