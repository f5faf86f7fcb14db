package queue

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Environment of a child process that plays a processor killed at a hook point.
const (
	envChildPoint = "MCPCTL_QUEUE_TEST_KILL_AT"
	envChildLib   = "MCPCTL_QUEUE_TEST_LIBRARY"
	// A child that writes: the queue to write to and the title prefix of its prompts.
	envChildWrite = "MCPCTL_QUEUE_TEST_WRITE"
	envChildTitle = "MCPCTL_QUEUE_TEST_TITLE"
	// envChildLock makes the child take the lock of the queue it names, say "locked" on stdout,
	// and hold it until its stdin ends.
	envChildLock = "MCPCTL_QUEUE_TEST_LOCK"
)

// childWrites is how many operations a writer child submits.
const childWrites = 10

// TestMain lets the test binary re-exec itself as a processor that kills itself with SIGKILL at
// a named hook point: a real crash, not a simulated one.
func TestMain(m *testing.M) {
	if point := os.Getenv(envChildPoint); point != "" {
		os.Exit(runChildProcessor(point, os.Getenv(envChildLib)))
	}
	if q := os.Getenv(envChildWrite); q != "" {
		os.Exit(runChildWriter(q, os.Getenv(envChildTitle)))
	}
	if q := os.Getenv(envChildLock); q != "" {
		lock, err := TryLock(q)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("locked")
		io.Copy(io.Discard, os.Stdin) //nolint:errcheck // until the test closes it
		lock.Release()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func runChildProcessor(point, lib string) int {
	db, err := OpenStore(filepath.Join(lib, DBName))
	if err != nil {
		return 3
	}
	p := NewProcessor(filepath.Join(lib, QueueName), db, slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	p.Rescan = 20 * time.Millisecond
	p.Hook = func(at, id string) {
		if at == point {
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
			select {} // the signal is on its way; never take another step
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p.Run(ctx)
	return 4 // the hook point was never reached
}

func runChildWriter(queue, prefix string) int {
	w := NewWriter(queue, slog.New(slog.NewJSONHandler(os.Stderr, nil)))
	w.AttemptTimeout = 30 * time.Second
	for i := 0; i < childWrites; i++ {
		if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt(fmt.Sprintf("%s %d", prefix, i))); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

// testLib is a standalone library on disk with the processor's store open.
type testLib struct {
	Dir, Queue string
	DB         *sql.DB
}

func newLib(tb testing.TB, prompts int) *testLib {
	tb.Helper()
	dir := filepath.Join(tb.TempDir(), "lib")
	if err := CreateLibrary(context.Background(), dir, promptlib.Sample(prompts, 1)); err != nil {
		tb.Fatal(err)
	}
	db, err := OpenStore(filepath.Join(dir, DBName))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	return &testLib{Dir: dir, Queue: filepath.Join(dir, QueueName), DB: db}
}

// count runs a COUNT query.
func (l *testLib) count(tb testing.TB, q string, args ...any) int {
	tb.Helper()
	var n int
	if err := l.DB.QueryRow(q, args...).Scan(&n); err != nil {
		tb.Fatalf("%s: %v", q, err)
	}
	return n
}

func (l *testLib) titled(tb testing.TB, title string) int {
	tb.Helper()
	return l.count(tb, `SELECT COUNT(*) FROM prompts WHERE title = ?`, title)
}

// startProcessor runs a processor on l until the test ends.
func startProcessor(tb testing.TB, l *testLib, hook func(point, id string)) *Processor {
	tb.Helper()
	p := NewProcessor(l.Queue, l.DB, testLogger(tb))
	p.Rescan = 50 * time.Millisecond
	p.Hook = hook
	p.Start(context.Background())
	tb.Cleanup(func() {
		if err := p.Close(); err != nil {
			tb.Errorf("processor: %v", err)
		}
	})
	return p
}

// fastWriter is a writer whose attempts are short: for tests where no answer is coming.
func fastWriter(tb testing.TB, dir string) *Writer {
	w := NewWriter(dir, testLogger(tb))
	w.AttemptTimeout, w.RetryDelay, w.Poll, w.Grace = 60*time.Millisecond, 10*time.Millisecond, 5*time.Millisecond, 30*time.Millisecond
	return w
}

// patientWriter waits long enough that a running processor always answers first.
func patientWriter(tb testing.TB, dir string) *Writer {
	w := NewWriter(dir, testLogger(tb))
	w.AttemptTimeout, w.Poll = 20*time.Second, 10*time.Millisecond
	return w
}

func testLogger(tb testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return slog.New(slog.DiscardHandler)
}

// waitFor polls cond until it holds or 20 s pass: a condition with a deadline, never a sleep.
func waitFor(tb testing.TB, what string, cond func() bool) {
	tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		if time.Now().After(deadline) {
			tb.Fatalf("timed out waiting for %s", what)
		}
		<-tick.C
	}
}

// files lists the names in dir (not recursive), sorted.
func files(tb testing.TB, dir string) []string {
	tb.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		tb.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names
}

// queueLeftovers lists what sits in the queue directory besides the processor's subdirectories
// and lock: pending operations, temp files, responses.
func queueLeftovers(tb testing.TB, dir string) []string {
	tb.Helper()
	var out []string
	for _, n := range files(tb, dir) {
		switch n {
		case processingDir, processedDir, failedDir, lockName:
			continue
		}
		out = append(out, n)
	}
	return out
}

func createPrompt(title string) promptlib.CreatePromptData {
	return promptlib.CreatePromptData{Title: title, Content: "body of " + title}
}

// asError extracts the *promptlib.Error of a failed write, failing the test on anything else.
func asError(tb testing.TB, err error) *promptlib.Error {
	tb.Helper()
	pe, ok := err.(*promptlib.Error)
	if !ok {
		tb.Fatalf("got error %T %v, want *promptlib.Error", err, err)
	}
	if pe.OperationID == "" || !strings.Contains(pe.Message, pe.OperationID) {
		tb.Errorf("error %q does not name its operation id %q", pe.Message, pe.OperationID)
	}
	if pe.Outcome == "" {
		tb.Errorf("error %q does not say applied / not applied / unknown", pe.Message)
	}
	return pe
}

func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}
