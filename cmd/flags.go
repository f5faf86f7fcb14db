package cmd

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// flagSet is a subcommand's flags with its usage text. Its errors become usage errors (exit 2)
// instead of exiting the process.
type flagSet struct {
	*flag.FlagSet
	synopsis, about string
}

// isSet reports whether the flag name was given on the command line (its default aside).
func (fs *flagSet) isSet(name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func newFlagSet(name, synopsis, about string) *flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	return &flagSet{FlagSet: fs, synopsis: synopsis, about: about}
}

// parse parses args; -h prints the usage to stdout and ends the command with exit 0. Flags may
// come after positional arguments too ('library init DIR --sample 5'), as users type them;
// after "--" everything is positional.
func (fs *flagSet) parse(env Env, args []string) error {
	var positional []string
	for rest := args; ; {
		err := fs.Parse(rest)
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(env.Stdout, fs.usage())
			return exitError(0)
		}
		if err != nil {
			return fs.usageError("%v", err)
		}
		left := fs.Args()
		if len(left) == 0 {
			break
		}
		if consumed := rest[:len(rest)-len(left)]; len(consumed) > 0 && consumed[len(consumed)-1] == "--" {
			positional = append(positional, left...)
			break
		}
		positional, rest = append(positional, left[0]), left[1:]
	}
	// The positional arguments become fs.Args(); "--" stops Parse before any of them.
	return fs.Parse(append([]string{"--"}, positional...))
}

// parseFlagsOnly is parse for commands that take no positional arguments.
func (fs *flagSet) parseFlagsOnly(env Env, args []string) error {
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if fs.NArg() != 0 {
		return fs.usageError("unexpected arguments %v", fs.Args())
	}
	return nil
}

// groupHelp follows a command group's help (queue, library) with each subcommand's own usage,
// flags included, as 'mcpctl queue status -h' prints it: 'mcpctl help queue' is where users
// are told to look for a command's flags.
func groupHelp(ctx context.Context, env Env, subs ...func(context.Context, Env, []string) error) {
	for _, run := range subs {
		fmt.Fprintln(env.Stdout)
		run(ctx, env, []string{"-h"}) //nolint:errcheck // -h prints the usage and ends with exit 0
	}
}

func (fs *flagSet) usageError(format string, args ...any) error {
	return &usageError{msg: fs.Name() + ": " + fmt.Sprintf(format, args...),
		hint: fmt.Sprintf("run 'mcpctl %s -h' for its usage", fs.Name())}
}

func (fs *flagSet) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n\n%s\n", fs.synopsis, fs.about)
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		b.WriteString("\nFlags:\n")
		fs.SetOutput(&b)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
	return b.String()
}
