package mcpserver

import (
	"context"
	"maps"

	"github.com/mark3labs/mcp-go/mcp"
)

// metaMaxResultChars is the tools/list _meta key by which a tool tells Claude Code how large its
// results may be. Without it, Claude Code saves a result of over 50,000 characters to a file and
// hands the model a 2 KB preview and the path, which the model must then read in pieces (its
// MCP docs, "Raise the limit for a specific tool"); with it, results up to the value (at most
// 500,000) come inline. Every result mcpctl sends is bounded at MaxResultBytes of text, paged
// or cut to a table beyond, so each of its tools, and each it serves for a project's server,
// declares that bound: a get_prompt page, a briefing or a list with contents between 50 and 100
// KB was a file to the model before. Other clients ignore the key.
const metaMaxResultChars = "anthropic/maxResultSizeChars"

// resultSizeMeta is the _meta of a tool that has none of its own: shared, never written.
var resultSizeMeta = &mcp.Meta{AdditionalFields: map[string]any{metaMaxResultChars: MaxResultBytes}}

// declareResultSize is a tool filter (it runs on every tools/list, and at each call, where it
// changes nothing that matters) that gives each tool listed metaMaxResultChars. A project
// server's tool keeps its own _meta, and its own bound when that is lower.
func declareResultSize(_ context.Context, tools []mcp.Tool) []mcp.Tool {
	for i, t := range tools {
		if t.Meta == nil {
			tools[i].Meta = resultSizeMeta
			continue
		}
		if v, ok := t.Meta.AdditionalFields[metaMaxResultChars].(float64); ok && v <= MaxResultBytes {
			continue
		}
		m := &mcp.Meta{ProgressToken: t.Meta.ProgressToken, AdditionalFields: maps.Clone(t.Meta.AdditionalFields)}
		if m.AdditionalFields == nil {
			m.AdditionalFields = map[string]any{}
		}
		m.AdditionalFields[metaMaxResultChars] = MaxResultBytes
		tools[i].Meta = m
	}
	return tools
}
