package queue

import (
	"context"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Two servers on one library: one processes; when it stops, the other takes over.
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
			RunElected(e.ctx, l.Queue, filepath.Join(l.Dir, DBName), slog.New(slog.DiscardHandler), 20*time.Millisecond, tune(e.name))
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
	second, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("second"))
	if err != nil {
		t.Fatal(err)
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
