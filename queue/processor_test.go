package queue

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/google/uuid"

	"github.com/mcpctl/mcpctl/promptlib"
)

// dropOp publishes an operation file by hand, as a writer would, and returns its id.
func dropOp(tb testing.TB, queue string, kind promptlib.OpKind, data any) string {
	tb.Helper()
	op, err := promptlib.NewOperation(kind, data)
	if err != nil {
		tb.Fatal(err)
	}
	w := NewWriter(queue, testLogger(tb))
	if err := w.publish(op.ID, mustJSON(tb, op)); err != nil {
		tb.Fatal(err)
	}
	return op.ID
}

// processed waits until op id is filed in processed/ or failed/ and returns which.
func filed(tb testing.TB, queue, id string) string {
	tb.Helper()
	var where string
	waitFor(tb, "operation "+id+" filed", func() bool {
		for _, d := range []string{processedDir, failedDir} {
			if _, err := os.Lstat(filepath.Join(queue, d, opName(id))); err == nil {
				where = d
				return true
			}
		}
		return false
	})
	return where
}

// readResponseFile reads id's response, once there: a failure is answered after it is filed.
func readResponseFile(tb testing.TB, queue, id string) promptlib.Response {
	tb.Helper()
	path := filepath.Join(queue, responseName(id))
	waitFor(tb, "operation "+id+" answered", func() bool { return exists(path) })
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	r, err := ParseResponse(b)
	if err != nil {
		tb.Fatalf("response %s: %v", b, err)
	}
	return r
}

func TestProcessorFilesOperations(t *testing.T) {
	big := strings.Repeat("x", promptlib.MaxOperationSize+1)
	tests := []struct {
		name     string
		content  string // the file, or "" to drop a valid create_prompt
		where    string
		code     string
		response bool // a response is written (only when the file is named {uuid}.json)
	}{
		{name: "valid", where: processedDir, response: true},
		{name: "schema-invalid", content: `{"id":"%s","operation":"create_prompt","timestamp":"2025-01-01T00:00:00.000Z","data":{"title":""}}`,
			where: failedDir, code: "INVALID_INPUT", response: true},
		{name: "not JSON", content: `{{{`, where: failedDir, code: "INVALID_INPUT", response: true},
		{name: "id differs from file name", content: `{"id":"44444444-4444-4444-8444-444444444444","operation":"delete_prompt","timestamp":"2025-01-01T00:00:00.000Z","data":{"id":"44444444-4444-4444-8444-444444444444"}}`,
			where: failedDir, code: "INVALID_INPUT", response: true},
		{name: "larger than 1 MB", content: big, where: failedDir, code: "PAYLOAD_TOO_LARGE", response: true},
		{name: "domain error", content: `{"id":"%s","operation":"delete_folder","timestamp":"2025-01-01T00:00:00.000Z","data":{"id":"44444444-4444-4444-8444-444444444444"}}`,
			where: failedDir, code: "FOLDER_NOT_FOUND", response: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLib(t, 1)
			var id string
			if tt.content == "" {
				id = dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt("filed"))
			} else {
				id = uuid.NewString()
				body := strings.Replace(tt.content, "%s", id, 1)
				os.WriteFile(filepath.Join(l.Queue, opName(id)), []byte(body), 0o600)
			}
			startProcessor(t, l, nil)
			if got := filed(t, l.Queue, id); got != tt.where {
				t.Errorf("filed in %s, want %s", got, tt.where)
			}
			r := readResponseFile(t, l.Queue, id)
			if tt.code == "" && !r.OK() || tt.code != "" && (r.Error == nil || *r.Error != tt.code) {
				t.Errorf("response %+v, want code %q", r, tt.code)
			}
			if tt.where == failedDir {
				reason, err := os.ReadFile(filepath.Join(l.Queue, failedDir, id+".error"))
				if err != nil || !strings.Contains(string(reason), tt.code) {
					t.Errorf("failed/%s.error: got %q, %v; want the reason with %s", id, reason, err, tt.code)
				}
			}
		})
	}
}

// Fault: symlinks and other non-regular entries named like operations go to failed/ unread.
func TestProcessorRejectsNonRegular(t *testing.T) {
	l := newLib(t, 1)
	victim := filepath.Join(t.TempDir(), "victim.json")
	valid, _ := promptlib.NewOperation(promptlib.OpCreatePrompt, createPrompt("via symlink"))
	os.WriteFile(victim, mustJSON(t, valid), 0o600)
	link := opName(valid.ID)
	os.Symlink(victim, filepath.Join(l.Queue, link))
	dir := opName(uuid.NewString())
	os.Mkdir(filepath.Join(l.Queue, dir), 0o700)
	// Made a week ago: failed/ dates it by when it was set aside, as queue status lists the
	// newest failures first.
	weekAgo := time.Now().Add(-7 * 24 * time.Hour)
	os.Chtimes(filepath.Join(l.Queue, dir), weekAgo, weekAgo)
	// A FIFO would block a plain open forever.
	fifo := opName(uuid.NewString())
	if err := syscall.Mkfifo(filepath.Join(l.Queue, fifo), 0o600); err != nil {
		t.Fatal(err)
	}
	// A symlink planted in processing/ is rejected by the recovery too.
	os.Mkdir(filepath.Join(l.Queue, processingDir), 0o700)
	inProcessing := opName(uuid.NewString())
	os.Symlink(victim, filepath.Join(l.Queue, processingDir, inProcessing))

	startProcessor(t, l, nil)
	for _, name := range []string{link, dir, fifo} {
		waitFor(t, name+" in failed/", func() bool {
			_, err := os.Lstat(filepath.Join(l.Queue, failedDir, name))
			return err == nil
		})
	}
	waitFor(t, "processing/ emptied", func() bool { return len(files(t, filepath.Join(l.Queue, processingDir))) == 0 })
	if fi, err := os.Lstat(filepath.Join(l.Queue, failedDir, dir)); err != nil || fi.ModTime().Before(weekAgo.Add(time.Hour)) {
		t.Errorf("the directory set aside in failed/ keeps its old date (%v)", err)
	}
	// The whole mode, as ls shows it: the type alone printed the directory as d---------.
	for name, mode := range map[string]string{dir: "drwx------", fifo: "prw-------"} {
		reason := FailureReason(filepath.Join(l.Queue, failedDir), strings.TrimSuffix(name, ".json"))
		if want := "not a regular file (" + mode + ")"; !strings.Contains(reason, want) {
			t.Errorf("%s: reason %q, want %q", name, reason, want)
		}
	}
	if n := l.titled(t, "via symlink"); n != 0 {
		t.Errorf("the symlinked operation was applied %d times, want 0", n)
	}
	if _, err := os.Stat(victim); err != nil {
		t.Errorf("the symlink target was touched: %v", err)
	}
}

// The processor finishes, exactly once, what a previous run left in processing/.
func TestProcessorRecoversProcessing(t *testing.T) {
	l := newLib(t, 1)
	id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt("recovered"))
	os.Mkdir(filepath.Join(l.Queue, processingDir), 0o700)
	if err := os.Rename(filepath.Join(l.Queue, opName(id)), filepath.Join(l.Queue, processingDir, opName(id))); err != nil {
		t.Fatal(err)
	}
	startProcessor(t, l, nil)
	if got := filed(t, l.Queue, id); got != processedDir {
		t.Errorf("filed in %s, want processed", got)
	}
	if n := l.titled(t, "recovered"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

// Faults: the processor killed (SIGKILL, a real child process) after claiming, after COMMIT
// before the response, and after the response before the move. A restart finishes the operation;
// the writer that was waiting gets its answer; nothing is applied twice.
func TestProcessorKilled(t *testing.T) {
	for _, point := range []string{HookAfterClaim, HookAfterCommit, HookAfterResponse} {
		t.Run(point, func(t *testing.T) {
			l := newLib(t, 1)
			title := "killed at " + point
			w := patientWriter(t, l.Queue)
			type result struct {
				res Result
				err error
			}
			done := make(chan result, 1)
			go func() {
				res, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt(title))
				done <- result{res, err}
			}()

			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), envChildPoint+"="+point, envChildLib+"="+l.Dir)
			out, err := cmd.CombinedOutput()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != -1 {
				t.Fatalf("child: got %v, want killed by a signal\n%s", err, out)
			}
			applied := l.titled(t, title)
			if want := map[string]int{HookAfterClaim: 0, HookAfterCommit: 1, HookAfterResponse: 1}[point]; applied != want {
				t.Fatalf("after the kill: applied %d times, want %d", applied, want)
			}

			startProcessor(t, l, nil)
			r := <-done
			if r.err != nil {
				t.Fatalf("writer: %v", r.err)
			}
			if got := filed(t, l.Queue, r.res.OperationID); got != processedDir {
				t.Errorf("filed in %s, want processed", got)
			}
			if n := l.titled(t, title); n != 1 {
				t.Errorf("applied %d times, want once", n)
			}
			if got := files(t, filepath.Join(l.Queue, processingDir)); len(got) != 0 {
				t.Errorf("processing/ holds %v", got)
			}
			var recorded int
			l.DB.QueryRow(`SELECT COUNT(*) FROM applied_ops WHERE op_id = ?`, r.res.OperationID).Scan(&recorded)
			if recorded != 1 {
				t.Errorf("applied_ops rows: got %d, want 1", recorded)
			}
		})
	}
}

// Close lets the operation in hand finish: it is applied, answered and filed.
func TestProcessorCloseFinishesOperationInHand(t *testing.T) {
	l := newLib(t, 1)
	claimed, release := make(chan struct{}), make(chan struct{})
	p := NewProcessor(l.Queue, l.DB, testLogger(t))
	p.Hook = func(point, _ string) {
		if point == HookAfterClaim {
			close(claimed)
			<-release
		}
	}
	p.Start(context.Background())
	id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt("in hand"))
	<-claimed
	closed := make(chan error)
	go func() { closed <- p.Close() }()
	close(release)
	if err := <-closed; err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(l.Queue, processedDir, opName(id))); err != nil {
		t.Errorf("the operation in hand was not filed: %v", err)
	}
	if n := l.titled(t, "in hand"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

func TestCleanProcessed(t *testing.T) {
	l := newLib(t, 1)
	now := time.Now()
	dir := filepath.Join(l.Queue, processedDir)
	ages := map[string]time.Duration{"old.json": 8 * 24 * time.Hour, "new.json": 6 * 24 * time.Hour, "future.json": -30 * 24 * time.Hour}
	for name, age := range ages {
		p := filepath.Join(dir, name)
		os.WriteFile(p, nil, 0o600)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	os.WriteFile(filepath.Join(l.Queue, failedDir, "old-failure.json"), nil, 0o600)
	os.Chtimes(filepath.Join(l.Queue, failedDir, "old-failure.json"), now.Add(-100*24*time.Hour), now.Add(-100*24*time.Hour))
	n, future, err := CleanProcessed(l.Queue, now, 7*24*time.Hour)
	if err != nil || n != 1 || future != 1 {
		t.Fatalf("got %d removed, %d future, %v; want 1 removed, 1 future kept", n, future, err)
	}
	if got := strings.Join(files(t, dir), ","); got != "future.json,new.json" {
		t.Errorf("processed/ holds %s, want future.json,new.json", got)
	}
	if got := files(t, filepath.Join(l.Queue, failedDir)); len(got) != 1 {
		t.Errorf("failed/ holds %v, want it kept", got)
	}
}

func TestLockElectsOneProcessor(t *testing.T) {
	l := newLib(t, 1)
	a, err := TryLock(l.Queue)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := TryLock(l.Queue); !errors.Is(err, ErrLocked) {
		t.Fatalf("second lock: got %v, want ErrLocked", err)
	}
	a.Release()
	b, err := TryLock(l.Queue)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	b.Release()
}

// inPlaceApp plays the app as the PRD describes it: it reads {id}.json where it lies (no claim),
// applies it, writes the response in two pieces (not atomically), then moves the file.
func inPlaceApp(t *testing.T, l *testLib, stop <-chan struct{}) {
	done := make(chan struct{})
	t.Cleanup(func() { <-done })
	go func() {
		defer close(done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			for _, name := range files(t, l.Queue) {
				id, ok := pendingID(name)
				if !ok {
					continue
				}
				b, err := os.ReadFile(filepath.Join(l.Queue, name))
				if err != nil {
					continue
				}
				var op promptlib.Operation
				json.Unmarshal(b, &op)
				tx, _ := l.DB.Begin()
				resp := promptlib.Apply(context.Background(), tx, op)
				tx.Commit()
				rb, _ := json.Marshal(resp)
				f, _ := os.OpenFile(filepath.Join(l.Queue, responseName(id)), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
				f.Write(rb[:len(rb)/2])
				f.Sync()
				f.Write(rb[len(rb)/2:])
				f.Close()
				os.Rename(filepath.Join(l.Queue, name), filepath.Join(l.Queue, processedDir, name))
			}
		}
	}()
}

func TestWriterWithInPlaceApp(t *testing.T) {
	l := newLib(t, 1)
	stop := make(chan struct{})
	inPlaceApp(t, l, stop)
	defer close(stop)
	w := patientWriter(t, l.Queue)
	for i, data := range []any{createPrompt("in place"), createPrompt("in place 2")} {
		res, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, data)
		if err != nil {
			t.Fatalf("write %d: %v", i, err)
		}
		if !res.Response.OK() {
			t.Fatalf("write %d: %+v", i, res.Response)
		}
	}
	if n := l.titled(t, "in place"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
	waitFor(t, "the queue to empty", func() bool { return len(queueLeftovers(t, l.Queue)) == 0 })
}

// Fault: the database locked by the app. The processor waits the busy timeout, then answers
// DATABASE_LOCKED; the writer reports it as not applied, and nothing was.
func TestProcessorDatabaseLocked(t *testing.T) {
	l := newLib(t, 1)
	other, err := OpenStore(filepath.Join(l.Dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.Begin() // BEGIN IMMEDIATE: the write lock, held like an app mid-transaction
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	// A short busy timeout: the figure under test is the answer, not the 5 s default.
	store, err := OpenStoreTimeout(filepath.Join(l.Dir, DBName), 100*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	startProcessor(t, &testLib{Dir: l.Dir, Queue: l.Queue, DB: store}, nil)
	_, err = patientWriter(t, l.Queue).Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("locked out"))
	pe := asError(t, err)
	if pe.Code != promptlib.CodeDatabaseLocked || pe.Outcome != promptlib.NotApplied {
		t.Errorf("got %s/%s %q, want DATABASE_LOCKED/not_applied", pe.Code, pe.Outcome, pe.Message)
	}
	tx.Rollback()
	if n := l.titled(t, "locked out"); n != 0 {
		t.Errorf("applied %d times, want 0", n)
	}
}

// Fault: the response cannot be written after COMMIT (disk full, a planted directory). The
// operation stays in processing/, and the next start answers it from applied_ops: applied once.
func TestProcessorResponseWriteFails(t *testing.T) {
	l := newLib(t, 1)
	id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt("unanswered"))
	obstacle := filepath.Join(l.Queue, responseTmpName(id))
	if err := os.Mkdir(obstacle, 0o700); err != nil { // opening it for writing fails with EISDIR
		t.Fatal(err)
	}
	committed := make(chan struct{})
	p := NewProcessor(l.Queue, l.DB, testLogger(t))
	p.Hook = func(point, got string) {
		if point == HookAfterCommit && got == id {
			close(committed)
		}
	}
	p.Start(context.Background())
	<-committed
	waitFor(t, "the failed response to be given up", func() bool {
		_, err := os.Lstat(filepath.Join(l.Queue, processingDir, opName(id)))
		return err == nil && l.count(t, `SELECT COUNT(*) FROM applied_ops WHERE op_id = ?`, id) == 1
	})
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(l.Queue, processingDir, opName(id))); err != nil {
		t.Fatalf("the unanswered operation left processing/: %v", err)
	}
	os.Remove(obstacle)
	startProcessor(t, l, nil)
	if got := filed(t, l.Queue, id); got != processedDir {
		t.Errorf("filed in %s, want processed", got)
	}
	if r := readResponseFile(t, l.Queue, id); !r.OK() {
		t.Errorf("response %+v, want the recorded success", r)
	}
	if n := l.titled(t, "unanswered"); n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

// Fault: fsnotify overflows (events lost). The overflow triggers a rescan that picks up every
// operation the lost events announced; the periodic rescan is out of the picture here.
func TestProcessorRescansOnOverflow(t *testing.T) {
	l := newLib(t, 1)
	events := make(chan fsnotify.Event) // never delivers: every event is lost
	errs := make(chan error)
	ready := make(chan struct{})
	p := NewProcessor(l.Queue, l.DB, testLogger(t))
	p.Rescan = time.Hour
	p.watch = func(string) (<-chan fsnotify.Event, <-chan error, func(), error) { return events, errs, func() {}, nil }
	p.Hook = func(point, _ string) {
		if point == HookReady {
			close(ready)
		}
	}
	p.Start(context.Background())
	defer p.Close()
	<-ready
	var ids []string
	for i := 0; i < 5; i++ {
		ids = append(ids, dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt(fmt.Sprintf("overflow %d", i))))
	}
	errs <- fsnotify.ErrEventOverflow
	for _, id := range ids {
		filed(t, l.Queue, id)
	}
	if got := p.Overflows(); got != 1 {
		t.Errorf("overflows: got %d, want 1", got)
	}
	if got := l.count(t, `SELECT COUNT(*) FROM prompts WHERE title LIKE 'overflow %'`); got != len(ids) {
		t.Errorf("applied %d, want %d", got, len(ids))
	}
}

// Without fsnotify at all, the periodic rescan alone keeps the queue moving.
func TestProcessorWithoutFsnotify(t *testing.T) {
	l := newLib(t, 1)
	p := NewProcessor(l.Queue, l.DB, testLogger(t))
	p.Rescan = 20 * time.Millisecond
	p.watch = func(string) (<-chan fsnotify.Event, <-chan error, func(), error) {
		return nil, nil, nil, errors.New("inotify: too many instances")
	}
	p.Start(context.Background())
	defer p.Close()
	id := dropOp(t, l.Queue, promptlib.OpCreatePrompt, createPrompt("polled"))
	if got := filed(t, l.Queue, id); got != processedDir {
		t.Errorf("filed in %s, want processed", got)
	}
}

// Fault: one operation id dropped as lower and upper case (two files) is applied once; both
// files are answered, with the same response.
func TestProcessorMixedCaseIDsAppliedOnce(t *testing.T) {
	l := newLib(t, 1)
	op, err := promptlib.NewOperation(promptlib.OpCreatePrompt, createPrompt("mixed case"))
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{strings.ToLower(op.ID), strings.ToUpper(op.ID)}
	for _, id := range ids {
		o := op
		o.ID = id
		if err := os.WriteFile(filepath.Join(l.Queue, opName(id)), mustJSON(t, o), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	startProcessor(t, l, nil)
	var responses []promptlib.Response
	for _, id := range ids {
		if got := filed(t, l.Queue, id); got != processedDir {
			t.Errorf("%s filed in %s, want %s", id, got, processedDir)
		}
		responses = append(responses, readResponseFile(t, l.Queue, id))
	}
	if n := l.titled(t, "mixed case"); n != 1 {
		t.Errorf("the operation was applied %d times, want once", n)
	}
	if a, b := responses[0], responses[1]; !a.OK() || !b.OK() || a.ID == nil || b.ID == nil || *a.ID != *b.ID {
		t.Errorf("responses %+v and %+v, want the same success twice", a, b)
	}
	if n := l.count(t, `SELECT COUNT(*) FROM applied_ops WHERE op_id = ?`, strings.ToLower(op.ID)); n != 1 {
		t.Errorf("applied_ops rows under the lower-case id: %d, want 1", n)
	}
}
