package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/queue"
	"github.com/mcpctl/mcpctl/schemas"
)

// healthCore is the core health_check reads, on the library lib with its database open.
func healthCore(t *testing.T, lib Library) *core {
	t.Helper()
	// With a search sidecar: without one, health_check calls the library degraded already.
	db, err := dbread.Open(context.Background(), lib.DB, dbread.Options{CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return &core{lib: lib, db: db, log: slog.New(slog.DiscardHandler), started: time.Now()}
}

func health(t *testing.T, c *core) HealthResult {
	t.Helper()
	h, err := readTools{c}.healthCheck(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := schemas.Validate("health_check.output", b); err != nil {
		t.Fatalf("health_check's result breaks its output schema: %v\n%s", err, b)
	}
	return h.(HealthResult)
}

// A standalone library whose processor cannot write it (the disk is full) is not healthy: the
// processor runs, and health_check says its last write failed and why, until a write gets
// through. SQLite's max_page_count stands in for the full disk (the same SQLITE_FULL); the
// processor, queue and library are real.
func TestHealthSaysTheLastWriteFailed(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib")
	if err := queue.CreateLibrary(context.Background(), dir, promptlib.Sample(3, 1)); err != nil {
		t.Fatal(err)
	}
	lib := Library{Dir: dir, DB: filepath.Join(dir, queue.DBName), Queue: filepath.Join(dir, queue.QueueName), Standalone: true}
	c := healthCore(t, lib)
	store, err := queue.OpenStore(lib.DB)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var pages int
	if err := store.QueryRow(`PRAGMA page_count`).Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if _, err := store.Exec(fmt.Sprintf(`PRAGMA max_page_count = %d`, pages)); err != nil {
		t.Fatal(err)
	}
	p := queue.NewProcessor(lib.Queue, store, c.log)
	p.Status = &c.proc
	p.Start(context.Background())
	t.Cleanup(func() { p.Close() })

	if h := health(t, c); h.Status != "healthy" || h.UptimeSeconds != math.Trunc(h.UptimeSeconds) {
		t.Fatalf("before any write: health %s, uptime %v s; want healthy, whole seconds (nanoseconds are noise to a model)", h.Status, h.UptimeSeconds)
	}
	w := queue.NewWriter(lib.Queue, c.log).WithProcessor(c.proc.Alive)
	big := promptlib.CreatePromptData{Title: "big", Content: strings.Repeat("x", 60<<10)}
	if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, big); err == nil {
		t.Fatal("the write went through a full disk")
	}
	h := health(t, c)
	if h.Status != "degraded" || h.Queue.Processor.State != queue.ProcRunning || h.Queue.Processor.Error == nil ||
		!strings.Contains(*h.Queue.Processor.Error, "the disk is full") {
		t.Errorf("health %s, processor %s (%v); want degraded, running, saying the last write failed on a full disk",
			h.Status, h.Queue.Processor.State, deref(h.Queue.Processor.Error))
	}

	if _, err := store.Exec(`PRAGMA max_page_count = 1073741823`); err != nil { // space is back
		t.Fatal(err)
	}
	if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, big); err != nil {
		t.Fatalf("once space is back: %v", err)
	}
	if h := health(t, c); h.Status != "healthy" || h.Queue.Processor.Error != nil {
		t.Errorf("after a write went through: health %s, processor error %v; want healthy", h.Status, deref(h.Queue.Processor.Error))
	}
}

// A queue holding as many operations as it takes is not healthy: every write is refused with
// QUEUE_FULL, and health_check says so.
func TestHealthSaysTheQueueIsFull(t *testing.T) {
	lib := librarytest.New(t, 3) // a Prompteka library: no processor drains the queue
	// Away from macOS, a Prompteka library without a processor is degraded already; the lock
	// stands for one that does not drain the queue.
	lock, err := queue.TryLock(lib.Queue)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Release() })
	c := healthCore(t, Library{Dir: lib.Dir, DB: lib.DB, Queue: lib.Queue})
	if h := health(t, c); h.Status != "healthy" || h.Queue.Error != nil {
		t.Fatalf("an empty queue: health %s, queue error %v; want healthy", h.Status, deref(h.Queue.Error))
	}
	for i := range queue.MaxPending {
		if err := os.WriteFile(filepath.Join(lib.Queue, fmt.Sprintf("op-%d.json", i)), []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	h := health(t, c)
	if h.Status != "degraded" || h.Queue.Pending != queue.MaxPending || h.Queue.Error == nil || !strings.Contains(*h.Queue.Error, "1000 pending operations") {
		t.Fatalf("a full queue: health %s, %d pending, queue error %v; want degraded, saying the queue is full",
			h.Status, h.Queue.Pending, deref(h.Queue.Error))
	}
	_, err = queue.NewWriter(lib.Queue, nil).Submit(context.Background(), promptlib.OpCreatePrompt, promptlib.CreatePromptData{Title: "t", Content: "c"})
	if pe, ok := err.(*promptlib.Error); !ok || pe.Code != promptlib.CodeQueueFull || !strings.HasPrefix(pe.Message, *h.Queue.Error) {
		t.Errorf("the write: %v; want QUEUE_FULL with health_check's reason", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// Where the Prompteka app cannot run (it is a macOS app), nothing applies a Prompteka library's
// writes but a 'queue process --force' the user starts: health_check says so, as a write's
// refusal does (PROCESSOR_STOPPED), and what to run; with one running (it holds the processor lock) the
// queue is answered.
func TestHealthSaysNothingAppliesWritesWithoutTheApp(t *testing.T) {
	lib := librarytest.New(t, 3)
	l := Library{Dir: lib.Dir, DB: lib.DB, Queue: lib.Queue}
	if state, problem := appProcessor("darwin", l); state != "app" || problem != nil {
		t.Errorf("on macOS: %s, %v; want the app's, no problem", state, deref(problem))
	}
	state, problem := appProcessor("linux", l)
	if state != "none" || problem == nil || !strings.Contains(*problem, "'mcpctl queue process --force --library "+lib.Dir+"'") ||
		!strings.Contains(*problem, "PROCESSOR_STOPPED") {
		t.Errorf("on Linux, no processor: %s, %v; want none, saying writes are refused as a write is, and what to run", state, deref(problem))
	}
	c := healthCore(t, l)
	if h := health(t, c); runtime.GOOS != "darwin" && (h.Status != "degraded" || h.Queue.Processor.State != "none" || h.Queue.Processor.Error == nil) {
		t.Errorf("health_check on %s: %s, processor %s, error %v; want degraded, none, saying nothing applies writes",
			runtime.GOOS, h.Status, h.Queue.Processor.State, deref(h.Queue.Processor.Error))
	}
	lock, err := queue.TryLock(lib.Queue)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if state, problem := appProcessor("linux", l); state != queue.ProcWaiting || problem != nil {
		t.Errorf("on Linux, a processor running: %s, %v; want waiting (another process answers), no problem", state, deref(problem))
	}
}

// A queue on a full disk is not healthy: every write would fail with the disk full, and
// health_check says so before one does. A 1 MB tmpfs, filled, is the full disk (mounting one
// needs root, as CI's container has; the test is skipped elsewhere).
func TestHealthSaysTheQueueDiskIsFull(t *testing.T) {
	lib := librarytest.New(t, 3)
	disk := t.TempDir()
	if err := syscall.Mount("tmpfs", disk, "tmpfs", 0, "size=1m,mode=0700"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill (%v): needs root", err)
	}
	t.Cleanup(func() { syscall.Unmount(disk, syscall.MNT_DETACH) })
	q := filepath.Join(disk, "import-queue")
	if err := os.Mkdir(q, 0o700); err != nil {
		t.Fatal(err)
	}
	c := healthCore(t, Library{Dir: lib.Dir, DB: lib.DB, Queue: q})
	// The lock stands for the app, as in TestHealthSaysTheQueueIsFull.
	lock, err := queue.TryLock(q)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { lock.Release() })

	if h := health(t, c); h.Queue.Error == nil || !strings.Contains(*h.Queue.Error, "KB free") || h.Status != "degraded" {
		// 1 MB is less than a write may need already.
		t.Fatalf("a 1 MB disk: health %s, queue error %v; want degraded, saying how little is free", h.Status, deref(h.Queue.Error))
	}
	// Fill it, and a write fails as health_check said it would.
	f, err := os.Create(filepath.Join(disk, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	f.Write(make([]byte, 1<<20)) // until the disk is full: the error is the point
	f.Close()
	h := health(t, c)
	if h.Status != "degraded" || h.Queue.Error == nil || !strings.Contains(*h.Queue.Error, " 0 KB free") {
		t.Fatalf("a full disk: health %s, queue error %v; want degraded, 0 KB free", h.Status, deref(h.Queue.Error))
	}
	_, err = queue.NewWriter(q, nil).Submit(context.Background(), promptlib.OpCreatePrompt, promptlib.CreatePromptData{Title: "t", Content: "c"})
	if pe, ok := err.(*promptlib.Error); !ok || !strings.Contains(pe.Message, "the disk is full") {
		t.Errorf("the write: %v; want it refused, the disk full", err)
	}
}
