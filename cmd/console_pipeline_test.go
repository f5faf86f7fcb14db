package cmd

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/tui"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// projectRedactScript hides the records' e-mail domains behind the project's name, which it reads
// from its context: a stage whose output depends on the project it runs for.
const projectRedactScript = `#!/bin/sh
project=$(printf '%s' "$MCPCTL_STAGE_CONTEXT" | sed -n 's/.*"project":"\([^"]*\)".*/\1/p')
sed -e "s/@example[.]com/@$project.invalid/g"
`

// The console's Pipeline screen runs a traced result's stages for the project serve ran them
// for, so a stage that depends on the project gives serve's result: it ran them for none, and
// the page it showed was not the page the client got.
func TestConsolePipelineRunsStagesForTheProject(t *testing.T) {
	lib := projectLibrary(t)
	env := testHome(t)
	state := filepath.Join(t.TempDir(), "state")
	env = append(env, "XDG_STATE_HOME="+state)
	writeModelAndStage(t, env, "redact", projectRedactScript, "safe", "appliesTo: [toolResult]\nminBytes: 0\nstages: [{type: redact}]\n")
	writeProject(t, env, "web", fmt.Sprintf("folder: Web App\ngated: false\nproxyModel: safe\nservers:\n  db:\n    command: %q\n    env: {MCPCTL_BE_UPSTREAM: db}\n", os.Args[0]))
	s := serve(t, env, "--library", lib.Dir, "--project", "web", "--trace-content")
	sent := resultText(callWhenUp(t, s, "db__big"))
	if !strings.Contains(sent, "@web.invalid") || strings.Contains(sent, "@example.com") {
		t.Fatalf("serve's stage did not redact for project web:\n%.300s", sent)
	}
	var ev *traffic.Event
	for _, e := range endedSessionEvents(t, s, state) {
		if e.Kind == traffic.KindResponse && e.Name == "db__big" && e.Pipeline != nil {
			ev = &e
		}
	}
	if ev == nil || ev.Project != "web" {
		t.Fatalf("db__big's traced response: %+v; want one of project web, with its pipeline part", ev)
	}

	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: filepath.Join(envValue(env, "XDG_CONFIG_HOME"), "mcpctl"), NoLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	p := ev.Pipeline
	again, err := consolePipeline{e}.Transform(context.Background(), p.Model, tui.Input{Text: p.Input, Type: p.Type, Source: p.Source, Project: ev.Project})
	if err != nil || again.Text != sent {
		t.Errorf("the console's run of the trace (err %v):\n%.300s\nwant the page serve sent:\n%.300s", err, again.Text, sent)
	}
}

// 'pipeline run --project' tells custom stages the project, as serve does: serve's advice for a
// stage that withholds content is to debug it with pipeline run, which told it none.
func TestPipelineRunTellsStagesTheProject(t *testing.T) {
	env := testHome(t)
	writeModelAndStage(t, env, "redact", projectRedactScript, "safe", "appliesTo: [toolResult]\nminBytes: 0\nstages: [{type: redact}]\n")
	writeProject(t, env, "web", "folder: Web App\n")
	in := filepath.Join(t.TempDir(), "result.txt")
	if err := os.WriteFile(in, []byte("write to ann@example.com\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--project", "web"}, "write to ann@web.invalid\n"},
		{nil, "write to ann@.invalid\n"}, // no project: the stage is told none
	} {
		var out, errOut strings.Builder
		args := append([]string{"pipeline", "run", "--model", "safe"}, append(tc.args, in)...)
		if code := Main(context.Background(), args, nil, &out, &errOut, envGetter(env)); code != 0 || !strings.HasPrefix(out.String(), tc.want) {
			t.Errorf("mcpctl %v: exit %d, %q; want %q\n%s", args, code, out.String(), tc.want, errOut.String())
		}
	}
}
