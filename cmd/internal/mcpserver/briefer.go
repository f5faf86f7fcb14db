package mcpserver

import (
	"context"
	"log/slog"
	"maps"
	"slices"
	"sync"

	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/promptlib"
)

// Briefer builds what begin_session briefs a new session of a project from, outside a server
// (gate preview, the console's Gate screen), as a served session builds it: the gate's index of
// the library, each prompt's table of contents sized by the proxymodel in force under Engine,
// and the renderer with the tools the session lists. What it cannot know it leaves out: the LLM
// re-ranking (Engine runs without one), and how many tools each of the project's servers has
// (they are not started: each is its prefix alone).
type Briefer struct {
	Engine *pipeline.Engine // nil: no content pipeline
	// Untrusted, when set, says why the project's servers would not be started (an untrusted
	// repository project), as Config.Untrusted does: the briefing names none of them, and the
	// instructions say why they are missing.
	Untrusted string
}

// Render is a briefing's text as a served begin_session sends it: rendered, fitted to what a
// result may carry, and capped.
type Render func(ctx context.Context, b gate.Briefing, load gate.Bodies) (string, error)

// Brief builds the index of lib, and how briefings of it are rendered, for a new session of p.
func (b Briefer) Brief(ctx context.Context, lib promptlib.Library, p gate.Project) (*gate.Index, Render, error) {
	ix, r, err := b.build(ctx, lib, p)
	if err != nil {
		return nil, nil, err
	}
	return ix, func(ctx context.Context, br gate.Briefing, load gate.Bodies) (string, error) {
		br, text, _, err := fitNaming(ctx, r, br, load, wholeResult, asResult)
		return capText(br, text, wholeResult, asResult), err
	}, nil
}

// Instructions is what a client of a new session of p receives at initialize, and the index it
// was made from: a caller that also shows the prompts (describe project) shows these, and builds
// no index of its own (the costly part, at a large library).
func (b Briefer) Instructions(ctx context.Context, lib promptlib.Library, p gate.Project) (string, *gate.Index, error) {
	ix, r, err := b.build(ctx, lib, p)
	if err != nil {
		return "", nil, err
	}
	r.Note = untrustedNote(&p, b.Untrusted)
	text, _ := r.Instructions(ix, gate.NewSession(p).Gated())
	return text, ix, nil
}

// build makes the index and the renderer a served session of p starts from.
func (b Briefer) build(ctx context.Context, lib promptlib.Library, p gate.Project) (*gate.Index, gate.Renderer, error) {
	var pipe *contentPipeline
	var toc func(promptlib.Prompt) string
	if b.Engine != nil {
		// A pipeline of the chain's own, on a core that has only what the briefing path reads.
		pipe = &contentPipeline{core: &core{cfg: Config{Project: &p}, log: slog.New(slog.DiscardHandler)}, engine: b.Engine}
		toc = func(pr promptlib.Prompt) string { return pipe.tocOf(ctx, pr) }
	}
	ix, scope, err := gate.LibraryIndexTOC(lib, p, toc)
	if err != nil {
		return nil, gate.Renderer{}, err
	}
	r := gate.Renderer{Texts: gate.SystemTexts(scope.SystemPrompts(lib.Prompts)), Tools: append(libraryTools(), gate.ToolReadPrompts)}
	if pipe != nil {
		r.TOC = pipe.toc
		if pipe.makesSections() {
			r.Tools = append(r.Tools, toolReadSection)
		}
	}
	if b.Untrusted == "" {
		for _, srv := range slices.Sorted(maps.Keys(p.Servers)) {
			r.Tools = append(r.Tools, srv+upstream.Separator+"*")
		}
	}
	return ix, r, nil
}

// libraryTools are mcpctl's own tools in the order a server lists them: the tools' names,
// taken from the tools themselves (their handlers are not called). Clipped, so that a caller's
// append copies rather than writes into what every caller shares.
var libraryTools = sync.OnceValue(func() []string {
	var names []string
	for _, t := range append(newReadTools(&core{}).tools(), (&writeTools{}).tools()...) {
		names = append(names, t.Tool.Name)
	}
	return slices.Clip(names)
})
