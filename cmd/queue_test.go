package cmd

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
	"github.com/mcpctl/mcpctl/queue"
)

// `mcpctl queue process` applies what a writer queues, logs each operation as JSON on stderr,
// and stops cleanly when its context ends.
func TestQueueProcess(t *testing.T) {
	dir := standaloneLib(t)
	ctx, cancel := context.WithCancel(context.Background())
	stderr := &syncBuffer{}
	done := make(chan int)
	go func() {
		done <- Main(ctx, []string{"queue", "process", "--library", dir}, strings.NewReader(""), &syncBuffer{}, stderr,
			func(string) string { return "" })
	}()
	w := queue.NewWriter(filepath.Join(dir, queue.QueueName), nil)
	w.AttemptTimeout = 20 * time.Second
	res, err := w.Submit(context.Background(), promptlib.OpCreatePrompt, promptlib.CreatePromptData{Title: "processed", Content: "x"})
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	found := false
	for _, l := range stderr.logLines(t, "queue: operation") {
		found = found || l["operationId"] == res.OperationID && l["status"] == "success"
	}
	if !found {
		t.Errorf("no log line for operation %s:\n%s", res.OperationID, stderr)
	}
	var n int
	openStore(t, dir).QueryRow(`SELECT COUNT(*) FROM prompts WHERE title = 'processed'`).Scan(&n)
	if n != 1 {
		t.Errorf("applied %d times, want once", n)
	}
}

func TestQueueProcessRefuses(t *testing.T) {
	prompteka := librarytest.New(t, 1)
	// Away from macOS there is no app to quit.
	quit := runtime.GOOS == "darwin"
	if code, _, errOut := run(t, nil, "queue", "process", "--library", prompteka.Dir); code != 2 || !strings.Contains(errOut, "Prompteka library") ||
		!strings.Contains(errOut, "pass --force") || strings.Contains(errOut, "quit the app") != quit {
		t.Errorf("on a Prompteka library: exit %d, stderr %q; want 2 saying the app processes it, and to pass --force (after quitting the app: %v)", code, errOut, quit)
	}
	dir := standaloneLib(t)
	lock, err := queue.TryLock(filepath.Join(dir, queue.QueueName))
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Release()
	if code, _, errOut := run(t, nil, "queue", "process", "--library", dir); code != 1 || !strings.Contains(errOut, "already processing") {
		t.Errorf("with another processor: exit %d, stderr %q; want 1 saying one is running", code, errOut)
	}
}

func TestQueueStatusAndClean(t *testing.T) {
	dir := standaloneLib(t)
	q := filepath.Join(dir, queue.QueueName)
	old := time.Now().Add(-48 * time.Hour)
	write := func(rel, body string, at time.Time) {
		p := filepath.Join(q, rel)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		os.Chtimes(p, at, at)
	}
	write("aaaaaaaa-0000-4000-8000-000000000001.json", "{}", old)
	write("aaaaaaaa-0000-4000-8000-000000000002.json", "{}", time.Now())
	write("failed/bbbbbbbb-0000-4000-8000-000000000001.json", "{}", time.Now())
	write("failed/bbbbbbbb-0000-4000-8000-000000000001.error", "FOLDER_NOT_EMPTY: folder 'x' holds 2 prompts\n", time.Now())
	write("processed/cccccccc-0000-4000-8000-000000000001.json", "{}", time.Now().Add(-8*24*time.Hour))
	write("processed/cccccccc-0000-4000-8000-000000000002.json", "{}", time.Now())
	write("processed/cccccccc-0000-4000-8000-000000000003.json", "{}", time.Now().Add(30*24*time.Hour)) // a wrong clock
	write(".response-dddddddd-0000-4000-8000-000000000001.json", "{}", old)

	code, out, errOut := run(t, nil, "queue", "status", "--library", dir)
	if code != 0 {
		t.Fatalf("status: exit %d: %s", code, errOut)
	}
	for _, want := range []string{"pending:    2 (oldest 48h0m", "processing: 0", "processed:  3", "failed:     1", "processor:  mcpctl, not running",
		"bbbbbbbb-0000-4000-8000-000000000001  FOLDER_NOT_EMPTY: folder 'x' holds 2 prompts"} {
		if !strings.Contains(out, want) {
			t.Errorf("status output lacks %q:\n%s", want, out)
		}
	}

	code, out, errOut = run(t, nil, "queue", "clean", "--library", dir)
	if code != 0 || !strings.Contains(out, "removed 1 expired responses") || !strings.Contains(out, "1 processed operations") ||
		!strings.Contains(out, "kept 1 files dated in the future") || strings.Contains(errOut, "startup cleanup") {
		t.Errorf("clean: exit %d, output %q %q; want the report on stdout and no log of it on stderr", code, out, errOut)
	}
	code, out, _ = run(t, nil, "queue", "status", "--library", dir)
	if code != 0 || !strings.Contains(out, "pending:    2") || !strings.Contains(out, "processed:  2") {
		t.Errorf("after clean, pending operations must stay and two processed remain (one recent, one future-dated):\n%s", out)
	}
}

func TestQueueUsage(t *testing.T) {
	for _, args := range [][]string{{"queue"}, {"queue", "explode"}, {"queue", "status", "extra"}, {"queue", "process", "--nope"}} {
		if code, _, _ := run(t, nil, args...); code != 2 {
			t.Errorf("mcpctl %v: exit %d, want 2", args, code)
		}
	}
	// A count of failures out of range is a bad invocation with a hint, never a panic.
	dir := standaloneLib(t)
	for _, n := range []string{"-3", "-1", "99999999999999999999"} {
		code, _, stderr := run(t, nil, "queue", "status", "--library", dir, "--failures", n)
		if code != 2 || !strings.Contains(stderr, "failures") || !strings.Contains(stderr, "hint:") {
			t.Errorf("queue status --failures %s: exit %d, stderr %q; want 2 naming the flag, with a hint", n, code, stderr)
		}
	}
	if code, _, stderr := run(t, nil, "queue", "status", "--library", dir, "--failures", "0"); code != 0 {
		t.Errorf("queue status --failures 0: exit %d, stderr %q; want 0", code, stderr)
	}
}
