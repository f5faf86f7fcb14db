package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/tui"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// writeModelAndStage writes an executable custom stage and a proxymodel under env's config directory.
func writeModelAndStage(tb testing.TB, env []string, stage, script, model, yaml string) {
	tb.Helper()
	config := filepath.Join(envValue(env, "XDG_CONFIG_HOME"), "mcpctl")
	for _, dir := range []string{"proxymodels", "stages"} {
		if err := os.MkdirAll(filepath.Join(config, dir), 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	if stage != "" {
		if err := os.WriteFile(filepath.Join(config, "stages", stage), []byte(script), 0o700); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(config, "proxymodels", model+".yaml"), []byte(yaml), 0o600); err != nil {
		tb.Fatal(err)
	}
}

// redactScript hides the records' e-mail domains, as the README's redact stage hides keys.
const redactScript = "#!/bin/sh\nsed -e 's/@example[.]com/@REDACTED/g'\n"

// A result the model's stages leave over the bound is paged from what the stages made: it was
// paged from the upstream's text, so a redacting stage was undone for every result over 100 KB
// and the secrets reached the model and read_section.
func TestOverTheBoundPagesTheRedactedText(t *testing.T) {
	for _, stages := range []string{"[{type: redact}]", "[{type: redact}, {type: section-split}]"} {
		t.Run(stages, func(t *testing.T) {
			lib := projectLibrary(t)
			env := testHome(t)
			writeModelAndStage(t, env, "redact", redactScript, "safe", "appliesTo: [toolResult]\nminBytes: 0\nstages: "+stages+"\n")
			writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nproxyModel: safe\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
			s := serve(t, env, "--library", lib.Dir, "--project", "web")
			res := callWhenUp(t, s, "db__big")
			text := resultText(res)
			if strings.Contains(text, "@example.com") || !strings.Contains(text, "@REDACTED") || len(text) > 16<<10 {
				t.Errorf("the first page: %d bytes, %d addresses unredacted; want a page of the redacted text", len(text), strings.Count(text, "@example.com"))
			}
			_, joined := readSections(t, s, res)
			if want := strings.ReplaceAll(bigRecords(), "@example.com", "@REDACTED"); joined != want {
				t.Errorf("the sections joined: %d bytes, %d addresses unredacted; want the redacted text's %d bytes", len(joined), strings.Count(joined, "@example.com"), len(want))
			}
		})
	}
}

// A redact stage that fails withholds the result: the model gets an error naming the stage, its
// stderr and the fix, never the text the stage was there to clean. It passed the upstream's
// text through, logged only in serve's stderr.
func TestFailedRedactStageWithholds(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	writeModelAndStage(t, env, "redact", "#!/bin/sh\necho 'redact: no rules file' >&2\nexit 2\n", "safe", "minBytes: 0\nstages: [{type: redact}]\n")
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nproxyModel: safe\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	eventually(t, 20*time.Second, "db's tools are listed", func() bool { return slicesContains(toolNames(t, s), "db__big") })
	te := s.callError(t, "db__big", map[string]any{}, "CONTENT_WITHHELD")
	all := te.Message + te.Hint
	for _, want := range []string{"db/big", "stage redact", `"redact: no rules file"`, "mcpctl pipeline run --model safe --project web --verbose FILE", "onFailure: passthrough"} {
		if !strings.Contains(all, want) {
			t.Errorf("the error %q / %q does not say %q", te.Message, te.Hint, want)
		}
	}
	if strings.Contains(all, "@example.com") {
		t.Error("the error quotes the withheld content")
	}
	if _, err := readText(s, "test://db/guide"); err == nil || !strings.Contains(err.Error(), "withheld") {
		t.Errorf("a resource through the failed stage: %v, want it withheld", err)
	}
}

// A traced result the model's stages left over the bound, and the bound's pages then cut, keeps
// what entered the pipeline as its input, with the model in force: the console's Pipeline screen
// runs that model over that input again (e). The trace held the redacted text the pages were cut
// from, under the name "default", so e paged text that had never been the call's content.
func TestTraceOfAPagedResultKeepsWhatEnteredThePipeline(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	state := filepath.Join(t.TempDir(), "state")
	env = append(env, "XDG_STATE_HOME="+state)
	writeModelAndStage(t, env, "redact", redactScript, "safe", "appliesTo: [toolResult]\nminBytes: 0\nstages: [{type: redact}]\n")
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nproxyModel: safe\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web", "--trace-content")
	res := callWhenUp(t, s, "db__big")
	var p *traffic.Pipeline
	for _, e := range endedSessionEvents(t, s, state) {
		if e.Kind == traffic.KindResponse && e.Name == "db__big" && e.Status == traffic.StatusOK {
			p = e.Pipeline
		}
	}
	if p == nil {
		t.Fatal("db__big's response event has no pipeline part")
	}
	if p.Input != bigRecords() || p.Type != "toolResult" || p.Source != "db/big" {
		t.Errorf("the traced input is %d bytes (%d addresses redacted), a %q from %q; want the upstream's %d bytes as they came, a toolResult from db/big",
			len(p.Input), strings.Count(p.Input, "@REDACTED"), p.Type, p.Source, len(bigRecords()))
	}
	if p.Model != "safe" || strings.Join(p.Stages, ",") != "redact,paginate" || p.BytesBefore != len(bigRecords()) || p.BytesAfter != len(resultText(res)) {
		t.Errorf("the trace says model %q, stages %q, %d → %d bytes; want safe, its redact then the bound's paginate, %d → %d",
			p.Model, p.Stages, p.BytesBefore, p.BytesAfter, len(bigRecords()), len(resultText(res)))
	}

	// The console's Pipeline screen runs what the trace holds as serve did: the page sent.
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: filepath.Join(envValue(env, "XDG_CONFIG_HOME"), "mcpctl"), NoLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	again, err := consolePipeline{e}.Transform(context.Background(), p.Model, tui.Input{Text: p.Input, Type: p.Type, Source: p.Source})
	if err != nil || again.Text != resultText(res) || strings.Join(again.Stages, ",") != "redact,paginate" {
		t.Errorf("the console's run of the trace: %v, stages %q, %d bytes; want serve's page, %d bytes, from redact then paginate", err, again.Stages, len(again.Text), len(resultText(res)))
	}
}
