package pipeline

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestStageStartersPassContentThrough(t *testing.T) {
	te := newTestEngine(t)
	text := "some content ✓\nline two\n"
	for _, lang := range StageLangs {
		t.Run(lang, func(t *testing.T) {
			name := "start-" + lang
			binary := filepath.Join(te.config, "stages", name)
			src, err := StageStarter(name, lang, binary)
			if err != nil {
				t.Fatal(err)
			}
			if lang == "go" {
				if testing.Short() {
					t.Skip("builds a Go program")
				}
				dir := t.TempDir()
				writeFile(t, filepath.Join(dir, "main.go"), src, 0o600)
				writeFile(t, filepath.Join(dir, "go.mod"), "module "+name+"\n\ngo 1.22\n", 0o600)
				os.MkdirAll(filepath.Dir(binary), 0o700)
				cmd := exec.Command("go", "build", "-o", binary, ".")
				cmd.Dir = dir
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("building the Go starter: %v\n%s", err, out)
				}
			} else {
				te.writeStage(t, name, src)
			}
			te.writeModel(t, name, modelWith(name, "{timeoutMs: 20000}"))
			out, err := te.Transform(t.Context(), Request{Model: name, Project: "p", Content: Content{Text: text, Type: TypePrompt, Source: "my-prompt"}})
			if err != nil {
				t.Fatal(err)
			}
			if out.Text != text || out.Metrics.Stages[0].Error != "" {
				t.Fatalf("starter gave %q (error %q), want the content unchanged", out.Text, out.Metrics.Stages[0].Error)
			}
			// A JSON object is content like any other: the starters passed it through "failed".
			obj := `{"content": "x", "metadata": {}}`
			if o, err := te.Transform(t.Context(), Request{Model: name, Content: Content{Text: obj, Type: TypeToolResult}}); err != nil || o.Text != obj {
				t.Errorf("starter over a JSON object gave %q (%v), want it unchanged", o.Text, err)
			}
			if lang == "sh" {
				if !strings.Contains(te.logs.String(), `received context: {\"stage\":\"start-sh\"`) {
					t.Errorf("the shell starter did not show its context on stderr; logs:\n%s", te.logs.String())
				}
				return
			}
			ctx, _ := out.Metadata[name].(map[string]any)["context"].(map[string]any)
			if ctx["source"] != "my-prompt" || ctx["type"] != "prompt" || ctx["project"] != "p" {
				t.Errorf("metadata %v, want the context the stage received", out.Metadata)
			}
		})
	}
	if _, err := StageStarter("x", "cobol", ""); err == nil {
		t.Error("a starter in cobol")
	}
}

func TestModelStarterIsValid(t *testing.T) {
	te := newTestEngine(t)
	te.writeModel(t, "mine", ModelStarter("mine"))
	m, err := te.Model("mine")
	if err != nil {
		t.Fatal(err)
	}
	if m.MinBytes != 4096 || len(m.Stages) != 2 || m.Description == "" {
		t.Errorf("starter model = %+v", m)
	}
}
