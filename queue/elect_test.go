package queue

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Two servers on one library: one processes; when it stops, the other takes over at once, not
// at its next try (Retry is an hour), so that a write made meanwhile does not wait for it.
func TestRunElectedHandsOver(t *testing.T) {
	l := newLib(t, 1)
	var mu sync.Mutex
	processedBy := map[string]string{} // operation id → elector
	tune := func(name string) func(*Processor) {
		return func(p *Processor) {
			p.Rescan = 20 * time.Millisecond
			p.Hook = func(point, id string) {
				if point == HookDone {
					mu.Lock()
					processedBy[id] = name
					mu.Unlock()
				}
			}
		}
	}
	ctxA, stopA := context.WithCancel(context.Background())
	ctxB, stopB := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for _, e := range []struct {
		name string
		ctx  context.Context
	}{{"a", ctxA}, {"b", ctxB}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			RunElected(e.ctx, ElectConfig{Dir: l.Queue, DB: filepath.Join(l.Dir, DBName), Log: slog.New(slog.DiscardHandler), Retry: time.Hour, Tune: tune(e.name)})
		}()
	}
	defer func() { stopA(); stopB(); wg.Wait() }()

	w := patientWriter(t, l.Queue)
	first, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("first"))
	if err != nil {
		t.Fatal(err)
	}
	// The done hook fires after the response is visible: wait for it rather than race it.
	var winner string
	waitFor(t, "an elector records the first operation", func() bool {
		mu.Lock()
		defer mu.Unlock()
		winner = processedBy[first.OperationID]
		return winner != ""
	})
	if winner == "a" {
		stopA()
	} else {
		stopB()
	}
	// A bound for a hang, as waitFor's: with the lock taken over only at the next try, the write
	// would wait an hour.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	second, err := w.Submit(ctx, promptlib.OpCreatePrompt, createPrompt("second"))
	if err != nil {
		t.Fatalf("the second write, made after %q stopped: %v", winner, err)
	}
	var by string
	waitFor(t, "an elector records the second operation", func() bool {
		mu.Lock()
		defer mu.Unlock()
		by = processedBy[second.OperationID]
		return by != ""
	})
	if by == winner {
		t.Errorf("second operation processed by %q, want the other elector after %q stopped", by, winner)
	}
}

// A library file replaced while the processor runs (a backup restored with mv): the next
// operation is applied to the file now at the path, not to the one the processor opened, and
// none of the old file's pages reach the new one through the -wal file they share by name.
func TestRunElectedFollowsAReplacedLibrary(t *testing.T) {
	t.Run("idle", func(t *testing.T) { replaceUnderProcessor(t, false) })
	// A reader in the middle of a read made every checkpoint give up: the old pages are still
	// in the -wal file when the replacement is found.
	t.Run("a reader held the old file", func(t *testing.T) { replaceUnderProcessor(t, true) })
}

func replaceUnderProcessor(t *testing.T, reading bool) {
	l := newLib(t, 1)
	// The test's own connection would keep the old file's -wal open (sqlite.org/howtocorrupt.html).
	l.DB.Close()
	var status ProcessorStatus
	ctx, stop := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		RunElected(ctx, ElectConfig{Dir: l.Queue, DB: filepath.Join(l.Dir, DBName), Log: testLogger(t),
			Retry: 20 * time.Millisecond, Status: &status,
			Tune: func(p *Processor) { p.Rescan = time.Hour }}) // no rescan retries the checkpoint
	}()
	defer func() { stop(); <-done }()

	var reader *sql.Tx
	if reading {
		ro, err := sql.Open("sqlite3", "file:"+filepath.Join(l.Dir, DBName)+"?mode=ro")
		if err != nil {
			t.Fatal(err)
		}
		defer ro.Close()
		if reader, err = ro.Begin(); err != nil {
			t.Fatal(err)
		}
		if err := reader.QueryRow(`SELECT COUNT(*) FROM prompts`).Scan(new(int)); err != nil {
			t.Fatal(err)
		}
	}
	w := patientWriter(t, l.Queue)
	for range 3 {
		if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("before")); err != nil {
			t.Fatal(err)
		}
	}
	// The replacement: another library, closed, renamed over this one.
	other := filepath.Join(t.TempDir(), "other")
	if err := CreateLibrary(context.Background(), other, promptlib.Sample(2, 1)); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(filepath.Join(other, DBName), filepath.Join(l.Dir, DBName)); err != nil {
		t.Fatal(err)
	}
	if reader != nil {
		reader.Rollback()
	}
	if _, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("after")); err != nil {
		t.Fatal(err)
	}
	stop()
	<-done
	now, err := OpenStore(filepath.Join(l.Dir, DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer now.Close()
	var check string
	if err := now.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check of the library now at the path: %q, %v", check, err)
	}
	for title, want := range map[string]int{"before": 0, "after": 1} {
		var n int
		if err := now.QueryRow(`SELECT COUNT(*) FROM prompts WHERE title = ?`, title).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n != want {
			t.Errorf("%d prompts titled %q in the library now at the path, want %d", n, title, want)
		}
	}
}
