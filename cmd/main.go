// Package cmd is mcpctl's command line: one file per subcommand, the library path resolver, and
// the MCP server assembly that wires the library reader, the queue, gated sessions and content
// pipelines into tools, prompts and resources.
package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sort"
	"strings"
	"syscall"

	"github.com/mcpctl/mcpctl/tui"
)

// Env is what a subcommand may touch of the process: its streams and environment. Tests build
// one with pipes and a map, so commands run in-process exactly as from a shell.
type Env struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
}

// command is one subcommand.
type command struct {
	summary string
	run     func(ctx context.Context, env Env, args []string) error
}

// commands is the subcommand table; each lives in a file of its name.
func commands() map[string]command {
	return map[string]command{
		"serve":    {"run the stdio MCP server (what .mcp.json starts)", runServe},
		"library":  {"manage libraries: library init [--sample N] DIR", runLibrary},
		"queue":    {"process and inspect the import queue: queue process|status|clean", runQueue},
		"validate": {"check queue operation and response files against the schemas", runValidate},
		"console":  {"the laptop view: library, queue, live traffic, gate and pipelines", runConsole},
		"demo":     {"run a scripted session against a throw-away sample library", runDemo},
		"get":      {"list projects, prompts, servers, proxymodels or stages: get projects|prompts|servers|proxymodels|stages", runGet},
		"describe": {"show a project, server or proxymodel: describe project [NAME] | server|proxymodel NAME", runDescribe},
		"gate":     {"preview a gated session's briefing: gate preview [--project P] TAG...", runGate},
		"traffic":  {"show what servers did: traffic tail [--follow] [--session S] [--method M]", runTraffic},
		"version":  {"print the version", runVersion},
		"help":     {"show help for mcpctl or a subcommand", runHelp},

		"trust":      {"let a repository's .mcpctl/project.yaml start its servers: trust [DIR]", runTrust},
		"mcp-config": {"print the JSON entry for an MCP client's config: mcp-config [--project P] [--client C]", runMCPConfig},
		"pipeline":   {"run a proxymodel over a file: pipeline run --model NAME [--section ID] [--json] FILE|-", runPipeline},
		"create":     {"write a starter: create proxymodel NAME | create stage NAME [--lang sh|python|go]", runCreate},
		"cache":      {"show or empty the content pipeline's cache: cache stats|clear", runCache},
		"proxymodel": {"check a proxymodel: proxymodel validate NAME|FILE", runProxymodel},
	}
}

// Main runs mcpctl with args (without the program name) and returns the exit code: 0 success,
// 1 failure, 2 bad invocation.
func Main(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) int {
	env := Env{Stdin: stdin, Stdout: stdout, Stderr: stderr, Getenv: getenv}
	if len(args) == 0 {
		fmt.Fprint(stderr, usage())
		return 2
	}
	name := args[0]
	switch name {
	case "-h", "--help":
		name = "help"
	case "--version", "-v":
		name = "version" // what most tools take; the command is the one listed
	}
	c, ok := commands()[name]
	if !ok {
		return report(stderr, &usageError{
			msg:  fmt.Sprintf("unknown command %q", args[0]),
			hint: "run 'mcpctl help' to see the commands",
		})
	}
	return report(stderr, runCommand(ctx, env, name, c, args[1:]))
}

// runCommand runs c. Asked for help (-h, --help) where it wants a subject first (get, describe,
// cache …), a command answers with the usage error it gives without one; that becomes its help,
// on stdout, with exit 0.
func runCommand(ctx context.Context, env Env, name string, c command, args []string) error {
	err := c.run(ctx, env, args)
	var ue *usageError
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") && errors.As(err, &ue) {
		what, _, _ := strings.Cut(c.summary, ":") // the summary's synopsis is the usage line's
		// The usage line names the subcommands: "mcpctl get projects | prompts …".
		sub := "SUBCOMMAND"
		if f := strings.Fields(ue.hint); len(f) > 2 && f[0] == "mcpctl" && f[1] == name {
			sub = f[2]
		}
		fmt.Fprintf(env.Stdout, "Usage: %s\n\n%s.\nEach subcommand has its own flags: 'mcpctl %s %s -h'.\n", ue.hint, capitalize(what), name, sub)
		return nil
	}
	return err
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

func report(stderr io.Writer, err error) int {
	if err == nil {
		return 0
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(stderr, "mcpctl: %s\n", tui.Printable(ue.msg))
		if ue.hint != "" {
			fmt.Fprintf(stderr, "hint: %s\n", tui.Printable(ue.hint))
		}
		return 2
	}
	var ee exitError
	if errors.As(err, &ee) {
		return int(ee)
	}
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) && (pe.Path == os.Stdout.Name() || pe.Path == os.Stderr.Name()) && errors.Is(pe.Err, syscall.EPIPE) {
		// Whoever read the output has gone (mcpctl get prompts | head): nobody to tell, and a
		// shell expects the status of a process that SIGPIPE ended, which serve's handler for
		// it (SignalContext) turned into this error. A broken pipe elsewhere (a socket to an
		// LLM) is an error like any other.
		return 128 + int(syscall.SIGPIPE)
	}
	// An error may quote what a project file, a library or a server said: show its control
	// characters rather than send them to the terminal.
	fmt.Fprintf(stderr, "mcpctl: %s\n", tui.Printable(err.Error()))
	// An error the user can fix says how (gate.Error for a project's missing folder, say).
	// Not promptlib's hints: they are written for the model ("call list_folders").
	var h interface{ UserHint() string }
	if errors.As(err, &h) && h.UserHint() != "" {
		fmt.Fprintf(stderr, "hint: %s\n", tui.Printable(h.UserHint()))
	} else if hint := libraryHint(err); hint != "" {
		fmt.Fprintf(stderr, "hint: %s\n", hint)
	}
	return 1
}

// hintError is a failure (exit 1) the user can fix, and how: the command line prints the hint
// on a line of its own, the console beside the error, and serve's session, which runs without
// the library, after it (unservedLibrary). It matches what it wraps, if anything.
type hintError struct {
	msg, hint string
	err       error
}

func (e *hintError) Error() string    { return e.msg }
func (e *hintError) UserHint() string { return e.hint }
func (e *hintError) Unwrap() error    { return e.err }

// usageError is a bad invocation: exit 2 with a hint.
type usageError struct{ msg, hint string }

func (e *usageError) Error() string { return e.msg }

// exitError ends a command with a code after it has already said why.
type exitError int

func (e exitError) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func usage() string {
	var b strings.Builder
	b.WriteString("mcpctl — a local MCP agent for your prompt library\n\nUsage: mcpctl <command> [flags]\n\nCommands:\n")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(&b, "  %-10s %s\n", n, cmds[n].summary)
	}
	b.WriteString("\nRun 'mcpctl help <command>' for a command's flags, 'mcpctl help <command> <subcommand>' for a subcommand's.\n")
	return b.String()
}

func runHelp(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stdout, usage())
		return nil
	}
	c, ok := commands()[args[0]]
	if !ok || args[0] == "help" {
		if !ok {
			return &usageError{msg: fmt.Sprintf("unknown command %q", args[0]), hint: "run 'mcpctl help' to see the commands"}
		}
		fmt.Fprint(env.Stdout, usage())
		return nil
	}
	// 'help queue status' is 'queue status -h': a subcommand's own usage with its flags.
	return runCommand(ctx, env, args[0], c, append(args[1:len(args):len(args)], "-h"))
}
