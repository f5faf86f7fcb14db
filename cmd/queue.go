package cmd

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"log/slog"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/mcpctl/mcpctl/queue"
)

const queueUsage = "Usage: mcpctl queue <process|status|clean> [flags]\n\n" +
	"  process   apply the library's queued operations as they arrive (what the Prompteka app does);\n" +
	"            runs until interrupted, finishing the operation in hand\n" +
	"  status    count pending, processing, processed and failed operations; show recent failures\n" +
	"  clean     remove expired responses, stale temp files and processed operations older than 7 days\n"

func runQueue(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 {
		return &usageError{msg: "queue: want 'process', 'status' or 'clean'", hint: "run 'mcpctl queue -h' for what each does"}
	}
	if args[0] == "-h" || args[0] == "--help" {
		fmt.Fprint(env.Stdout, queueUsage)
		groupHelp(ctx, env, runQueueProcess, runQueueStatus, runQueueClean)
		return nil
	}
	switch args[0] {
	case "process":
		return runQueueProcess(ctx, env, args[1:])
	case "status":
		return runQueueStatus(ctx, env, args[1:])
	case "clean":
		return runQueueClean(ctx, env, args[1:])
	default:
		return &usageError{msg: fmt.Sprintf("queue: unknown subcommand %q", args[0]), hint: "run 'mcpctl queue -h'"}
	}
}

func runQueueProcess(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("queue process", "mcpctl queue process [--library DIR] [--force]",
		"Processes the library's import queue: claims each operation, applies it exactly once, writes the response\n"+
			"and files the operation under processed/ or failed/. Logs one JSON line per operation to stderr.\n"+
			"Stops on SIGINT or SIGTERM after finishing the operation in hand. Only one processor runs per library.")
	lf := addLibraryFlags(fs)
	force := fs.Bool("force", false, "process a library that has no mcpctl marker (normally the Prompteka app's job)")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	lib, err := lf.resolve(ctx, env, false)
	if err != nil {
		return err
	}
	if !lib.Standalone && !*force {
		msg, hint := "the app processes its queue", "quit the app and pass --force to process it with mcpctl instead"
		if runtime.GOOS != "darwin" { // the app runs only on macOS: nothing here would
			msg, hint = "the Prompteka app processes its queue, and it runs only on macOS", "pass --force to process it with mcpctl here"
		}
		return &usageError{msg: fmt.Sprintf("queue process: %s is a Prompteka library; %s", lib.Dir, msg), hint: hint}
	}
	lock, err := queue.TryLock(lib.Queue)
	if errors.Is(err, queue.ErrLocked) {
		return fmt.Errorf("another mcpctl (a server or 'queue process') is already processing %s", lib.Queue)
	}
	if err != nil {
		return err
	}
	defer lock.Release()
	db, err := queue.OpenStore(lib.DB)
	if err != nil {
		return err
	}
	defer db.Close()
	log := newLogger(env)
	log.Info("queue: processing", "library", lib.Dir, "queue", lib.Queue)
	if err := queue.NewProcessor(lib.Queue, db, log).Run(ctx); err != nil {
		return err
	}
	log.Info("queue: stopped")
	return nil
}

func runQueueStatus(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("queue status", "mcpctl queue status [--library DIR] [--failures N]",
		"Prints how many operations are pending, processing, processed and failed, the age of the oldest\n"+
			"pending one, and the most recent failures with their reasons.")
	lf := addLibraryFlags(fs)
	n := fs.Int("failures", 5, "show the last `N` failures (0: none)")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	if *n < 0 {
		return fs.usageError("--failures %d: give how many of the newest failures to show, 0 or more", *n)
	}
	lib, err := lf.resolve(ctx, env, false)
	if err != nil {
		return err
	}
	s, err := queue.Inspect(lib.Queue, *n)
	missing := errors.Is(err, iofs.ErrNotExist)
	if err != nil && !missing {
		return err
	}
	out := env.Stdout
	fmt.Fprintf(out, "queue:      %s\n", lib.Queue)
	if missing { // a Prompteka library's queue appears with its first write: nothing was ever queued
		fmt.Fprintf(out, "            (does not exist yet: nothing has been queued; the first write creates it.\n"+
			"            If the queue lives elsewhere, give it with --queue DIR)\n")
	}
	fmt.Fprintf(out, "pending:    %d", s.Pending)
	if !s.OldestPending.IsZero() {
		fmt.Fprintf(out, " (oldest %s ago)", time.Since(s.OldestPending).Round(time.Second))
	}
	fmt.Fprintf(out, "\nprocessing: %d\nprocessed:  %d\nfailed:     %d\n", s.Processing, s.Processed, s.Failed)
	fmt.Fprintf(out, "processor:  %s\n", queue.WhoAnswers(lib.Standalone, queue.LibraryArgs(lib.DB, lib.Queue), lib.Queue, runtime.GOOS))
	if len(s.Failures) > 0 {
		fmt.Fprintf(out, "last failures:\n")
		for _, f := range s.Failures {
			reason, _, _ := strings.Cut(f.Reason, "\n")
			fmt.Fprintf(out, "  %s  %s  %s\n", f.At.UTC().Format(time.RFC3339), cell(f.ID), cell(reason))
		}
	}
	return nil
}

func runQueueClean(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("queue clean", "mcpctl queue clean [--library DIR]",
		"Runs the cleanups by hand: responses older than 24 h, stale temp and withdrawn files, and processed\n"+
			"operations older than 7 days. Pending operations and failed/ are never touched.")
	lf := addLibraryFlags(fs)
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	lib, err := lf.resolve(ctx, env, false)
	if err != nil {
		return err
	}
	if _, err := os.Lstat(lib.Queue); errors.Is(err, iofs.ErrNotExist) {
		// As queue status says: a queue appears with its first write, so there is nothing to clean.
		fmt.Fprintf(env.Stdout, "nothing to clean: the import queue %s does not exist (nothing has been queued yet)\n", lib.Queue)
		return nil
	}
	// The report below says what was removed; the log adds only what went wrong, in text.
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rep, err := queue.NewWriter(lib.Queue, log).Cleanup()
	if err != nil {
		return err
	}
	processed, future, err := queue.CleanProcessed(lib.Queue, time.Now(), 7*24*time.Hour)
	if err != nil && !errors.Is(err, iofs.ErrNotExist) { // a queue nobody has processed yet
		return err
	}
	fmt.Fprintf(env.Stdout, "removed %d expired responses, %d temp files, %d withdrawn files, %d processed operations",
		rep.Responses, rep.Temps, rep.Withdrawn, processed)
	if future += rep.Future; future > 0 {
		fmt.Fprintf(env.Stdout, "; kept %d files dated in the future", future)
	}
	fmt.Fprintln(env.Stdout)
	return nil
}
