package tui

import "context"

// Transformer is what the Pipeline screen needs of the content pipeline (DESIGN §9): the
// proxymodels there are and one transformation. cmd wires the real pipeline in; nil means no
// pipeline is configured and the screen says so.
type Transformer interface {
	// Models lists the proxymodels, built-in and local, by name.
	Models() []string
	// Transform runs model's stages over in, as the server would for a result of that type.
	Transform(ctx context.Context, model string, in Input) (Output, error)
}

// Input is content to transform.
type Input struct {
	Text   string
	Type   string // prompt, toolResult, resource or briefing
	Source string // a prompt name, server/tool or URI
	// Project is the project the content is served for, "" for none: serve passes its name to
	// custom stages (a redaction, a stage's config per project), so the same stages give the
	// same result only with the same project.
	Project string
}

// Output is a transformation's result.
type Output struct {
	Text        string
	Sections    []Section // the drill-down table; empty when the model made none
	Stages      []string  // the stages that ran, in order
	BytesBefore int
	BytesAfter  int
	CacheHit    bool
	Ref         string // the content hash read_section takes
}

// Section is one entry of the drill-down table.
type Section struct {
	ID    string
	Title string
	Bytes int
	Depth int // 0 at the top
}
