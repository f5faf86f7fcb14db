package mcpserver

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

// chain installs the one order every request follows (DESIGN §8):
//
//	observe → gate → pipeline → handler
//
// observe (the wire, then the middlewares below) opens the call record and puts it in the
// context; the gate intercepts a real tool called while the session is gated and puts its
// briefing before the result; the pipeline passes content through unchanged until a content
// model is in force; the handler is a local tool, prompt or resource. mcp-go applies tool
// middlewares in the order added, outermost first.
func chain(srv *server.MCPServer, obs *observer, g *gateComponent, p *contentPipeline) {
	srv.Use(restoreAnswered) // a call a hook answered is the tool called from here on (quirk 5)
	srv.Use(observeTool(obs))
	if g != nil {
		srv.Use(g.intercept)
	}
	if p != nil {
		srv.Use(p.tools)
	}
	server.WithPromptHandlerMiddleware(func(next server.PromptHandlerFunc) server.PromptHandlerFunc {
		return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			ctx, done := obs.enter(ctx, req.Params.Meta)
			defer done()
			return next(ctx, req)
		}
	})(srv)
	server.WithResourceHandlerMiddleware(func(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
		return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			ctx, done := obs.enter(ctx, req.Params.Meta)
			defer done()
			return next(ctx, req)
		}
	})(srv)
	if p != nil {
		server.WithPromptHandlerMiddleware(p.prompts)(srv)
		server.WithResourceHandlerMiddleware(p.resources)(srv)
	}
}

// observeTool is the chain's first tool middleware: the call's record enters the context.
func observeTool(obs *observer) server.ToolHandlerMiddleware {
	return func(next server.ToolHandlerFunc) server.ToolHandlerFunc {
		return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			ctx, done := obs.enter(ctx, req.Params.Meta)
			defer done()
			return next(ctx, req)
		}
	}
}

// enter finds the record the wire opened for a request and binds it to ctx (done releases it).
// The record's number is taken out of _meta, so nothing of ours travels further (to an upstream
// server, say).
func (o *observer) enter(ctx context.Context, meta *mcp.Meta) (context.Context, context.CancelFunc) {
	if o.w == nil || meta == nil {
		return ctx, func() {}
	}
	c := o.w.callBySeq(meta)
	delete(meta.AdditionalFields, metaCall)
	if c == nil {
		return ctx, func() {}
	}
	return c.bind(ctx)
}
