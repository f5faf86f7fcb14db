package pipeline

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The custom stages these tests run. Each is a real executable, run as a real process.
const (
	shUpper = "#!/bin/sh\n# upper-cases its input\ntr 'a-z' 'A-Z'\n"
	// pyHalves answers JSON with two sections, the halves of its input, and echoes the context.
	pyHalves = `#!/usr/bin/env python3
import json, os, sys
text = sys.stdin.read()
ctx = json.loads(os.environ["MCPCTL_STAGE_CONTEXT"])
data = text.encode("utf-8")
half = len(data) // 2
while half > 0 and (data[half] & 0xC0) == 0x80:
    half -= 1
print(json.dumps({
    "mcpctl": "stage/1",
    "content": "halves of " + ctx["source"] + " for " + ctx["project"] + " with " + str(ctx["config"].get("label")),
    "sections": [{"title": "first", "offset": 0, "bytes": half},
                 {"title": "second", "offset": half, "bytes": len(data) - half}],
    "metadata": {"type": ctx["type"]},
}))
`
	shFails = "#!/bin/sh\necho oops >&2\nexit 1\n"
	// shGarbage marks its answer as the JSON protocol but gives no string content.
	shGarbage = "#!/bin/sh\ncat >/dev/null\necho '{\"mcpctl\": \"stage/1\", \"content\": 1}'\n"
	shSilent  = "#!/bin/sh\ncat >/dev/null\n"
)

func modelWith(stage string, config string) string {
	y := "minBytes: 1\nstages:\n  - type: " + stage + "\n"
	if config != "" {
		y += "    config: " + config + "\n"
	}
	return y
}

func TestCustomStagesTransform(t *testing.T) {
	te := newTestEngine(t)
	te.writeStage(t, "upper", shUpper)
	te.writeStage(t, "halves", pyHalves)
	te.writeModel(t, "shout", modelWith("upper", ""))
	te.writeModel(t, "halve", modelWith("halves", "{label: x, timeoutMs: 10000}"))

	out := transform(t, te.Engine, "shout", "hello, wörld")
	if out.Text != "HELLO, WöRLD" || out.Metrics.Stages[0].Error != "" {
		t.Errorf("shell stage gave %q (error %q), want HELLO, WöRLD", out.Text, out.Metrics.Stages[0].Error)
	}

	text := markdownDoc(t)
	out, err := te.Transform(t.Context(), Request{Model: "halve", Project: "proj", Content: Content{Text: text, Type: TypeResource, Source: "prompteka://prompt/1"}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.Text, "halves of prompteka://prompt/1 for proj with x") {
		t.Errorf("python stage gave %q, want its content naming the context it received", clip(out.Text, 80))
	}
	if out.Metadata["type"] != "resource" {
		t.Errorf("metadata %v, want the stage's type=resource", out.Metadata)
	}
	if len(out.Sections) != 2 || out.Sections[0].Title != "first" {
		t.Fatalf("sections %v, want the stage's two", Infos(out.Sections))
	}
	checkDrillDown(t, te.Engine, out, text)
}

// A custom stage that fails withholds the content: it may exist to remove something (a
// redaction), so the content without its work is not sent; the error names the stage, why and
// the fix. With onFailure: passthrough in its config its input passes through, as a built-in
// stage's does.
func TestFailingCustomStagesWithhold(t *testing.T) {
	te := newTestEngine(t)
	pidFile := filepath.Join(t.TempDir(), "child.pid")
	te.writeStage(t, "fails", shFails)
	te.writeStage(t, "garbage", shGarbage)
	te.writeStage(t, "silent", shSilent)
	// huge prints past the output limit; its generous timeout keeps a slow machine from turning
	// the failure into a timeout.
	te.writeStage(t, "huge", "#!/bin/sh\ncat >/dev/null\nyes aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa | head -c 40000000\n")
	// hangs starts a grandchild that would outlive it, then hangs itself.
	te.writeStage(t, "hangs", "#!/bin/sh\nsleep 300 &\necho $! > "+pidFile+"\nsleep 300\n")
	te.writeStage(t, "notexec", "#!/bin/sh\ncat\n")
	os.Chmod(filepath.Join(te.config, "stages", "notexec"), 0o600)
	for _, tc := range []struct {
		stage, config, want string
	}{
		{"fails", "", `exit status 1; its stderr ends: "oops"`},
		{"garbage", "", "printed a JSON answer"},
		{"huge", "timeoutMs: 600000", "printed more than"},
		{"silent", "", "printed nothing"},
		{"hangs", "timeoutMs: 300", "timed out after 300ms"},
		{"missing", "", "no stage \"missing\""},
		{"notexec", "", "chmod +x"},
	} {
		for _, onFailure := range []string{"", "passthrough"} {
			t.Run(tc.stage+"/"+onFailure, func(t *testing.T) {
				var cfg []string
				if tc.config != "" {
					cfg = append(cfg, tc.config)
				}
				if onFailure != "" {
					cfg = append(cfg, "onFailure: "+onFailure)
				}
				model := tc.stage + "-" + onFailure + "x"
				te.writeModel(t, model, modelWith(tc.stage, "{"+strings.Join(cfg, ", ")+"}"))
				text := "content that must not pass without the stage ✓"
				out, err := te.Transform(t.Context(), Request{Model: model, Content: Content{Text: text, Type: TypeToolResult}})
				if onFailure == "" {
					var we *WithheldError
					if !errors.As(err, &we) || !errors.Is(err, ErrWithheld) || !errors.Is(err, ErrStageFailed) || we.Stage != tc.stage {
						t.Fatalf("got %v, want a *WithheldError naming stage %s", err, tc.stage)
					}
					if strings.Contains(out.Text, "must not pass") || strings.Contains(out.Body, "must not pass") || out.Ref != "" {
						t.Errorf("withheld, yet the text is %q", out.Text)
					}
					for _, want := range []string{tc.want, "stage " + tc.stage, "mcpctl pipeline run --model " + model, "onFailure: passthrough"} {
						if !strings.Contains(out.Text, want) {
							t.Errorf("the notice %q does not say %q", out.Text, want)
						}
					}
					if !strings.Contains(te.logs.String(), "the content is withheld") {
						t.Error("the failure was not logged")
					}
				} else {
					if err != nil {
						t.Fatal(err)
					}
					if out.Text != text {
						t.Errorf("text %q (%d bytes), want the input passed through", clip(out.Text, 60), len(out.Text))
					}
					if got := out.Metrics.Stages[0].Error; !strings.Contains(got, tc.want) {
						t.Errorf("stage error %q, want it to say %q", got, tc.want)
					}
					if !strings.Contains(te.logs.String(), "its input passes through") {
						t.Error("the failure was not logged")
					}
				}
				if tc.stage == "hangs" {
					waitGone(t, pidFile)
					os.Remove(pidFile)
				}
			})
		}
	}
	if _, err := te.Model("notexec-x"); err == nil || !strings.Contains(err.Error(), "chmod +x") {
		t.Errorf("a non-executable stage: %v, want a hint to chmod +x", err)
	}
}

// A stage the request's end stops (the client cancelled the call) did not fail: nothing is
// logged as a failure with a fix to make, and a stage that withholds still withholds.
func TestStageStoppedByTheRequestIsNoFailure(t *testing.T) {
	for _, onFailure := range []string{"", "passthrough"} {
		t.Run("onFailure "+onFailure, func(t *testing.T) {
			te := newTestEngine(t)
			started := filepath.Join(t.TempDir(), "started")
			if err := syscall.Mkfifo(started, 0o600); err != nil {
				t.Fatal(err)
			}
			te.writeStage(t, "waits", "#!/bin/sh\ncat >/dev/null\necho started > "+started+"\nexec sleep 300\n")
			te.writeModel(t, "m", modelWith("waits", "{onFailure: "+strconv.Quote(onFailure)+"}"))
			ctx, cancel := context.WithCancel(t.Context())
			go func() {
				defer cancel()
				if f, err := os.Open(started); err == nil { // until the stage writes
					io.ReadAll(f)
					f.Close()
				}
			}()
			text := "content that must not pass without the stage ✓"
			out, err := te.Transform(ctx, Request{Model: "m", Content: Content{Text: text, Type: TypeToolResult}})
			// A stage that ended before it wrote leaves the reader blocked in open: release it.
			if w, err := os.OpenFile(started, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			if onFailure == "" && (!errors.Is(err, ErrWithheld) || strings.Contains(out.Text, "must not pass")) {
				t.Errorf("got %v and %q, want the content withheld", err, clip(out.Text, 80))
			}
			logs := te.logs.String()
			if strings.Contains(logs, `"level":"WARN"`) || !strings.Contains(logs, "the request ended") {
				t.Errorf("the log says the stage failed, or not that the request ended it:\n%s", logs)
			}
		})
	}
}

// A stage's output is its JSON answer only when marked "mcpctl": "stage/1"; anything else is
// plain text, whatever it looks like. Output starting with '{' was read as the answer: a sed
// stage over a JSON object "failed" and the unredacted object went on, and an object shaped
// like {"content": …, "metadata": {}} was replaced by its inner string.
func TestStageOutputIsTextUnlessMarked(t *testing.T) {
	te := newTestEngine(t)
	te.writeStage(t, "redact", "#!/bin/sh\nsed -E 's/sk-[A-Za-z0-9]{20,}/sk-REDACTED/g'\n")
	te.writeStage(t, "same", "#!/bin/sh\ncat\n")
	te.writeModel(t, "safe", modelWith("redact", ""))
	te.writeModel(t, "same", modelWith("same", ""))
	key := "sk-ABCDEFGHIJKLMNOPQRSTUVWX0001"
	for _, tc := range []struct{ model, in, want string }{
		{"safe", `{"users": [{"user": "u1", "apiKey": "` + key + `"}]}`, `{"users": [{"user": "u1", "apiKey": "sk-REDACTED"}]}`},
		{"safe", `{"content": "` + key + ` hello", "metadata": {}}`, `{"content": "sk-REDACTED hello", "metadata": {}}`},
		{"same", `{"content": "x", "sections": [], "metadata": {}}`, `{"content": "x", "sections": [], "metadata": {}}`},
		{"same", `{"mcpctl": {"version": 2}, "content": "x"}`, `{"mcpctl": {"version": 2}, "content": "x"}`},
		{"same", `{"mcpctl": "stage/1", "content": "the answer"}`, "the answer"},
	} {
		out, err := te.Transform(t.Context(), Request{Model: tc.model, Content: Content{Text: tc.in, Type: TypeToolResult}})
		if err != nil || out.Text != tc.want {
			t.Errorf("%s over %s: %q (%v), want %q", tc.model, tc.in, out.Text, err, tc.want)
		}
	}
	// A marked answer is held to the protocol: an unknown member is a failure, not text.
	out, err := te.Transform(t.Context(), Request{Model: "same", Content: Content{Text: `{"mcpctl": "stage/1", "content": "x", "metdata": {}}`, Type: TypeToolResult}})
	if !errors.Is(err, ErrWithheld) || !strings.Contains(out.Text, `unknown field "metdata"`) {
		t.Errorf("a marked answer with a misspelled member: %q (%v), want it withheld naming the member", out.Text, err)
	}
}

// waitGone waits until the process whose pid the file holds has exited: the stage's whole
// process group is killed on timeout, so no orphan survives.
func waitGone(tb testing.TB, pidFile string) {
	tb.Helper()
	data, err := os.ReadFile(pidFile)
	if err != nil {
		tb.Fatalf("the stage did not record its child: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		tb.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if stat, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(stat), ") Z ") {
			return // a zombie: dead, waiting for init to reap it
		}
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			tb.Fatalf("the stage's child %d outlived it", pid)
		}
		time.Sleep(20 * time.Millisecond) // polling a condition with a deadline, not synchronising
	}
}

func TestCacheHitsAcrossRestartsAndMissesOnChange(t *testing.T) {
	te := newTestEngine(t)
	text := jsonArray(t, 500)
	first := transform(t, te.Engine, "subindex", text)
	if first.Metrics.CacheHit {
		t.Fatal("the first request was a cache hit")
	}
	second := transform(t, te.Engine, "subindex", text)
	if !second.Metrics.CacheHit || second.Text != first.Text || second.Ref != first.Ref {
		t.Errorf("second request: hit %v, same text %v, same ref %v; want a hit with the same result", second.Metrics.CacheHit, second.Text == first.Text, second.Ref == first.Ref)
	}
	restarted := te.reopen(t)
	third := transform(t, restarted, "subindex", text)
	if !third.Metrics.CacheHit || third.Text != first.Text {
		t.Errorf("after a restart: hit %v, same text %v; want a hit", third.Metrics.CacheHit, third.Text == first.Text)
	}
	checkDrillDown(t, te.reopen(t), first, text)

	// A stage's config is part of the key.
	te.writeModel(t, "subindex", "minBytes: 10\nstages:\n  - type: section-split\n    config: {maxSections: 5}\n  - type: summarize-tree\n")
	changed := transform(t, te.Engine, "subindex", text)
	if changed.Metrics.CacheHit || changed.Text == first.Text {
		t.Errorf("after a config change: hit %v, same text %v; want a miss with a new result", changed.Metrics.CacheHit, changed.Text == first.Text)
	}

	// A custom stage's file is part of the key.
	te.writeStage(t, "tag", "#!/bin/sh\necho one\n")
	te.writeModel(t, "tagged", modelWith("tag", ""))
	if out := transform(t, te.Engine, "tagged", text); out.Text != "one\n" || out.Metrics.CacheHit {
		t.Fatalf("custom stage: %q, hit %v", out.Text, out.Metrics.CacheHit)
	}
	if out := transform(t, te.Engine, "tagged", text); !out.Metrics.CacheHit {
		t.Error("custom stage: second request missed")
	}
	te.writeStage(t, "tag", "#!/bin/sh\necho two\n")
	if out := transform(t, te.Engine, "tagged", text); out.Text != "two\n" || out.Metrics.CacheHit {
		t.Errorf("after editing the stage: %q, hit %v; want a miss running the new file", out.Text, out.Metrics.CacheHit)
	}
	st, err := te.CacheStats()
	if err != nil || st.Entries == 0 || st.Bytes == 0 || st.Hits == 0 || st.Requests != 7 || st.RequestHits != 3 {
		t.Errorf("CacheStats = %+v, %v; want entries, bytes and hits counted, and 7 requests of which 3 hits", st, err)
	}
	if err := te.ClearCache(); err != nil {
		t.Fatal(err)
	}
	if st, _ := te.CacheStats(); st.Entries != 0 {
		t.Errorf("after ClearCache: %d entries", st.Entries)
	}
	if out := transform(t, te.Engine, "tagged", text); out.Metrics.CacheHit {
		t.Error("after ClearCache: a hit")
	}
}

func TestEditedModelAppliesToTheNextRequest(t *testing.T) {
	te := newTestEngine(t)
	text := proseDoc(t)
	te.writeModel(t, "live", "minBytes: 1\nstages:\n  - type: passthrough\n")
	if out := transform(t, te.Engine, "live", text); out.Text != text {
		t.Fatal("passthrough changed the text")
	}
	path := te.writeModel(t, "live", "minBytes: 1\nstages:\n  - type: paginate\n    config: {pageBytes: 1000}\n")
	// Make sure the edit is visible even where mtime resolution is coarse.
	future := time.Now().Add(2 * time.Second)
	os.Chtimes(path, future, future)
	out := transform(t, te.Engine, "live", text)
	if out.Text == text || len(out.Sections) < 10 {
		t.Errorf("after the edit: %d sections, text unchanged %v; want pages", len(out.Sections), out.Text == text)
	}
	// A broken edit is reported, naming file, field and line; fixing it recovers.
	os.WriteFile(path, []byte("minBytes: 1\nstages:\n  - type: paginate\n    config: {pageBytes: 10}\n"), 0o600)
	os.Chtimes(path, future.Add(time.Second), future.Add(time.Second))
	_, err := te.Transform(t.Context(), Request{Model: "live", Content: Content{Text: text, Type: TypePrompt}})
	var me *ModelError
	if !errors.As(err, &me) || me.Problems[0].Line != 4 || !strings.Contains(me.Problems[0].Field, "pageBytes") {
		t.Errorf("broken edit: %v, want a ModelError at line 4 naming pageBytes", err)
	}
}

func TestParseModelProblems(t *testing.T) {
	for _, tc := range []struct {
		name, yaml, field string
		line              int
	}{
		{"unknown field", "stages:\n  - type: passthrough\nstagez: []\n", "stagez", 3},
		{"no stages", "minBytes: 3\n", "", 1},
		{"bad type", "appliesTo: [toolResult, email]\nstages:\n  - type: passthrough\n", "appliesTo.1", 1},
		{"bad stage config", "stages:\n  - type: section-split\n    config:\n      maxBytes: 1\n", "stages.0.config.maxBytes", 4},
		{"unknown stage config", "stages:\n  - type: paginate\n    config:\n      pages: 3\n", "stages.0.config.pages", 4},
		{"name mismatch", "name: other\nstages:\n  - type: passthrough\n", "name", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseModel("/x/proxymodels/m.yaml", []byte(tc.yaml))
			var me *ModelError
			if !errors.As(err, &me) || !errors.Is(err, ErrInvalidModel) {
				t.Fatalf("got %v, want a *ModelError", err)
			}
			p := me.Problems[0]
			if p.Field != tc.field || p.Line != tc.line {
				t.Errorf("problem %q at field %q line %d, want field %q line %d", p.Message, p.Field, p.Line, tc.field, tc.line)
			}
		})
	}
	m, err := ParseModel("/x/proxymodels/m.yaml", []byte("description: mine\nstages:\n  - type: section-split\n"))
	if err != nil || m.Name != "m" || len(m.AppliesTo) != 4 || m.Controller != "gate" {
		t.Errorf("ParseModel = %+v, %v; want name m, all four types, controller gate", m, err)
	}
}

func TestSectionsIndexTheTextTheSplitterSaw(t *testing.T) {
	te := newTestEngine(t)
	te.writeStage(t, "redact", "#!/bin/sh\nsed -E 's/flow-[0-9]+/flow-X/g'\n")
	text := jsonArray(t, 300)
	te.writeModel(t, "first", "minBytes: 1\nstages:\n  - type: redact\n  - type: section-split\n  - type: summarize-tree\n")
	out := transform(t, te.Engine, "first", text)
	if strings.Contains(out.Text, "flow-1") || len(out.Sections) == 0 {
		t.Fatalf("redact then split: %d sections, table names an unredacted value:\n%s", len(out.Sections), out.Text)
	}
	var all strings.Builder
	for _, l := range Leaves(out.Sections) {
		got, err := te.ReadSection(t.Context(), out.Ref, l.ID)
		if err != nil {
			t.Fatal(err)
		}
		all.WriteString(got)
	}
	if strings.Contains(all.String(), "flow-1") || !strings.Contains(all.String(), `"name": "flow-X"`) {
		t.Error("read_section served the text before the redacting stage, not what it redacted")
	}

	te.writeModel(t, "after", "minBytes: 1\nstages:\n  - type: section-split\n  - type: redact\n")
	out = transform(t, te.Engine, "after", text)
	if out.Ref != "" || len(out.Sections) != 0 || strings.Contains(out.Text, "flow-1") {
		t.Errorf("split then redact: ref %q with %d sections; want the sections dropped, since they would serve unredacted text", out.Ref, len(out.Sections))
	}
}

func TestAStageCreatedLaterCountsAtTheNextRequest(t *testing.T) {
	te := newTestEngine(t)
	te.writeModel(t, "later", modelWith("later", ""))
	if _, err := te.Model("later"); !errors.Is(err, ErrInvalidModel) {
		t.Fatalf("model naming a missing stage: %v, want ErrInvalidModel", err)
	}
	te.writeStage(t, "later", shUpper)
	if out := transform(t, te.Engine, "later", "abc"); out.Text != "ABC" {
		t.Errorf("after creating the stage: %q, want ABC", out.Text)
	}
}

// A fresh request runs every stage whatever the cache holds ('pipeline run --verbose', where a
// cached result showed none of the stages' diagnostics), and a later request finds its result.
func TestFreshRequestRunsTheStages(t *testing.T) {
	te := newTestEngine(t)
	runs := filepath.Join(t.TempDir(), "runs")
	te.writeStage(t, "tag", "#!/bin/sh\necho run >> '"+runs+"'\necho one\n")
	te.writeModel(t, "tagged", modelWith("tag", ""))
	text := jsonArray(t, 50)
	ran := func() int {
		b, _ := os.ReadFile(runs)
		return strings.Count(string(b), "run")
	}
	for i, tc := range []struct {
		fresh, hit bool
		runs       int
	}{{false, false, 1}, {false, true, 1}, {true, false, 2}, {false, true, 2}} {
		out, err := te.Transform(t.Context(), Request{Model: "tagged", Content: Content{Text: text, Type: TypeToolResult}, Fresh: tc.fresh})
		if err != nil || out.Text != "one\n" || out.Metrics.CacheHit != tc.hit || ran() != tc.runs {
			t.Errorf("request %d (fresh %v): %q, %v, hit %v, stage ran %d times; want hit %v, %d runs", i+1, tc.fresh, out.Text, err, out.Metrics.CacheHit, ran(), tc.hit, tc.runs)
		}
	}
}
