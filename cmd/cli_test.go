package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

// run runs mcpctl in-process with env vars from vars and returns exit code, stdout, stderr.
func run(tb testing.TB, vars map[string]string, args ...string) (int, string, string) {
	tb.Helper()
	var stdout, stderr bytes.Buffer
	code := Main(context.Background(), args, strings.NewReader(""), &stdout, &stderr, func(k string) string { return vars[k] })
	return code, stdout.String(), stderr.String()
}

func TestUsageErrorsExit2WithHint(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"frobnicate"},
		{"serve", "--no-such-flag"},
		{"serve", "extra-arg"},
		{"library", "init"},
		{"library", "init", "--sample", "x", "dir"},
		{"library", "init", "--sample", "-5", "dir"},
		{"library", "explode"},
		{"help", "frobnicate"},
		{"serve", "--library", "a", "--db", "b"},
		{"version", "extra"},
		{"demo", "extra"},
		{"get", "projects", "extra"},
		{"help", "queue", "explode"},
		{"library"},
		{"queue"},
		{"proxymodel", "validate", "/no/such/model.yaml"},
	} {
		code, out, stderr := run(t, nil, args...)
		if code != 2 || out != "" {
			t.Errorf("mcpctl %v: exit %d, stdout %q; want 2 and nothing on stdout (stderr %q)", args, code, out, stderr)
			continue
		}
		if len(args) > 0 && !strings.Contains(stderr, "hint:") {
			t.Errorf("mcpctl %v: stderr %q has no hint", args, stderr)
		}
	}
}

func TestHelpAndVersion(t *testing.T) {
	code, out, _ := run(t, nil, "help")
	if code != 0 || !strings.Contains(out, "serve") || !strings.Contains(out, "library") {
		t.Errorf("help: exit %d, output %q", code, out)
	}
	code, out, _ = run(t, nil, "serve", "-h")
	if code != 0 || !strings.Contains(out, "--library") {
		t.Errorf("serve -h: exit %d, output %q", code, out)
	}
	// Every command has help, also those that want a subject first (get, describe, cache …).
	for name := range commands() {
		for _, args := range [][]string{{"help", name}, {name, "-h"}} {
			code, out, stderr := run(t, nil, args...)
			if code != 0 || !strings.Contains(out, "Usage") || strings.Contains(out, "unknown command") {
				t.Errorf("mcpctl %v: exit %d, stdout %q, stderr %q; want help on stdout, exit 0", args, code, out, stderr)
			}
		}
	}
	for _, v := range []string{"version", "--version", "-v"} { // the flags most tools take too
		code, out, _ = run(t, nil, v)
		if code != 0 || !strings.HasPrefix(out, "mcpctl ") {
			t.Errorf("%s: exit %d, output %q", v, code, out)
		}
	}
	// 'mcpctl help' sends users to 'mcpctl help <command>' for flags: a group's help shows each
	// subcommand's flags, and 'help GROUP SUB' is that subcommand's -h.
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"help", "queue"}, []string{"Usage: mcpctl queue status", "-failures N", "Usage: mcpctl queue process", "-force", "Usage: mcpctl queue clean"}},
		{[]string{"queue", "-h"}, []string{"-failures N", "-force"}},
		{[]string{"help", "queue", "status"}, []string{"Usage: mcpctl queue status", "-failures N", "-library DIR"}},
		{[]string{"help", "library"}, []string{"Usage: mcpctl library init", "-sample N"}},
		{[]string{"help", "get", "prompts"}, []string{"Usage: mcpctl get prompts", "-project NAME"}},
		{[]string{"help", "gate"}, []string{"Usage: mcpctl gate preview", "flags: 'mcpctl gate preview -h'"}},
		{[]string{"get", "-h"}, []string{"flags: 'mcpctl get projects -h'"}},
	} {
		code, out, stderr := run(t, nil, tc.args...)
		if code != 0 {
			t.Errorf("mcpctl %v: exit %d: %s", tc.args, code, stderr)
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("mcpctl %v lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	if code, out, _ := run(t, nil, "help", "queue", "status"); strings.Contains(out, "Usage: mcpctl queue process") {
		t.Errorf("help queue status: exit %d, shows the other subcommands too:\n%s", code, out)
	}
}

func TestLibraryInit(t *testing.T) {
	// A space, as in macOS's "Application Support": the commands it prints paste as they are.
	dir := filepath.Join(t.TempDir(), "my lib")
	code, out, stderr := run(t, nil, "library", "init", "--sample", "30", dir)
	if code != 0 {
		t.Fatalf("library init: exit %d: %s", code, stderr)
	}
	if !strings.Contains(out, "30 prompts") || !strings.Contains(out, "serve it with: mcpctl serve --library '"+dir+"'\n") {
		t.Errorf("library init said %q, want it to count 30 prompts and give the command that serves them, quoted", out)
	}
	for _, name := range []string{queue.DBName, queue.MarkerName} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("library init made no %s: %v", name, err)
		}
	}
	for _, sub := range []string{"", "processing", "processed", "failed"} {
		fi, err := os.Stat(filepath.Join(dir, queue.QueueName, sub))
		if err != nil {
			t.Fatalf("queue dir %q: %v", sub, err)
		}
		if perm := fi.Mode().Perm(); perm != 0o700 {
			t.Errorf("queue dir %q has mode %o, want 700", sub, perm)
		}
	}
	if code, _, stderr := run(t, nil, "library", "init", dir); code != 1 || !strings.Contains(stderr, "already holds a library") ||
		!strings.Contains(stderr, "hint: serve it with `mcpctl serve --library '"+dir+"'`") {
		t.Errorf("second init: exit %d, stderr %q; want 1 saying it exists and how to serve it", code, stderr)
	}
	// Flags after DIR, as users type them; after "--" a DIR may start with a dash.
	other := filepath.Join(t.TempDir(), "after")
	if code, out, stderr := run(t, nil, "library", "init", other, "--sample", "3"); code != 0 || !strings.Contains(out, "3 prompts") {
		t.Errorf("library init DIR --sample 3: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	dashed := filepath.Join(t.TempDir(), "-dashed")
	t.Chdir(filepath.Dir(dashed))
	if code, _, stderr := run(t, nil, "library", "init", "--", "-dashed"); code != 0 {
		t.Errorf("library init -- -dashed: exit %d, stderr %q", code, stderr)
	} else if _, err := os.Stat(filepath.Join(dashed, queue.DBName)); err != nil {
		t.Errorf("library init -- -dashed made no library: %v", err)
	}
}

func TestResolveOrder(t *testing.T) {
	home := t.TempDir()
	flagLib := filepath.Join(home, "flag")
	envDB := filepath.Join(home, "env", "prompts.db")
	for _, p := range []string{flagLib, filepath.Dir(envDB)} {
		if err := queue.CreateLibrary(context.Background(), p, queueStarter()); err != nil {
			t.Fatal(err)
		}
	}
	vars := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(home, "data"),
		"PROMPTEKA_DB_PATH": envDB, "PROMPTEKA_QUEUE_PATH": filepath.Join(home, "q")}
	env := Env{Getenv: func(k string) string { return vars[k] }}
	ctx := context.Background()

	got, err := (&libraryFlags{library: flagLib}).resolve(ctx, env, false)
	if err != nil || got.DB != filepath.Join(flagLib, "prompts.db") || got.Queue != filepath.Join(flagLib, "import-queue") || !got.Standalone {
		t.Errorf("--library: got %+v, %v", got, err)
	}
	// An MCP client's config passes a path as written: no shell expands its ~.
	got, err = (&libraryFlags{library: "~/flag", queue: "~/q"}).resolve(ctx, env, false)
	if err != nil || got.DB != filepath.Join(flagLib, "prompts.db") || got.Queue != filepath.Join(home, "q") {
		t.Errorf("--library ~/flag --queue ~/q: got %+v, %v; want under %s", got, err, home)
	}
	got, err = (&libraryFlags{}).resolve(ctx, env, false)
	if err != nil || got.DB != envDB || got.Queue != filepath.Join(home, "q") || got.Source != "PROMPTEKA_DB_PATH" {
		t.Errorf("env: got %+v, %v", got, err)
	}
	delete(vars, "PROMPTEKA_DB_PATH")
	delete(vars, "PROMPTEKA_QUEUE_PATH")
	// hint is the advice an error carries for the user (the command line's "hint:" line).
	hint := func(err error) string {
		var h interface{ UserHint() string }
		if errors.As(err, &h) {
			return h.UserHint()
		}
		return ""
	}
	if _, err := (&libraryFlags{}).resolve(ctx, env, false); err == nil || !strings.Contains(hint(err), "library init") {
		t.Errorf("missing standalone without create: err %v, hint %q, want advice to run library init", err, hint(err))
	}
	// A --db of another name than library init makes: its advice is to make a DIR and serve that.
	odd := filepath.Join(home, "nowhere", "x.db")
	if _, err := (&libraryFlags{db: odd}).resolve(ctx, env, false); err == nil || strings.Contains(hint(err), "library init "+filepath.Dir(odd)) ||
		!strings.Contains(hint(err), "--library DIR") {
		t.Errorf("missing --db x.db: err %v, hint %q, want advice to init a DIR and serve it with --library", err, hint(err))
	}
	got, err = (&libraryFlags{}).resolve(ctx, env, true)
	want := filepath.Join(home, "data", "mcpctl", "library", "prompts.db")
	if err != nil || got.DB != want || !got.Standalone {
		t.Fatalf("standalone default: got %+v, %v; want %s", got, err, want)
	}
}

// library init takes a leading ~ as the home directory, as serve --library does: a config or a
// script passes "~/prompts" as written, and init made a directory named ~ in the working
// directory, which serve then never found.
func TestLibraryInitExpandsHome(t *testing.T) {
	home, wd := t.TempDir(), t.TempDir()
	t.Chdir(wd)
	code, out, stderr := run(t, map[string]string{"HOME": home}, "library", "init", "~/prompts")
	want := filepath.Join(home, "prompts")
	if code != 0 || !strings.Contains(out, "mcpctl serve --library "+want) {
		t.Fatalf("library init ~/prompts: exit %d, stdout %q, stderr %q; want a library at %s", code, out, stderr, want)
	}
	if _, err := os.Stat(filepath.Join(want, queue.DBName)); err != nil {
		t.Errorf("library init ~/prompts made no library in %s: %v", want, err)
	}
	if _, err := os.Stat(filepath.Join(wd, "~")); err == nil {
		t.Errorf("library init ~/prompts made %s", filepath.Join(wd, "~"))
	}
	got, err := (&libraryFlags{library: "~/prompts"}).resolve(context.Background(), Env{Getenv: func(k string) string { return map[string]string{"HOME": home}[k] }}, false)
	if err != nil || got.Dir != want {
		t.Errorf("--library ~/prompts resolves to %+v, %v; want the library init made, %s", got, err, want)
	}
}

func queueStarter() promptlib.Library { return promptlib.Starter() }

// Servers started together on a fresh machine make one standalone library between them.
func TestEnsureStandaloneConcurrently(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data", "mcpctl", "library")
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		go func() { errs <- ensureStandalone(context.Background(), dir) }()
	}
	for i := 0; i < 4; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	db, err := queue.OpenStore(filepath.Join(dir, queue.DBName))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRow(`SELECT count(*) FROM folders WHERE name = 'Engineering'`).Scan(&n); err != nil || n != 1 {
		t.Errorf("got %d Engineering folders (%v), want 1", n, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(dir))
	if len(entries) != 1 {
		t.Errorf("left behind %d entries beside the library, want only the library", len(entries)-1)
	}
}

// The CLI prints hints written for its user, never the model's (promptlib's "call list_folders",
// "run health_check" …).
func TestCLIHintsAreForUsers(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "lib")
	if code, _, stderr := run(t, nil, "library", "init", dir); code != 0 {
		t.Fatalf("library init: %s", stderr)
	}
	if err := os.RemoveAll(filepath.Join(dir, queue.QueueName)); err != nil {
		t.Fatal(err)
	}
	// A queue appears with its first write: without one there is nothing to clean, which is no failure.
	code, out, stderr := run(t, nil, "queue", "clean", "--library", dir)
	if code != 0 || !strings.Contains(out, "nothing to clean: the import queue") || stderr != "" {
		t.Errorf("queue clean without a queue: exit %d, stdout %q, stderr %q; want 0 and nothing to clean", code, out, stderr)
	}
	code, out, _ = run(t, nil, "queue", "status", "--library", dir)
	if code != 0 || !strings.Contains(out, "processor:  mcpctl, not running") {
		t.Errorf("queue status without a queue: exit %d, stdout %q; want the processor not running", code, out)
	}
	// A file where the queue belongs is a failure, with the user's hint, not the model's.
	if err := os.WriteFile(filepath.Join(dir, queue.QueueName), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = run(t, nil, "queue", "clean", "--library", dir)
	if code != 1 || !strings.Contains(stderr, "is not a directory") || strings.Contains(stderr, "list_folders") || strings.Contains(stderr, "health_check") {
		t.Errorf("queue clean with a file for a queue: exit %d, stderr %q; want 1, the reason, no model hint", code, stderr)
	}
}

// Failures say what happened in the user's words and what to do next.
func TestFailuresSayWhatToDo(t *testing.T) {
	tmp := t.TempDir()
	file := filepath.Join(tmp, "afile")
	if err := os.WriteFile(file, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{file, filepath.Join(file, "sub")} {
		code, _, stderr := run(t, nil, "library", "init", dir)
		if code != 1 || !strings.Contains(stderr, file+" is a file, not a directory") || !strings.Contains(stderr, "hint:") ||
			strings.Contains(stderr, "queue:") {
			t.Errorf("library init %s: exit %d, stderr %q; want 1 saying %s is a file, with a hint", dir, code, stderr, file)
		}
	}

	// A prompts.db that is not SQLite, and a SQLite database of another program: every command
	// that opens the library says what the file should be.
	junk := standaloneLib(t)
	if err := os.WriteFile(filepath.Join(junk, queue.DBName), []byte(strings.Repeat("not a database ", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	foreign := filepath.Join(tmp, "foreign")
	if err := os.MkdirAll(foreign, 0o700); err != nil {
		t.Fatal(err)
	}
	db := openStore(t, foreign) // creates prompts.db
	if _, err := db.Exec(`CREATE TABLE notes (body TEXT)`); err != nil {
		t.Fatal(err)
	}
	db.Close()
	for _, tc := range []struct {
		args []string
		hint string
	}{
		{[]string{"get", "prompts", "--library", junk}, "hint: a library's prompts.db is the SQLite database"},
		{[]string{"queue", "process", "--library", junk}, "hint: a library's prompts.db is the SQLite database"},
		{[]string{"get", "prompts", "--library", foreign}, "hint: this SQLite database does not have the tables of a Prompteka library"},
	} {
		code, _, stderr := run(t, nil, tc.args...)
		if code != 1 || !strings.Contains(stderr, tc.hint) {
			t.Errorf("mcpctl %v: exit %d, stderr %q; want 1 and %q", tc.args, code, stderr, tc.hint)
		}
	}

	// A fresh machine: nobody named a library, and none has been made; and --library given the
	// database file instead of its directory.
	fresh := map[string]string{"HOME": filepath.Join(tmp, "home"), "XDG_DATA_HOME": filepath.Join(tmp, "data")}
	for _, tc := range []struct {
		vars map[string]string
		args []string
		want []string
	}{
		{fresh, []string{"get", "prompts"}, []string{"no library yet", "hint: the first 'mcpctl serve' creates it", "'mcpctl library init " + filepath.Join(tmp, "data", "mcpctl", "library") + "'"}},
		{fresh, []string{"queue", "status"}, []string{"no library yet", "hint: the first 'mcpctl serve' creates it"}},
		{nil, []string{"get", "prompts", "--library", filepath.Join(junk, queue.DBName)}, []string{"is not a directory", "hint: --library takes the library's directory", "--db FILE"}},
	} {
		code, _, stderr := run(t, tc.vars, tc.args...)
		for _, w := range tc.want {
			if code != 1 || !strings.Contains(stderr, w) {
				t.Errorf("mcpctl %v: exit %d, stderr %q; want 1 and %q", tc.args, code, stderr, w)
			}
		}
	}

	// A library whose import queue was never made (the app makes it with its first write).
	code, out, stderr := run(t, nil, "queue", "status", "--db", filepath.Join(foreign, queue.DBName))
	if code != 0 || !strings.Contains(out, "does not exist yet: nothing has been queued") || !strings.Contains(out, "pending:    0") {
		t.Errorf("queue status without import-queue/: exit %d, stdout %q, stderr %q; want 0 and a note that it does not exist yet", code, out, stderr)
	}

	code, _, stderr = run(t, nil, "trust", filepath.Join(tmp, "nonexistent"))
	if code != 2 || !strings.Contains(stderr, "nonexistent does not exist") || !strings.Contains(stderr, "hint:") {
		t.Errorf("trust a missing directory: exit %d, stderr %q; want 2 saying it does not exist, with a hint", code, stderr)
	}
	code, _, stderr = run(t, nil, "trust", tmp)
	if code != 1 || !strings.Contains(stderr, "no .mcpctl/project.yaml in "+tmp) || !strings.Contains(stderr, "hint:") {
		t.Errorf("trust outside a repository: exit %d, stderr %q; want 1 with a hint", code, stderr)
	}
}

// A command whose reader has gone (mcpctl describe project web | head) ends as a process that
// SIGPIPE ended does, quietly: it printed "mcpctl: write /dev/stdout: broken pipe" after head's
// lines, and exited 1.
func TestOutputToAClosedPipeEndsQuietly(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	r.Close() // the reader has gone before the first write
	defer w.Close()
	cmd := exec.Command(os.Args[0], "get", "projects")
	cmd.Env = testHome(t)
	writeProject(t, cmd.Env, "web", "folder: Web App\n")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	err = cmd.Run()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 141 || stderr.Len() > 0 {
		t.Errorf("mcpctl get projects into a closed pipe: %v, stderr %q; want exit 141 and nothing said", err, stderr.String())
	}
}

// Only a write to stdout or stderr whose reader has gone ends quietly: a broken pipe elsewhere
// (a socket to an LLM) is reported like any other error.
func TestBrokenPipeElsewhereIsReported(t *testing.T) {
	var stderr bytes.Buffer
	err := fmt.Errorf("summarize: %w", &net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)})
	if code := report(&stderr, err); code != 1 || !strings.Contains(stderr.String(), "broken pipe") {
		t.Errorf("a socket's broken pipe: exit %d, stderr %q; want 1 and the error", code, stderr.String())
	}
}

// What a session that cannot be served says is one line: the problem, its fix and the restart,
// each ending in one full stop whether or not its text brought one.
func TestSessionProblem(t *testing.T) {
	for _, tc := range []struct{ msg, hint, want string }{
		{"no folder X", "create it.", "no folder X. To fix: create it. Then restart the MCP server (or reconnect it in the client)."},
		{"no folder X.", "", "no folder X. Then restart the MCP server (or reconnect it in the client)."},
	} {
		if got := sessionProblem(tc.msg, tc.hint); got != tc.want {
			t.Errorf("sessionProblem(%q, %q) = %q, want %q", tc.msg, tc.hint, got, tc.want)
		}
	}
}
