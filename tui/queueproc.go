package tui

import (
	"errors"
	"io/fs"

	"github.com/mcpctl/mcpctl/queue"
)

// processorState says who processes the library's queue, as 'mcpctl queue status' does (and by
// the same test, so the two never disagree): the Prompteka app for its own library; for a
// standalone one, whether an mcpctl processor holds the queue's lock now. idle is true when
// nothing is processing it, so operations wait until something does.
//
// Like the CLI it takes the lock for an instant when it is free: a processor starting in that
// instant finds it taken (a server's waits and tries again; 'queue process' says so and exits).
func processorState(libraryDir, queueDir string) (state string, idle bool) {
	if libraryDir == "" || queueDir == "" {
		return "", false
	}
	if !queue.IsStandalone(libraryDir) {
		return "the Prompteka app", false
	}
	const stopped = "mcpctl, not running (start 'mcpctl serve' or 'mcpctl queue process')"
	lock, err := queue.TryLock(queueDir)
	switch {
	case errors.Is(err, queue.ErrLocked):
		return "mcpctl, running", false
	case errors.Is(err, fs.ErrNotExist): // a processor makes the queue before it locks it
		return stopped, true
	case err != nil:
		return "mcpctl, state unknown: " + err.Error(), false
	}
	lock.Release()
	return stopped, true
}
