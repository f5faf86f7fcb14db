package pipeline

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestHelperProcess is not a test: run by TestSeveralProcessesShareTheCache as a separate
// process, it transforms a fixture with an Engine on the directories in its environment and
// prints whether it was a cache hit, then the text.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("PIPELINE_HELPER_CACHE") == "" {
		t.Skip("run by TestSeveralProcessesShareTheCache")
	}
	e, err := NewEngine(Options{ConfigDir: os.Getenv("PIPELINE_HELPER_CONFIG"), CacheDir: os.Getenv("PIPELINE_HELPER_CACHE")})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	out, err := e.Transform(context.Background(), Request{Model: "subindex", Content: Content{Text: jsonArray(t, 800), Type: TypeToolResult}})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	fmt.Printf("hit=%v\n%s", out.Metrics.CacheHit, out.Text)
	os.Exit(0)
}

func TestSeveralProcessesShareTheCache(t *testing.T) {
	root := t.TempDir()
	env := append(os.Environ(), "PIPELINE_HELPER_CACHE="+filepath.Join(root, "cache"), "PIPELINE_HELPER_CONFIG="+filepath.Join(root, "config"))
	start := func() *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
		cmd.Env = env
		return cmd
	}
	const n = 4
	cmds := make([]*exec.Cmd, n)
	outs := make([]*strings.Builder, n)
	for i := range cmds {
		cmds[i], outs[i] = start(), &strings.Builder{}
		cmds[i].Stdout, cmds[i].Stderr = outs[i], outs[i]
		if err := cmds[i].Start(); err != nil {
			t.Fatal(err)
		}
	}
	var texts []string
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatalf("process %d: %v\n%s", i, err, outs[i])
		}
		_, text, _ := strings.Cut(outs[i].String(), "\n")
		texts = append(texts, text)
	}
	for i, text := range texts {
		if text != texts[0] || !strings.Contains(text, "JSON array of 800 elements") {
			t.Errorf("process %d made a different result:\n%s", i, text)
		}
	}
	after, err := start().Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(after), "hit=true\n") {
		t.Errorf("a process started after them: %q, want a cache hit", strings.SplitN(string(after), "\n", 2)[0])
	}
	entries, _ := os.ReadDir(filepath.Join(root, "cache", "pipeline"))
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", en.Name())
		}
	}
}
