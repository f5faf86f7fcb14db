package queue

import (
	"strings"
	"time"
)

// Ages after which the writer's startup cleanup removes leftovers.
const (
	ResponseMaxAge = 24 * time.Hour // an answer nobody collected
	// A temp or withdrawn file lives for milliseconds; one this old was left by a crash, not by
	// a writer still at work.
	StaleTempAge = 10 * time.Minute
	// Clock skew tolerated before a file counts as future-dated.
	futureSkew = time.Minute
)

// CleanupReport counts what a cleanup did.
type CleanupReport struct {
	Responses int // orphaned .response-* files removed
	Temps     int // stale .tmp files removed
	Withdrawn int // stale .withdrawn files removed
	Future    int // files dated in the future, kept
}

// Cleanup is step 7, run once at start: it deletes .response-* files older than 24 h and stale
// .tmp and .withdrawn files, and logs how many. It never deletes a pending {id}.json, and keeps
// files dated in the future (a skewed clock must not delete a fresh answer), logging them. A
// queue that fails the safety checks (a symlink, someone else's) is refused with the reason.
func (w *Writer) Cleanup() (CleanupReport, error) {
	var rep CleanupReport
	// Never delete through a symlinked or foreign queue: the same checks as a write.
	if _, err := checkDir(w.FS, w.Dir); err != nil {
		return rep, err
	}
	entries, err := w.FS.ReadDir(w.Dir)
	if err != nil {
		return rep, &Error{Op: "cleanup", Path: w.Dir, Err: err}
	}
	now := w.Now()
	for _, e := range entries {
		name := e.Name()
		var maxAge time.Duration
		var count *int
		switch {
		case strings.HasPrefix(name, ".response-"):
			maxAge, count = ResponseMaxAge, &rep.Responses
		case strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".tmp"):
			maxAge, count = StaleTempAge, &rep.Temps
		case strings.HasPrefix(name, ".") && strings.HasSuffix(name, ".withdrawn"):
			maxAge, count = StaleTempAge, &rep.Withdrawn
		default:
			continue
		}
		if !e.Type().IsRegular() {
			continue // never follow or remove what mcpctl did not make
		}
		fi, err := e.Info()
		if err != nil {
			continue
		}
		age := now.Sub(fi.ModTime())
		switch {
		case age < -futureSkew:
			rep.Future++
			w.Log.Warn("queue: file dated in the future kept", "file", name, "modTime", fi.ModTime())
		case age > maxAge:
			if err := w.FS.Remove(join(w.Dir, name)); err != nil && !isNotExist(err) {
				w.Log.Warn("queue: cannot remove", "file", name, "err", err)
				continue
			}
			*count++
		}
	}
	w.Log.Info("queue: startup cleanup", "responses", rep.Responses, "temps", rep.Temps, "withdrawn", rep.Withdrawn, "future", rep.Future)
	return rep, nil
}
