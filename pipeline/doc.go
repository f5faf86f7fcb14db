// Package pipeline turns large content into small, navigable indexes with exact drill-down.
//
// A proxymodel (a YAML file, or the built-ins "default" and "subindex") names a list of stages;
// the Engine runs them in order over a piece of content — a tool result, a resource, a prompt or
// a gate briefing — and returns the transformed text, a tree of sections and metrics. Every
// section is a byte range of the original content: ReadSection returns it exactly, and the
// leaves of the tree, read in order, give the original back byte for byte. Stages are the four
// built-ins (passthrough, paginate, section-split, summarize-tree) or executables in any language
// under $XDG_CONFIG_HOME/mcpctl/stages. Results are cached on disk by content hash, so a second
// identical request, also in another process or after a restart, costs a file read.
//
// A built-in stage that fails or times out passes its input through; the failure is logged and
// reported in the stage's metrics. A custom stage that fails withholds the content (a
// *WithheldError, and a notice as the text) unless its config says onFailure: passthrough: it
// may exist to remove something, such as a redaction. The Engine never loses content, and never
// sends it without a custom stage's work.
package pipeline
