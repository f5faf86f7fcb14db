package pipeline

import (
	"context"
	"encoding/json"
	"log/slog"
)

// ContentType says where a piece of content comes from; a proxymodel's appliesTo lists the types
// it transforms.
type ContentType string

// The content types of DESIGN §9.
const (
	TypePrompt     ContentType = "prompt"
	TypeToolResult ContentType = "toolResult"
	TypeResource   ContentType = "resource"
	TypeBriefing   ContentType = "briefing"
)

// ContentTypes lists every content type, in the order the docs name them.
var ContentTypes = []ContentType{TypeToolResult, TypeResource, TypePrompt, TypeBriefing}

// Valid reports whether t is one of ContentTypes.
func (t ContentType) Valid() bool {
	for _, c := range ContentTypes {
		if c == t {
			return true
		}
	}
	return false
}

// Content is what a stage transforms.
type Content struct {
	Text   string
	Type   ContentType
	Source string // a prompt name, "server/tool" or a URI; for logs and custom stages
}

// Env is what a stage may use besides its input.
type Env struct {
	// Original is the content as it entered the pipeline, before any stage.
	Original string
	// Sections are the sections earlier stages found, as byte ranges of Base, or nil.
	Sections []Section
	// Base is the text Sections index: the input of the stage that made them. It is Original
	// unless a stage before that one changed the text (a redacting stage, say), and it is what
	// read_section serves.
	Base string
	// Config is the stage's config from the proxymodel, never nil.
	Config map[string]any
	// Cache keeps values across requests and restarts by key, for stages that make expensive
	// derived values (LLM summaries); nil-safe.
	Cache KV
	// LLM is the configured chat model, or nil when none is configured.
	LLM Completer
	// Log receives the stage's diagnostics; lengths, never content.
	Log *slog.Logger
	// Project names the project the request serves, or "".
	Project string
}

// Result is what a stage gives back. A stage that only finds structure returns its input Text
// unchanged with Sections set.
//
// Sections are byte ranges of the stage's input, or of Base when Base is set (a stage that
// describes the sections it was given sets Base to Env.Base). A stage that returns no sections
// keeps the earlier ones if it left the text unchanged; if it changed the text they are
// dropped, since they would serve content the stage meant to replace.
type Result struct {
	Text     string
	Sections []Section
	Base     string         // the text Sections index; "" means the stage's input
	Metadata map[string]any // merged into the request's metadata, later stages winning
	// Provisional marks a result made with a fallback worth retrying (the LLM did not answer):
	// it is used but not cached, nor is anything the later stages make of it.
	Provisional bool
}

// Stage transforms content. Run must return promptly when ctx is done. An error means the stage
// failed: the Engine logs it and passes the stage's input through.
type Stage interface {
	Run(ctx context.Context, c Content, env Env) (Result, error)
}

// StageFunc adapts a function to Stage.
type StageFunc func(ctx context.Context, c Content, env Env) (Result, error)

// Run calls f.
func (f StageFunc) Run(ctx context.Context, c Content, env Env) (Result, error) {
	return f(ctx, c, env)
}

// KV is a byte store by key; Get reports whether the key was found.
type KV interface {
	Get(key string) ([]byte, bool)
	Put(key string, value []byte)
}

// Completer is a chat model: it answers prompt, instructed by system.
type Completer interface {
	Complete(ctx context.Context, system, prompt string) (string, error)
}

// passthrough returns its input.
func passthrough(_ context.Context, c Content, _ Env) (Result, error) {
	return Result{Text: c.Text}, nil
}

// configInt reads an integer config value, def when absent or not a number.
func configInt(cfg map[string]any, key string, def int) int {
	switch v := cfg[key].(type) {
	case float64:
		return int(v)
	case int:
		return v
	case int64:
		return int(v)
	case json.Number:
		if n, err := v.Int64(); err == nil {
			return int(n)
		}
	}
	return def
}
