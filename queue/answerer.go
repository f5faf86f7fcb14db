package queue

// Answerer is who applies the operations of a library's queue, as 'mcpctl queue status', the
// console and health_check tell it (by one test, so they never disagree).
type Answerer struct {
	App        bool  // the Prompteka app: a Prompteka library on macOS; nothing else is known then
	Standalone bool  // the library is mcpctl's own (it carries the marker)
	Running    bool  // an mcpctl processor holds the queue's lock now
	Err        error // why whether one runs cannot be told
}

// WhoAnswers says who answers the queue in queueDir of a library, standalone or Prompteka's, on
// the system goos (runtime.GOOS). The Prompteka app runs only on macOS: elsewhere its library's
// queue is answered only by an mcpctl processor the user forces on it.
func WhoAnswers(standalone bool, queueDir, goos string) Answerer {
	if !standalone && goos == "darwin" {
		return Answerer{App: true}
	}
	running, err := Running(queueDir)
	return Answerer{Standalone: standalone, Running: running, Err: err}
}

// Idle reports whether nothing answers the queue now: its operations wait until something does.
func (a Answerer) Idle() bool { return !a.App && !a.Running && a.Err == nil }

// String says who answers, and what to start when nothing does.
func (a Answerer) String() string {
	switch {
	case a.App:
		return "the Prompteka app"
	case a.Err != nil:
		return "mcpctl, state unknown: " + a.Err.Error()
	case a.Running:
		return "mcpctl, running"
	case a.Standalone:
		return "mcpctl, not running (start 'mcpctl serve' or 'mcpctl queue process')"
	}
	return "none: the app is macOS-only (start 'mcpctl queue process --force')"
}
