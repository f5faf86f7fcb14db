package cmd

import (
	"context"

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

func (c consolePipeline) Transform(ctx context.Context, model string, in tui.Input) (tui.Output, error) {
	out, err := c.e.Transform(ctx, pipeline.Request{Model: model, Content: pipeline.Content{Text: in.Text, Type: pipeline.ContentType(in.Type), Source: in.Source}})
	if err != nil {
		return tui.Output{}, err
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
