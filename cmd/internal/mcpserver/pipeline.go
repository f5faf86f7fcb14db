package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// contentPipeline is the chain's pipeline stage (DESIGN §8, §9): the proxymodel in force turns
// big content — an upstream tool's result, a resource, a prompt's messages — into a small,
// navigable index, with every section one read_section away. Our own tools keep their output
// schemas and size themselves (§5), so their results pass through.
type contentPipeline struct {
	*core
	engine *pipeline.Engine
	warned sync.Map // model names whose fallback was logged
}

func newContentPipeline(c *core, e *pipeline.Engine) *contentPipeline {
	p := &contentPipeline{core: c, engine: e}
	// Said once at start, in serve's log, for what would otherwise show only as content
	// reaching the model whole (a model that cannot run) or as CONTENT_WITHHELD errors.
	for _, pr := range ProjectModelProblems(e, c.cfg.Project) {
		if pr.Model != "" {
			p.warned.Store(pr.Model, true)
		}
		c.log.Warn("pipeline: the project's proxymodels: "+pr.String(), "project", c.cfg.Project.Name, "file", c.cfg.Project.File)
	}
	return p
}

// model is the proxymodel in force for a source: the project's override for it (by source, or
// by the name the tool is served under, alias, which is what a user sees), else the upstream
// server's own, else the project's, else the default; a named model that cannot run gives way
// to the default (inForce).
func (p *contentPipeline) model(source, server string, alias ...string) string {
	return p.inForce(p.named(source, server, alias...))
}

func (p *contentPipeline) named(source, server string, alias ...string) string {
	pr := p.cfg.Project
	if pr == nil {
		return pipeline.DefaultModel
	}
	if m := pr.ProxyModelOverrides[source]; m != "" {
		return m
	}
	for _, a := range alias {
		if m := pr.ProxyModelOverrides[a]; m != "" {
			return m
		}
	}
	if spec, ok := pr.Servers[server]; ok && spec.ProxyModel != "" {
		return spec.ProxyModel
	}
	if pr.ProxyModel != "" {
		return pr.ProxyModel
	}
	return pipeline.DefaultModel
}

// inForce is model, or the default when model cannot run (it does not exist, or its file does
// not parse): a typo in proxyModel meant no model at all, so 50 KB results went whole where the
// default would have paged them. The fallback is logged once per model. A model whose file
// parsed but names a stage that cannot run stays in force: its failure withholds content.
func (p *contentPipeline) inForce(model string) string {
	if model == pipeline.DefaultModel {
		return model
	}
	err := p.engine.Runnable(model)
	if err == nil {
		return model
	}
	if _, done := p.warned.LoadOrStore(model, true); !done {
		p.log.Warn("pipeline: proxymodel cannot be used; the built-in default serves instead", "model", model, "err", err)
	}
	return pipeline.DefaultModel
}

// project is the served project's name, for custom stages; "" without one.
func (p *contentPipeline) project() string {
	if p.cfg.Project == nil {
		return ""
	}
	return p.cfg.Project.Name
}

// projectModels lists every model a session of pr (nil: none) may see in force.
func projectModels(pr *gate.Project) []string {
	seen := map[string]bool{pipeline.DefaultModel: true}
	out := []string{pipeline.DefaultModel}
	add := func(m string) {
		if m != "" && !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	if pr != nil {
		add(pr.ProxyModel)
		for _, m := range pr.ProxyModelOverrides {
			add(m)
		}
		for _, s := range pr.Servers {
			add(s.ProxyModel)
		}
	}
	return out
}

// makesSections reports whether any model in force may make sections: read_section is listed
// then.
func (p *contentPipeline) makesSections() bool {
	return slices.ContainsFunc(projectModels(p.cfg.Project), p.engine.MakesSections)
}

// transform runs the model in force over one text; unchanged when the model does not apply.
// The error is a *pipeline.WithheldError when a custom stage failed: Text is then a notice, and
// the caller answers with an error rather than the content.
func (p *contentPipeline) transform(ctx context.Context, typ pipeline.ContentType, source, server, text string) (pipeline.Output, error) {
	return p.transformWith(ctx, p.model(source, server), typ, source, text)
}

// transformWith runs the named model over one text.
func (p *contentPipeline) transformWith(ctx context.Context, model string, typ pipeline.ContentType, source, text string) (pipeline.Output, error) {
	if !p.engine.Applies(model, typ, len(text)) {
		return pipeline.Output{Text: text, Body: text}, nil
	}
	out, err := p.engine.Transform(ctx, pipeline.Request{Model: model, Project: p.project(),
		Content: pipeline.Content{Text: text, Type: typ, Source: source}})
	if errors.Is(err, pipeline.ErrWithheld) {
		p.recordPipeline(ctx, out, typ, source, text)
		return out, err
	}
	if err != nil {
		p.log.Warn("pipeline: content passed through", "model", model, "source", source, "err", err)
		return pipeline.Output{Text: text, Body: text}, nil
	}
	if out.Applied {
		p.recordPipeline(ctx, out, typ, source, text)
	}
	return out, nil
}

// codeWithheld is the error code of content a failed custom stage withheld.
const codeWithheld promptlib.Code = "CONTENT_WITHHELD"

// withheldError is what the model is told of content a custom stage withheld: which stage of
// which model failed and why, and that only the user can fix it.
func withheldError(source string, err error) error {
	var we *pipeline.WithheldError
	if !errors.As(err, &we) {
		return err
	}
	return &promptlib.Error{Code: codeWithheld, Err: err,
		Message: fmt.Sprintf("the content of %s was withheld: %s", source, strings.TrimPrefix(we.Error(), "pipeline: content withheld: ")),
		Advice: "Calling again gives the same answer until the user fixes the content pipeline. Tell the user that mcpctl withheld this content " +
			"because a stage of their proxymodel failed, and how to fix it: " + we.Fix() + "."}
}

// recordPipeline puts what a transform of input did in the call's traffic event, and input
// itself when the event is traced. A briefing's tables of contents (toc) are not the call's
// content and are not recorded.
func (p *contentPipeline) recordPipeline(ctx context.Context, out pipeline.Output, typ pipeline.ContentType, source, input string) {
	if typ == pipeline.TypeBriefing {
		return
	}
	m := out.Metrics
	c := callFrom(ctx)
	c.mu.Lock()
	c.pipeline = &traffic.Pipeline{Model: m.Model, Stages: m.StageNames(), BytesBefore: m.BytesBefore, BytesAfter: m.BytesAfter, CacheHit: m.CacheHit}
	if c.traced {
		// Untraced, the input is never written: kept on the call anyway, a big result's whole
		// text stayed in memory until its response left.
		c.input = tracedInput{text: input, typ: string(typ), source: source}
	}
	c.mu.Unlock()
}

// tools is the chain's pipeline stage for tool calls: an upstream tool's text goes through the
// model in force, as one text however many blocks carry it (200 blocks of 2 KB are one
// 400 KB result to the model, though each is under any model's minBytes). A server's own error
// result is the tool's answer too: a failing test run's log can be megabytes, and a redacting
// stage must see it as it sees any other. An error mcpctl made (the server is down, busy, broke
// the protocol) is its own, clipped (errorResult), and passes as it is: a stage that failed on
// it would hide it behind CONTENT_WITHHELD.
func (p *contentPipeline) tools(next server.ToolHandlerFunc) server.ToolHandlerFunc {
	return func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := next(ctx, req)
		if err != nil || res == nil || p.up == nil || res.IsError && callFrom(ctx).errorCode() != upstreamToolError {
			return res, err
		}
		srv, own, ok := p.up.source(req.Params.Name)
		if !ok {
			return res, err // one of ours
		}
		source := srv + "/" + own
		text, blocks := modelText(res)
		if blocks == 0 {
			return res, nil
		}
		model := p.model(source, srv, req.Params.Name)
		out, werr := p.transformWith(ctx, model, pipeline.TypeToolResult, source, text)
		if werr != nil {
			return p.errorResult(ctx, withheldError(source, werr)), nil
		}
		paged, ok, err := BoundToolResult(ctx, p.engine, p.project(), model, source, text, out)
		if err != nil {
			p.log.Warn("pipeline: a result over the bound could not be paged", "source", source, "bytes", len(out.Body), "err", err)
		} else if ok {
			out = paged
			p.recordPipeline(ctx, out, pipeline.TypeToolResult, source, text)
		}
		if out.Applied {
			res.Content = replaceText(res.Content, out.Text)
			dropStructured(res)
			if m := out.Meta(); m != nil {
				if res.Meta == nil {
					res.Meta = &mcp.Meta{}
				}
				if res.Meta.AdditionalFields == nil {
					res.Meta.AdditionalFields = map[string]any{}
				}
				res.Meta.AdditionalFields["mcpctl/sections"] = m
			}
		} else if contentTextBytes(res.Content) > MaxResultBytes || len(structuredJSON(res)) > MaxResultBytes {
			// Images and audio are the model's to see; their copy as JSON is not. A copy of the
			// text over the bound is what Claude Code would show instead of the text.
			dropStructured(res)
		}
		return res, nil
	}
}

// BoundToolResult is what a tool result becomes when what the model in force made of its text
// (out, from text; the text itself when the model did not apply) is more than a result may be:
// whole, 60 KB of JSON or code is over the tokens. The built-in default's pages bound it
// (whatever a default.yaml says), every page one read_section away; ok says it did. It pages what
// the model's stages made (out.Body), never text: a redacting stage's work would be undone, and
// its secrets sent. Its Metrics are the whole run's, from text to the page sent, under the model
// in force with its stages then paginate: a traced event keeps text and that model, and the
// console's Pipeline screen runs them, and this, again. serve's pipeline and the console both
// call it, so the screen shows what serve sent.
func BoundToolResult(ctx context.Context, e *pipeline.Engine, project, model, source, text string, out pipeline.Output) (pipeline.Output, bool, error) {
	if wholeResult.holds(out.Text) {
		return out, false, nil
	}
	paged, err := e.Transform(ctx, pipeline.Request{Model: pipeline.DefaultModel, BuiltIn: true, Project: project,
		Content: pipeline.Content{Text: out.Body, Type: pipeline.TypeToolResult, Source: source}})
	if err == nil && !paged.Applied {
		err = errors.New("the built-in model did not apply")
	}
	if err != nil {
		return out, false, err
	}
	m := paged.Metrics
	m.Model, m.BytesBefore, m.Stages = model, len(text), nil
	if out.Applied {
		m.Stages = append(m.Stages, out.Metrics.Stages...)
		m.CacheHit = m.CacheHit && out.Metrics.CacheHit
		m.Duration += out.Metrics.Duration
	}
	for _, st := range paged.Metrics.Stages {
		if st.Name != "passthrough" { // the default's first stage, which does nothing here
			m.Stages = append(m.Stages, st)
		}
	}
	paged.Metrics = m
	return paged, true, nil
}

// modelText is the text of a result as a model meets it, the pipeline's input: its text blocks
// and embedded text resources, joined (resultText), with what would otherwise reach the model
// whole beside them made text too:
//   - structuredContent with no text beside it, or over the bound with a text that does not
//     repeat it (a one-line summary beside 500 KB of JSON): Claude Code shows the model that JSON
//     rather than the text, so it becomes a text block and is paged, redacted and counted as
//     text is;
//   - resource links that take the result over the bound (a search naming 5,000 files): one
//     line each, in one text block where the first stood; each is still readable by its URI.
func modelText(res *mcp.CallToolResult) (string, int) {
	text, blocks := resultText(res.Content)
	if raw := structuredJSON(res); len(raw) > 0 && (blocks == 0 || len(raw) > MaxResultBytes && len(text) < len(raw)/2) {
		res.Content = append(res.Content, mcp.NewTextContent(string(raw)))
		dropStructured(res)
		text, blocks = resultText(res.Content)
	}
	if links := linkBytes(res.Content); links > 0 && len(text)+links > MaxResultBytes {
		res.Content = linksAsText(res.Content)
		text, blocks = resultText(res.Content)
	}
	return text, blocks
}

// structuredJSON is a result's structuredContent as JSON: as the server sent it, or encoded.
func structuredJSON(res *mcp.CallToolResult) []byte {
	if len(res.RawStructuredContent) > 0 || res.StructuredContent == nil {
		return res.RawStructuredContent
	}
	raw, _ := json.Marshal(res.StructuredContent)
	return raw
}

// linkBytes is the size of a result's resource links as JSON.
func linkBytes(content []mcp.Content) int {
	n := 0
	for _, c := range content {
		if l, ok := c.(mcp.ResourceLink); ok {
			raw, _ := json.Marshal(l)
			n += len(raw)
		}
	}
	return n
}

// linksAsText replaces a result's resource links by one text block of a line each, where the
// first link stood.
func linksAsText(content []mcp.Content) []mcp.Content {
	var b strings.Builder
	out := make([]mcp.Content, 0, len(content))
	at := -1
	for _, c := range content {
		l, ok := c.(mcp.ResourceLink)
		if !ok {
			out = append(out, c)
			continue
		}
		if at < 0 {
			at = len(out)
			out = append(out, nil)
		}
		b.WriteString("- ")
		b.WriteString(cmp.Or(l.Title, l.Name))
		b.WriteString(" <")
		b.WriteString(l.URI)
		b.WriteString(">")
		if l.MIMEType != "" {
			b.WriteString(" " + l.MIMEType)
		}
		if l.Description != "" {
			b.WriteString(": " + strings.Join(strings.Fields(l.Description), " "))
		}
		b.WriteString("\n")
	}
	if at >= 0 {
		out[at] = mcp.NewTextContent("Resources, each readable by its URI:\n" + b.String())
	}
	return out
}

// dropStructured removes a result's structuredContent: the tool is listed without its output
// schema when the model in force may transform it, and what is left would only repeat (whole)
// what the content now says in part. mcp-go keeps an upstream's as it came, in
// RawStructuredContent, which its encoding prefers.
func dropStructured(res *mcp.CallToolResult) {
	res.StructuredContent = nil
	res.RawStructuredContent = nil
}

// resultText joins the text of a result's content, its text blocks and the text of the
// resources it embeds, with a blank line between them, and counts the blocks it joined.
func resultText(content []mcp.Content) (string, int) {
	var texts []string
	for _, c := range content {
		if t, ok := blockText(c); ok {
			texts = append(texts, t)
		}
	}
	return strings.Join(texts, "\n\n"), len(texts)
}

// blockText is the text a content block holds, for a text block or an embedded text resource.
func blockText(c mcp.Content) (string, bool) {
	if tc, ok := mcp.AsTextContent(c); ok {
		return tc.Text, true
	}
	if er, ok := mcp.AsEmbeddedResource(c); ok {
		if tr, ok := mcp.AsTextResourceContents(er.Resource); ok {
			return tr.Text, true
		}
	}
	return "", false
}

// replaceText puts text where a result's first text block stood and drops the others: they are
// all in it. Images, audio and blobs stay as they are, in order.
func replaceText(content []mcp.Content, text string) []mcp.Content {
	out := make([]mcp.Content, 0, len(content))
	placed := false
	for _, c := range content {
		if _, ok := blockText(c); !ok {
			out = append(out, c)
		} else if !placed {
			out = append(out, mcp.NewTextContent(text))
			placed = true
		}
	}
	return out
}

// prompts is the pipeline stage for prompts/get: each text message goes through the model.
func (p *contentPipeline) prompts(next server.PromptHandlerFunc) server.PromptHandlerFunc {
	return func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		// The pipeline sees the request routed (quirks.go): its source is the name asked for,
		// taken before the router takes it out of the arguments.
		name, srv := askedPrompt(req), ""
		res, err := next(ctx, req)
		if err != nil || res == nil {
			return res, err
		}
		if p.up != nil && p.up.servesPrompt(name) {
			if s, ok := p.up.sup.Owner(name); ok {
				srv = s.Name()
			}
		}
		for i, m := range res.Messages {
			if tc, ok := m.Content.(mcp.TextContent); ok {
				out, werr := p.transform(ctx, pipeline.TypePrompt, name, srv, tc.Text)
				if werr != nil {
					return nil, withheldError("prompt "+name, werr)
				}
				if out.Applied {
					res.Messages[i].Content = mcp.NewTextContent(out.Text)
				}
			}
		}
		return res, nil
	}
}

// resources is the pipeline stage for resources/read.
func (p *contentPipeline) resources(next server.ResourceHandlerFunc) server.ResourceHandlerFunc {
	return func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		res, err := next(ctx, req)
		if err != nil {
			return res, err
		}
		// The server sync chose to read the URI from (upstreams.reader) named itself on the
		// call; mcpctl's own resources name none.
		srv := callFrom(ctx).upstreamName()
		for i, c := range res {
			if tc, ok := c.(mcp.TextResourceContents); ok {
				out, werr := p.transform(ctx, pipeline.TypeResource, req.Params.URI, srv, tc.Text)
				if werr != nil {
					return nil, withheldError(req.Params.URI, werr)
				}
				if out.Applied {
					tc.Text = out.Text
					if out.Meta() != nil {
						// A page or table of sections, in markdown: no longer the JSON or
						// YAML its type said, which a client would fail to parse.
						tc.MIMEType = "text/markdown"
					}
					res[i] = tc
				}
			}
		}
		return res, nil
	}
}

// tocOf is a prompt's table of contents for briefings, for the gate to size: what the model in
// force for briefings makes of its body, "" when the model leaves it as it is (it is under
// minBytes, or the model makes no sections).
func (p *contentPipeline) tocOf(ctx context.Context, pr promptlib.Prompt) string {
	model := p.model("", "")
	if !p.engine.Applies(model, pipeline.TypeBriefing, len(pr.Content)) {
		return ""
	}
	out, err := p.engine.Transform(ctx, pipeline.Request{Model: model, Project: p.project(),
		Content: pipeline.Content{Text: pr.Content, Type: pipeline.TypeBriefing, Source: pr.Title}})
	if err != nil || !out.Applied || out.Ref == "" || len(out.Text) >= len(pr.Content) {
		return ""
	}
	return out.Text
}

// toc is a prompt's table of contents for a briefing, as tocOf made it (the pipeline's cache
// answers the second run).
func (p *contentPipeline) toc(ctx context.Context, e gate.Entry, body string) string {
	// The source is the title, as tocOf gave it: a custom stage's cache key holds it.
	out, _ := p.transformWith(ctx, p.model("", ""), pipeline.TypeBriefing, e.Title, body) // withheld: Text is the notice
	return out.Text
}

// toolReadSection is the tool that reads a section of an index mcpctl gave.
const toolReadSection = "read_section"

// readSectionTool returns one section of transformed content exactly as it stood, bounded as
// every result is (readSection).
func (p *contentPipeline) readSectionTool() server.ServerTool {
	return p.serverTool(tool{
		name: toolReadSection, title: "Read a section", readOnly: true, idempotent: true, timeout: 5 * time.Second,
		description: "Read one section of content that mcpctl gave as an index (a tool result, resource, prompt or briefing " +
			"ending with a table of sections and a ref): the section's text exactly as it stands in the original. " +
			"A section over 40 KB that has sub-sections comes back as their table instead (ids, titles, sizes): read those. " +
			"One without sub-sections comes in pages: page (from 1) picks one, pages says how many. " +
			"Reading every leaf section in order gives the original back.",
		handle: func(ctx context.Context, args json.RawMessage) (any, error) {
			var in struct {
				Ref     string `json:"ref"`
				Section string `json:"section"`
				Page    *int   `json:"page"`
			}
			if err := decodeToolArgs(args, &in); err != nil {
				return nil, err
			}
			s, text, err := p.engine.Section(ctx, in.Ref, in.Section)
			if err != nil {
				return nil, sectionError(err)
			}
			page := 1
			if in.Page != nil {
				page = *in.Page
			}
			return readSection(in.Ref, s, text, page)
		},
	})
}

// readSection answers read_section for section s, whose text is text. Every answer stays within
// bodyPageBytes, the size of a get_prompt page, and for the same reason: the section rides twice
// in the result (as its text and JSON-escaped in structuredContent), so 40 KB of it stays under
// MaxResultBytes, and at 10,000 tokens or so under Claude Code's 25,000-token limit even for
// dense JSON. The bound is not the splitter's maxBytes (4–8 KB): a section up to 40 KB is worth
// one call rather than a table and several more. A larger section with sub-sections answers
// with their table, as the index shows sections, paged when even that is too long (a section
// a custom stage gave thousands of parts; section-split's JSON ranges are sized to be read
// whole, pipeline.rangeBytes); one without is paged as get_prompt pages a body, each page exact, so
// the pages joined are the section.
func readSection(ref string, s pipeline.Section, text string, page int) (sectionResult, error) {
	res := sectionResult{Ref: ref, Section: s.ID, Bytes: len(text), Page: page, Pages: 1, title: s.Title}
	if len(text) > bodyPageBytes && len(s.Children) > 0 {
		pages := tablePages(s.Children)
		res.Pages = len(pages)
		if page > len(pages) {
			return res, pageError(page, len(pages), s.ID)
		}
		res.Content = tableText(ref, s, pages, page)
		res.Sections = make([]pipeline.SectionInfo, len(pages[page-1]))
		for i, c := range pages[page-1] {
			res.Sections[i] = sectionInfo(c)
		}
		return res, nil
	}
	pages := bodyPages(text)
	res.Pages = len(pages)
	if page > len(pages) {
		return res, pageError(page, len(pages), s.ID)
	}
	res.Content = pages[page-1]
	return res, nil
}

// sectionInfo is a sub-section as read_section's sections list it: its children only counted.
func sectionInfo(s pipeline.Section) pipeline.SectionInfo {
	return pipeline.SectionInfo{ID: s.ID, Title: s.Title, Bytes: s.Bytes(), Parts: len(s.Children)}
}

func pageError(page, pages int, id string) error {
	return promptlib.Errorf(promptlib.CodeInvalidInput, "page %d of section %s, which has %d %s; pages start at 1", page, id, pages, plural("page", pages))
}

// tableRoom is the room a page of a table of sub-sections leaves for its sub-sections: the rest
// is its header and the line saying how to go on.
const tableRoom = bodyPageBytes - 1000

// tablePages cuts a list of sub-sections into pages that fit tableRoom. A sub-section costs its
// line and its entry in the result's sections: the line rides twice (as the text and in
// content), so a page of 40 KB is about 80 KB on the wire, as a page of a body is.
func tablePages(children []pipeline.Section) [][]pipeline.Section {
	var pages [][]pipeline.Section
	size, from := 0, 0
	for i, c := range children {
		entry, _ := json.Marshal(sectionInfo(c))
		n := len(pipeline.TableLine(c)) + 1 + len(entry) + 1
		if i > from && size+n > tableRoom {
			pages = append(pages, children[from:i])
			size, from = 0, i
		}
		size += n
	}
	return append(pages, children[from:])
}

// tableText is one page of the table of a section's sub-sections, saying why the model gets a
// table and what to read next.
func tableText(ref string, s pipeline.Section, pages [][]pipeline.Section, page int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Section %s %s is %s, too large to return whole, so here are its %d sub-sections. "+
		"Read one with read_section {\"ref\": %q, \"section\": \"ID\"}; read in order, they are the section exactly.\n",
		s.ID, s.Title, pipeline.HumanBytes(s.Bytes()), len(s.Children), ref)
	for _, c := range pages[page-1] {
		b.WriteString(pipeline.TableLine(c))
		b.WriteString("\n")
	}
	if len(pages) > 1 {
		on := pages[page-1]
		fmt.Fprintf(&b, "\n---\nSub-sections %s to %s of %d (page %d of %d)", on[0].ID, on[len(on)-1].ID, len(s.Children), page, len(pages))
		if page < len(pages) {
			fmt.Fprintf(&b, "; the next: read_section {\"ref\": %q, \"section\": %q, \"page\": %d}", ref, s.ID, page+1)
		}
		b.WriteString(".\n")
	}
	return b.String()
}

// sectionResult is read_section's answer; its text is the section itself (or the table of its
// sub-sections), not JSON.
type sectionResult struct {
	Ref     string `json:"ref"`
	Section string `json:"section"`
	Bytes   int    `json:"bytes"`
	Content string `json:"content"`
	Page    int    `json:"page"`
	Pages   int    `json:"pages"`
	// Sections, when present, are the sub-sections Content lists: the section was too large to
	// return whole.
	Sections []pipeline.SectionInfo `json:"sections,omitempty"`
	title    string
}

// ResultText is the section itself. A page of a longer section says so after it, for the model
// reads the text, not page and pages; structuredContent's content stays exact.
func (s sectionResult) ResultText() string {
	if s.Pages == 1 || s.Sections != nil {
		return s.Content
	}
	note := fmt.Sprintf("\n---\nPage %d of %d of section %s %s (%s in all)", s.Page, s.Pages, s.Section, s.title, pipeline.HumanBytes(s.Bytes))
	if s.Page < s.Pages {
		note += fmt.Sprintf("; the next: read_section {\"ref\": %q, \"section\": %q, \"page\": %d}.\n", s.Ref, s.Section, s.Page+1)
	} else {
		note += ": the section's end.\n"
	}
	if !strings.HasSuffix(s.Content, "\n") {
		note = "\n" + note
	}
	return s.Content + note
}

// sectionError says what to do about a section that cannot be read.
func sectionError(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	pe := &promptlib.Error{Code: promptlib.CodeInvalidInput, Message: strings.TrimPrefix(err.Error(), "pipeline: "), Err: err}
	// INVALID_INPUT's hint is to fix a field, which for a ref invites retyping it: a ref that
	// is unknown here (never made, or evicted) comes back only by making it again.
	switch {
	case errors.Is(err, pipeline.ErrUnknownRef):
		pe.Advice = refAdvice
	case errors.Is(err, pipeline.ErrUnknownSection):
		pe.Advice = "Use one of the section ids the message lists, or the ids in the index the ref came with; read_section on a section with parts lists its sub-sections."
	}
	return pe
}

// refAdvice is the hint for a ref read_section does not know.
const refAdvice = "Do not retype or guess a ref: call the tool, or read the resource or prompt, that gave this ref again with the same arguments, " +
	"and read sections with the ref its new result names."
