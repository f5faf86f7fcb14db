package queue

import (
	"path/filepath"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Answerer is who applies the operations of a library's queue, as 'mcpctl queue status', the
// console and health_check tell it (by one test, so they never disagree).
type Answerer struct {
	App        bool   // the Prompteka app: a Prompteka library on macOS; nothing else is known then
	Standalone bool   // the library is mcpctl's own (it carries the marker)
	Running    bool   // an mcpctl processor holds the queue's lock now
	Err        error  // why whether one runs cannot be told
	Args       string // the flags that name the library (LibraryArgs), for the command that starts a processor
}

// WhoAnswers says who answers the queue in queueDir of a library, standalone or Prompteka's, on
// the system goos (runtime.GOOS); args are the flags that name the library (LibraryArgs). The
// Prompteka app runs only on macOS: elsewhere its library's queue is answered only by an mcpctl
// processor the user forces on it.
func WhoAnswers(standalone bool, args, queueDir, goos string) Answerer {
	if !standalone && goos == "darwin" {
		return Answerer{App: true, Args: args}
	}
	running, err := Running(queueDir)
	return Answerer{Standalone: standalone, Running: running, Err: err, Args: args}
}

// LibraryArgs are the flags that name the library with the database db and the queue queueDir
// to a command: --library DIR where both are DIR's own, else --db and --queue, as a --library
// would have a processor watch DIR's queue while the operations wait in another.
func LibraryArgs(db, queueDir string) string {
	dir := filepath.Dir(db)
	if filepath.Base(db) == DBName && filepath.Clean(queueDir) == filepath.Join(dir, QueueName) {
		return "--library " + promptlib.ShellWord(dir)
	}
	return "--db " + promptlib.ShellWord(db) + " --queue " + promptlib.ShellWord(queueDir)
}

// Idle reports whether nothing answers the queue now: its operations wait until something does.
func (a Answerer) Idle() bool { return !a.App && !a.Running && a.Err == nil }

// String says who answers, and what to start when nothing does: for this library, as a command
// without its flags would start one for the default library instead.
func (a Answerer) String() string {
	lib := ""
	if a.Args != "" {
		lib = " " + a.Args
	}
	switch {
	case a.App:
		return "the Prompteka app"
	case a.Err != nil:
		return "mcpctl, state unknown: " + a.Err.Error()
	case a.Running:
		return "mcpctl, running"
	case a.Standalone:
		return "mcpctl, not running (start " + promptlib.Quoted("mcpctl serve"+lib) + " or " + promptlib.Quoted("mcpctl queue process"+lib) + ")"
	}
	return "none: the app is macOS-only (start " + promptlib.Quoted("mcpctl queue process --force"+lib) + ")"
}
