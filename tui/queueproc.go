package tui

import (
	"github.com/mcpctl/mcpctl/queue"
)

// processorState says who processes the library's queue, as 'mcpctl queue status' does (and by
// the same test, queue.Running, so the two never disagree): the Prompteka app for its own
// library; for a standalone one, whether an mcpctl processor holds the queue's lock now. idle
// is true when nothing is processing it, so operations wait until something does.
func processorState(libraryDir, queueDir string) (state string, idle bool) {
	if libraryDir == "" || queueDir == "" {
		return "", false
	}
	if !queue.IsStandalone(libraryDir) {
		return "the Prompteka app", false
	}
	running, err := queue.Running(queueDir)
	switch {
	case err != nil:
		return "mcpctl, state unknown: " + err.Error(), false
	case running:
		return "mcpctl, running", false
	}
	return "mcpctl, not running (start 'mcpctl serve' or 'mcpctl queue process')", true
}
