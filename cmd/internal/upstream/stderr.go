package upstream

import (
	"bufio"
	"bytes"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"
)

// How much of a server's stderr reaches mcpctl's log, which an MCP client keeps as a file it
// never rotates (100 MB of stderr made a 107 MB log): a token bucket in bytes lets a burst
// through whole (a start-up banner, a stack trace) and then a trickle. A line costs its length
// and stderrLineCost for the log record around it, so a flood of short lines is bounded too.
const (
	stderrBurst       = 256 << 10 // bytes
	stderrRate        = 1 << 10   // bytes a second, about 3.6 MB an hour of a flood that never ends
	stderrLineCost    = 64
	stderrReportEvery = 10 * time.Second // how often a flood's dropped lines are counted in the log
	maxStderrLine     = 512              // bytes of the last line kept for errors; longer lines are cut
)

// logBudget is a token bucket of bytes of log.
type logBudget struct {
	tokens float64
	last   time.Time
}

// take spends cost if the budget has it.
func (b *logBudget) take(cost int, now time.Time) bool {
	b.tokens = min(stderrBurst, b.tokens+now.Sub(b.last).Seconds()*stderrRate)
	b.last = now
	if b.tokens < float64(cost) {
		return false
	}
	b.tokens -= float64(cost)
	return true
}

// readStderr sends each stderr line to the log (never to stdout, which is mcpctl's MCP channel)
// within the log's budget, counting the lines it drops, and keeps the last non-empty one for
// errors whether logged or not.
func (p *process) readStderr() {
	defer close(p.stderrDone)
	budget := logBudget{tokens: stderrBurst, last: time.Now()}
	dropped := drops{log: p.log, after: afterFunc}
	defer dropped.close()
	r := bufio.NewReaderSize(p.stderrR, 4096)
	var last lastLine
	for {
		line, err := r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// An endless line: log it in pieces rather than hold it all.
			err = nil
		}
		if text := string(bytes.TrimRight(line, "\r\n")); text != "" {
			if now := time.Now(); budget.take(len(text)+stderrLineCost, now) {
				p.log.Info("upstream stderr", "line", text)
			} else {
				dropped.add(now)
			}
			if len(text) > maxStderrLine {
				text = text[:maxStderrLine] + "…"
			}
			p.mu.Lock()
			p.lastStderr = last.see(text)
			p.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

// lastLine is the stderr line that says why a server failed: the last one, except after npm's
// "npm error code": npx, which most project servers are started with, ends a failure with lines
// of advice and a pointer to its debug log ("npm error A complete log of this run can be found
// in: …"), and the cause is the line after the code ("404 Not Found - GET …"). That pair is kept
// until a line comes that is not npm's.
type lastLine struct {
	line  string
	npm   bool // line is npm's code, and its cause while cause is false
	cause bool // the cause has been added to line
}

// see takes the next line and returns the line to report.
func (l *lastLine) see(text string) string {
	rest, isNPM := npmError(text)
	switch {
	case isNPM && strings.HasPrefix(rest, "code "):
		l.line, l.npm, l.cause = text, true, false
	case isNPM && l.npm && !l.cause:
		l.line, l.cause = l.line+": "+rest, true
	case isNPM && l.npm:
		// advice and the log's path: the code and its cause stand
	default:
		l.line, l.npm = text, false
	}
	return l.line
}

// npmError is what follows npm's error prefix ("npm error ", older npm's "npm ERR! ").
func npmError(text string) (rest string, ok bool) {
	if rest, ok := strings.CutPrefix(text, "npm error "); ok {
		return rest, true
	}
	return strings.CutPrefix(text, "npm ERR! ")
}

// drops counts the stderr lines the log's budget drops and says so in the log: the first at
// once, so that the log says it is being cut short, then what was dropped since at most every
// stderrReportEvery. The count is reported when its interval ends even if the server has gone
// quiet by then, and when the stream ends.
type drops struct {
	log *slog.Logger
	// after is afterFunc; tests fire it themselves. It is called with mu held, so f must run
	// later, never inside it.
	after func(time.Duration, func()) (stop func() bool)

	mu       sync.Mutex
	n        int       // dropped since the last report
	reported time.Time // when the last report was, or was due
	stop     func() bool
}

func afterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// add counts a line dropped at now.
func (d *drops) add(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.n++
	if d.stop != nil {
		return // a report is due
	}
	due := d.reported.Add(stderrReportEvery)
	if wait := due.Sub(now); wait > 0 {
		d.stop = d.after(wait, func() {
			d.mu.Lock()
			defer d.mu.Unlock()
			d.stop = nil
			d.report(due)
		})
		return
	}
	d.report(now)
}

// close reports what is left when the stream ends.
func (d *drops) close() {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.stop != nil {
		d.stop()
		d.stop = nil
	}
	d.report(d.reported)
}

// report logs the count, if any, as of at; the caller holds mu.
func (d *drops) report(at time.Time) {
	if d.n == 0 {
		return
	}
	d.log.Warn("upstream stderr lines dropped: the server writes more than the log takes", "dropped", d.n)
	d.n = 0
	d.reported = at
}
