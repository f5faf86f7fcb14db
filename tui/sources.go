package tui

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/fsnotify/fsnotify"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// queueRescan catches queue changes whose file events were missed, and a queue directory that
// appears after the console started.
const queueRescan = 2 * time.Second

// maxBatch is the most traffic events one message carries: a burst (or the history read at
// start) costs one Update per batch, not one per event.
const maxBatch = 1000

// sources are the console's live inputs, each a goroutine feeding a channel that a command
// reads one item from and is issued again. They belong to the Model: Close cancels and waits.
type sources struct {
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	library     <-chan struct{} // the library's change notifications; nil without a library
	unsubscribe func()
	queue       chan struct{}    // the queue directory changed (coalesced)
	traffic     chan trafficItem // events from every traffic file
}

type trafficItem struct {
	ev  traffic.Event
	err error // Follow failed; no more events come
}

// Messages the sources produce.
type (
	libraryChangedMsg struct{}
	queueChangedMsg   struct{}
	trafficMsg        struct {
		events []traffic.Event
		err    error
	}
)

func startSources(ctx context.Context, db *dbread.DB, queueDir, trafficDir string) *sources {
	ctx, cancel := context.WithCancel(ctx)
	s := &sources{ctx: ctx, cancel: cancel, unsubscribe: func() {},
		queue: make(chan struct{}, 1), traffic: make(chan trafficItem, 4*maxBatch)}
	if db != nil {
		s.library, s.unsubscribe = db.Changes()
	}
	if queueDir != "" {
		s.wg.Add(1)
		go func() { defer s.wg.Done(); watchQueue(ctx, queueDir, s.queue) }()
	}
	if trafficDir != "" {
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			err := traffic.Follow(ctx, trafficDir, nil, func(e traffic.Event) {
				displayEvent(&e)
				select {
				case s.traffic <- trafficItem{ev: e}:
				case <-ctx.Done():
				}
			})
			if err != nil {
				select {
				case s.traffic <- trafficItem{err: err}:
				case <-ctx.Done():
				}
			}
		}()
	}
	return s
}

// close stops every source and waits for its goroutine.
func (s *sources) close() {
	s.cancel()
	s.unsubscribe()
	s.wg.Wait()
}

// signal sends on a coalescing channel without blocking.
func signal(ch chan struct{}) {
	select {
	case ch <- struct{}{}:
	default:
	}
}

// watchQueue signals ch when anything in the queue directory or its state subdirectories
// changes, and every queueRescan in case an event was missed.
func watchQueue(ctx context.Context, dir string, ch chan struct{}) {
	tick := time.NewTicker(queueRescan)
	defer tick.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if w, err := fsnotify.NewWatcher(); err == nil {
		defer w.Close()
		for _, d := range []string{dir, filepath.Join(dir, "processing"), filepath.Join(dir, "processed"), filepath.Join(dir, "failed")} {
			w.Add(d) // a missing one is seen by the rescan
		}
		events, errs = w.Events, w.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return
		case _, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			signal(ch)
		case _, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			signal(ch)
		case <-tick.C:
			signal(ch)
		}
	}
}

// followLibrary subscribes to the changes of a library opened after the sources started. It
// runs on the program's goroutine, as waitLibrary does, which reads s.library there.
func (s *sources) followLibrary(db *dbread.DB) {
	s.unsubscribe()
	s.library, s.unsubscribe = db.Changes()
}

// waitLibrary reads one change notification.
func (s *sources) waitLibrary() tea.Cmd {
	ch := s.library // read here, on the program's goroutine: followLibrary may set it
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return libraryChangedMsg{}
		case <-s.ctx.Done():
			return nil
		}
	}
}

// waitQueue reads one queue change.
func (s *sources) waitQueue() tea.Cmd {
	return func() tea.Msg {
		select {
		case <-s.queue:
			return queueChangedMsg{}
		case <-s.ctx.Done():
			return nil
		}
	}
}

// waitTraffic reads the next traffic events: it blocks for one, then takes what else is
// already waiting, up to maxBatch.
func (s *sources) waitTraffic() tea.Cmd {
	return func() tea.Msg {
		var m trafficMsg
		select {
		case it := <-s.traffic:
			if it.err != nil {
				return trafficMsg{err: it.err}
			}
			m.events = append(m.events, it.ev)
		case <-s.ctx.Done():
			return nil
		}
		for len(m.events) < maxBatch {
			select {
			case it := <-s.traffic:
				if it.err != nil {
					m.err = it.err
					return m
				}
				m.events = append(m.events, it.ev)
			default:
				return m
			}
		}
		return m
	}
}

// displayEvent makes an event's texts safe to lay out (display): a traffic file holds what
// clients sent, a tool's or resource's name among it. The payload stays as recorded, for the
// Pipeline screen to transform; the screens that show it clean it then.
func displayEvent(e *traffic.Event) {
	for _, f := range []*string{&e.Session, &e.Project, &e.Kind, &e.Method, &e.ID, &e.Name, &e.Status, &e.ErrorCode, &e.Upstream} {
		*f = display(*f)
	}
	if g := e.Gate; g != nil {
		gc := *g
		gc.State = display(gc.State)
		e.Gate = &gc
	}
	if p := e.Pipeline; p != nil {
		pc := *p
		pc.Model = display(pc.Model)
		pc.Stages = make([]string, len(p.Stages))
		for i, st := range p.Stages {
			pc.Stages[i] = display(st)
		}
		e.Pipeline = &pc
	}
}
