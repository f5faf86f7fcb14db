package cmd

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pipelineEnv is an environment with its own config and cache directories.
func pipelineEnv(tb testing.TB) map[string]string {
	tb.Helper()
	root := tb.TempDir()
	return map[string]string{"XDG_CONFIG_HOME": filepath.Join(root, "config"), "XDG_CACHE_HOME": filepath.Join(root, "cache"), "HOME": root}
}

// jsonObjects is a JSON array of n objects, as a tool would return it.
func jsonObjects(n int) string {
	var b strings.Builder
	b.WriteString("[\n")
	for i := range n {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"id": %d, "name": "flow-%d", "enabled": %v, "tags": ["a", "b"], "owner": "zoë"}`, i, i, i%2 == 0)
	}
	b.WriteString("\n]\n")
	return b.String()
}

func writeTemp(tb testing.TB, name, text string) string {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

type runJSON struct {
	Content  string         `json:"content"`
	Ref      string         `json:"ref"`
	Sections []sectionJSON  `json:"sections"`
	Metadata map[string]any `json:"metadata"`
}

type sectionJSON struct {
	ID       string        `json:"id"`
	Title    string        `json:"title"`
	Bytes    int           `json:"bytes"`
	Children []sectionJSON `json:"children"`
}

func TestPipelineRunSubindexOfA120KBArray(t *testing.T) {
	vars := pipelineEnv(t)
	text := jsonObjects(1400)
	file := writeTemp(t, "flows.json", text)
	code, out, table := run(t, vars, "pipeline", "run", "--model", "subindex", file)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, table)
	}
	if len(out) > 2048 || len(out)*50 > len(text) {
		t.Errorf("top level is %d bytes for %d input bytes, want ≤ 2048 and ≥ 50× smaller", len(out), len(text))
	}
	code, js, stderr := run(t, vars, "pipeline", "run", file, "--model", "subindex", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, stderr)
	}
	var r runJSON
	if err := json.Unmarshal([]byte(js), &r); err != nil {
		t.Fatalf("--json printed %q: %v", js[:min(len(js), 200)], err)
	}
	if r.Content != out || r.Ref == "" || len(r.Sections) == 0 {
		t.Fatalf("--json: content same %v, ref %q, %d sections", r.Content == out, r.Ref, len(r.Sections))
	}
	offset := 0
	for _, s := range r.Sections {
		if !strings.Contains(out, s.ID+" "+s.Title) {
			t.Errorf("top level does not name section %s %q", s.ID, s.Title)
		}
		if !strings.Contains(table, s.Title) {
			t.Errorf("the section table on stderr does not name %q", s.Title)
		}
		if len(s.Children) == 0 {
			t.Errorf("range %s has no element children", s.ID)
		}
		code, got, serr := run(t, vars, "pipeline", "run", "--model", "subindex", "--section", s.ID, file)
		if code != 0 || got != text[offset:offset+s.Bytes] {
			t.Fatalf("--section %s: exit %d (%s), %d bytes; want its %d-byte slice exactly", s.ID, code, serr, len(got), s.Bytes)
		}
		offset += s.Bytes
	}
	// --section with --json prints the section as JSON: --json was ignored.
	code, js, stderr = run(t, vars, "pipeline", "run", "--model", "subindex", "--section", "1", "--json", file)
	var sec struct {
		Ref, Section, Content string
		Bytes                 int
	}
	if err := json.Unmarshal([]byte(js), &sec); code != 0 || err != nil || sec.Section != "1" || sec.Ref != r.Ref || sec.Content != text[:r.Sections[0].Bytes] || sec.Bytes != len(sec.Content) {
		t.Errorf("--section 1 --json: exit %d (%s), %.200q (%v)", code, stderr, js, err)
	}
	if offset != len(text) {
		t.Errorf("sections cover %d bytes, want %d", offset, len(text))
	}
}

func TestPipelineRunSectionsReadBackExactly(t *testing.T) {
	vars := pipelineEnv(t)
	text := "# Notes\n\nIntro — ✓.\n\n" + strings.Repeat("## Part\n\nSome words here. More follow.\n\n"+strings.Repeat("x ", 300)+"\n\n", 8)
	var js bytes.Buffer
	code := Main(context.Background(), []string{"pipeline", "run", "--model", "subindex", "--type", "prompt", "--json", "-"}, strings.NewReader(text), &js, &bytes.Buffer{}, func(k string) string { return vars[k] })
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var r runJSON
	if err := json.Unmarshal(js.Bytes(), &r); err != nil {
		t.Fatal(err)
	}
	file := writeTemp(t, "notes.md", text)
	var leaves strings.Builder
	var walk func([]sectionJSON)
	walk = func(ss []sectionJSON) {
		for _, s := range ss {
			if len(s.Children) > 0 {
				walk(s.Children)
				continue
			}
			_, got, _ := run(t, vars, "pipeline", "run", "--model", "subindex", "--type", "prompt", "--section", s.ID, file)
			if len(got) != s.Bytes {
				t.Errorf("--section %s: %d bytes, want %d", s.ID, len(got), s.Bytes)
			}
			leaves.WriteString(got)
		}
	}
	walk(r.Sections)
	if leaves.String() != text {
		t.Errorf("the leaves give %d bytes back, want the %d input bytes exactly", leaves.Len(), len(text))
	}
	code, _, stderr := run(t, vars, "pipeline", "run", "--model", "subindex", "--type", "prompt", "--section", "99", file)
	if code != 1 || !strings.Contains(stderr, "the top-level sections are 1 to ") {
		t.Errorf("unknown section: exit %d, %q; want exit 1 listing the sections", code, stderr)
	}
}

func TestPipelineRunCacheHitsAndStats(t *testing.T) {
	vars := pipelineEnv(t)
	file := writeTemp(t, "flows.json", jsonObjects(300))
	if _, _, stderr := run(t, vars, "pipeline", "run", "--model", "subindex", file); !strings.Contains(stderr, "cache miss") {
		t.Errorf("first run: %q, want a cache miss", stderr)
	}
	if _, _, stderr := run(t, vars, "pipeline", "run", "--model", "subindex", file); !strings.Contains(stderr, "cache hit") {
		t.Errorf("second run (a new process's engine): %q, want a cache hit", stderr)
	}
	code, out, _ := run(t, vars, "cache", "stats")
	if code != 0 || !strings.Contains(out, "Entries:") || strings.Contains(out, "Entries:   0") || !strings.Contains(out, "2 since the cache was cleared, 1 answered from the cache") {
		t.Errorf("cache stats: exit %d, %q; want entries, and the second run's hit counted", code, out)
	}
	code, out, _ = run(t, vars, "cache", "clear")
	if code != 0 || !strings.Contains(out, "removed") {
		t.Errorf("cache clear: exit %d, %q", code, out)
	}
	if _, out, _ = run(t, vars, "cache", "stats"); !strings.Contains(out, "Entries:   0") {
		t.Errorf("after clear: %q", out)
	}
	code, out, _ = run(t, vars, "pipeline", "run", "--model", "subindex", writeTemp(t, "small.txt", "tiny"))
	if code != 0 || out != "tiny" {
		t.Errorf("content under minBytes: exit %d, %q; want it printed unchanged", code, out)
	}
}

func TestProxymodelCommands(t *testing.T) {
	vars := pipelineEnv(t)
	code, out, stderr := run(t, vars, "create", "proxymodel", "mine")
	if code != 0 || !strings.Contains(out, filepath.Join("proxymodels", "mine.yaml")) {
		t.Fatalf("create proxymodel: exit %d, %q %q", code, out, stderr)
	}
	if code, _, stderr = run(t, vars, "create", "proxymodel", "mine"); code != 2 || !strings.Contains(stderr, "exists") {
		t.Errorf("create over an existing file: exit %d, %q", code, stderr)
	}
	if code, out, stderr = run(t, vars, "proxymodel", "validate", "mine"); code != 0 || !strings.Contains(out, "mine: valid") {
		t.Errorf("validate mine: exit %d, %q %q", code, out, stderr)
	}
	bad := writeTemp(t, "bad.yaml", "stages:\n  - type: paginate\n    config:\n      pageBytes: 1\n  - type: nosuch\n")
	code, _, stderr = run(t, vars, "proxymodel", "validate", bad)
	if code != 1 || !strings.Contains(stderr, "bad.yaml:4: stages.0.config.pageBytes") {
		t.Errorf("validate bad file: exit %d, %q; want the line and field", code, stderr)
	}
	code, _, stderr = run(t, vars, "proxymodel", "validate", writeTemp(t, "bad2.yaml", "stages:\n  - type: nosuch\n"))
	if code != 1 || !strings.Contains(stderr, "stages.0.type: no stage \"nosuch\"") || !strings.Contains(stderr, "mcpctl create stage nosuch") {
		t.Errorf("validate missing stage: exit %d, %q", code, stderr)
	}
	if code, _, stderr = run(t, vars, "proxymodel", "validate", "nosuch"); code != 1 || !strings.Contains(stderr, "the models are default, mine, subindex") {
		t.Errorf("validate unknown name: exit %d, %q", code, stderr)
	}

	code, out, stderr = run(t, vars, "create", "stage", "shout")
	if code != 0 || !strings.Contains(out+stderr, "shout") {
		t.Fatalf("create stage: exit %d, %s%s", code, out, stderr)
	}
	if code, out, stderr = run(t, vars, "create", "stage", "py1", "--lang", "python"); code != 0 || !strings.Contains(out+stderr, "py1") {
		t.Fatalf("create stage --lang python: exit %d, %s%s", code, out, stderr)
	}
	if code, _, _ = run(t, vars, "create", "stage", "paginate"); code != 2 {
		t.Errorf("create stage named like a built-in: exit %d, want 2", code)
	}
	code, out, _ = run(t, vars, "get", "stages")
	for _, want := range []string{"paginate", "summarize-tree", "shout", "py1"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("get stages: exit %d, %q lacks %s", code, out, want)
		}
	}
	code, out, _ = run(t, vars, "get", "proxymodels")
	for _, want := range []string{"default", "subindex", "mine", "section-split, summarize-tree"} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("get proxymodels: exit %d, %q lacks %s", code, out, want)
		}
	}
	code, out, _ = run(t, vars, "describe", "proxymodel", "default")
	if code != 0 || !strings.Contains(out, "built in") || !strings.Contains(out, "Min bytes:   32768") || !strings.Contains(out, "2. paginate") {
		t.Errorf("describe proxymodel default: exit %d, %q", code, out)
	}

	// The created stages run, in a proxymodel, and pass content through.
	cfg := filepath.Join(vars["XDG_CONFIG_HOME"], "mcpctl", "proxymodels", "starters.yaml")
	os.WriteFile(cfg, []byte("minBytes: 1\nstages:\n  - type: shout\n  - type: py1\n"), 0o600)
	code, out, stderr = run(t, vars, "pipeline", "run", "--model", "starters", "--json", writeTemp(t, "in.txt", "hello ✓"))
	var r runJSON
	json.Unmarshal([]byte(out), &r)
	if code != 0 || r.Content != "hello ✓" || r.Metadata["py1"] == nil || strings.Contains(stderr, "failed") {
		t.Errorf("starter stages: exit %d, %q, stderr %q; want the content passed through with py1's context", code, out, stderr)
	}
}

func TestPipelineUsageErrors(t *testing.T) {
	vars := pipelineEnv(t)
	for _, args := range [][]string{
		{"pipeline"},
		{"pipeline", "run", "file"},
		{"pipeline", "run", "--model", "subindex"},
		{"pipeline", "run", "--model", "subindex", "--type", "email", "f"},
		{"proxymodel"},
		{"create"},
		{"create", "stage", "x", "--lang", "cobol"},
		{"cache"},
	} {
		if code, _, stderr := run(t, vars, args...); code != 2 || !strings.Contains(stderr, "hint:") {
			t.Errorf("mcpctl %v: exit %d, %q; want 2 with a hint", args, code, stderr)
		}
	}
}

func TestCreateGoStageBuildsIt(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a Go program")
	}
	vars := pipelineEnv(t)
	code, out, stderr := run(t, vars, "create", "stage", "gostage", "--lang", "go")
	if code != 0 || !strings.Contains(out, "Built") {
		t.Fatalf("create stage --lang go: exit %d, %q %q", code, out, stderr)
	}
	models := filepath.Join(vars["XDG_CONFIG_HOME"], "mcpctl", "proxymodels")
	os.MkdirAll(models, 0o700)
	os.WriteFile(filepath.Join(models, "g.yaml"), []byte("minBytes: 1\nstages:\n  - type: gostage\n"), 0o600)
	code, out, stderr = run(t, vars, "pipeline", "run", "--model", "g", "--json", writeTemp(t, "in.txt", "go ✓"))
	var r runJSON
	json.Unmarshal([]byte(out), &r)
	if code != 0 || r.Content != "go ✓" || r.Metadata["gostage"] == nil {
		t.Errorf("the Go starter: exit %d, %q, %q; want the content through and its context in the metadata", code, out, stderr)
	}
}

// Content a model leaves alone is printed unchanged, and the reason is the model's own: here
// the size, under its minBytes.
func TestPipelineRunSaysWhyAModelLeavesContentAlone(t *testing.T) {
	vars := pipelineEnv(t)
	file := writeTemp(t, "small.json", jsonObjects(20))
	code, out, stderr := run(t, vars, "pipeline", "run", "--model", "default", file)
	if code != 0 || out != jsonObjects(20) || !strings.Contains(stderr, "under its minBytes (32768)") {
		t.Errorf("pipeline run: exit %d, stderr %q; want the content unchanged and that it is under the model's minBytes", code, stderr)
	}
}
