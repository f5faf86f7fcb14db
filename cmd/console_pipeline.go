package cmd

import (
	"context"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/tui"
)

// consolePipeline is the content pipeline as the console's Pipeline screen sees it.
type consolePipeline struct{ e *pipeline.Engine }

var _ tui.Transformer = consolePipeline{}

func (c consolePipeline) Models() []string {
	names, _ := c.e.ModelNames()
	return names
}

// Transform runs model over in as serve does: for in's project, which custom stages are told
// (a stage that redacts or is configured per project gave another result for none), and a tool
// result the model leaves more than a result may be is paged by the built-in default, as serve
// pages it, so a traced result run again (e) shows the page serve sent, not the model's output
// the client never saw.
func (c consolePipeline) Transform(ctx context.Context, model string, in tui.Input) (tui.Output, error) {
	typ := pipeline.ContentType(in.Type)
	out, err := c.e.Transform(ctx, pipeline.Request{Model: model, Project: in.Project,
		Content: pipeline.Content{Text: in.Text, Type: typ, Source: in.Source}})
	if err != nil {
		return tui.Output{}, err
	}
	if typ == pipeline.TypeToolResult {
		if paged, ok, _ := mcpserver.BoundToolResult(ctx, c.e, in.Project, model, in.Source, in.Text, out); ok {
			out = paged
		}
	}
	res := tui.Output{Text: out.Text, Stages: out.Metrics.StageNames(), BytesBefore: out.Metrics.BytesBefore,
		BytesAfter: out.Metrics.BytesAfter, CacheHit: out.Metrics.CacheHit, Ref: out.Ref}
	var walk func(ss []pipeline.SectionInfo, depth int)
	walk = func(ss []pipeline.SectionInfo, depth int) {
		for _, s := range ss {
			res.Sections = append(res.Sections, tui.Section{ID: s.ID, Title: s.Title, Bytes: s.Bytes, Depth: depth})
			walk(s.Children, depth+1)
		}
	}
	walk(pipeline.Infos(out.Sections), 0)
	if !out.Applied {
		res.BytesBefore, res.BytesAfter = len(in.Text), len(in.Text)
	}
	return res, nil
}
