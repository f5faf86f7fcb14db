package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/schemas"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

// elements is a JSON-array-like text of n elements and the sections over it: one parent, one
// child per element, as section-split makes of a range.
func elements(n int) (string, pipeline.Section) {
	var b strings.Builder
	parent := pipeline.Section{ID: "1", Title: fmt.Sprintf("[0–%d]", n-1)}
	for i := 0; i < n; i++ {
		start := b.Len()
		fmt.Fprintf(&b, "{\"id\": %d, \"name\": \"item-%d\", \"ok\": true},\n", i, i)
		parent.Children = append(parent.Children, pipeline.Section{ID: fmt.Sprintf("1.%d", i+1), Title: fmt.Sprintf("[%d]", i), Start: start, End: b.Len()})
	}
	parent.End = b.Len()
	return b.String(), parent
}

// checkSectionResult holds a read_section answer to its output schema and to the bound every
// answer keeps, and returns the text the model reads.
func checkSectionResult(tb testing.TB, res sectionResult) string {
	tb.Helper()
	data, err := json.Marshal(res)
	if err != nil {
		tb.Fatal(err)
	}
	if err := schemas.Validate("read_section.output", data); err != nil {
		tb.Fatalf("read_section result breaks its output schema: %v\n%.300s", err, data)
	}
	text := res.ResultText()
	if len(res.Content) > bodyPageBytes || len(text) > bodyPageBytes+500 || len(text)+len(data) > MaxResultBytes {
		tb.Fatalf("section %s page %d: content %d bytes, text %d bytes, JSON %d bytes; want content within %d and text and JSON within %d",
			res.Section, res.Page, len(res.Content), len(text), len(data), bodyPageBytes, MaxResultBytes)
	}
	return text
}

const testRef = "0123456789abcdef0123456789abcdef"

// A section that fits comes back whole, sub-sections or not.
func TestReadSectionSmallIsWhole(t *testing.T) {
	text, s := elements(100)
	res, err := readSection(testRef, s, text, 1)
	if err != nil {
		t.Fatal(err)
	}
	if got := checkSectionResult(t, res); got != text || res.Content != text || res.Pages != 1 || res.Sections != nil {
		t.Errorf("a %d-byte section: content %d bytes, text %d bytes, pages %d, %d sections; want it whole", len(text), len(res.Content), len(got), res.Pages, len(res.Sections))
	}
	if _, err := readSection(testRef, s, text, 2); err == nil || !strings.Contains(err.Error(), "has 1 page; pages start at 1") {
		t.Errorf("page 2 of a one-page section: %v", err)
	}
}

// A section too large to return whole, with sub-sections, answers with their table: every
// sub-section once, as the index shows sections, over as many pages as it takes, each saying
// how to go on.
func TestReadSectionLargeParentIsItsTable(t *testing.T) {
	for _, n := range []int{1000, 2000} {
		text, s := elements(n)
		if len(text) <= bodyPageBytes {
			t.Fatalf("fixture of %d elements is %d bytes, want over %d", n, len(text), bodyPageBytes)
		}
		res, err := readSection(testRef, s, text, 1)
		if err != nil {
			t.Fatal(err)
		}
		var listed []string
		for page := 1; page <= res.Pages; page++ {
			res, err := readSection(testRef, s, text, page)
			if err != nil {
				t.Fatal(err)
			}
			got := checkSectionResult(t, res)
			if res.Bytes != len(text) || res.Sections == nil || got != res.Content {
				t.Fatalf("%d elements, page %d: bytes %d, %d sections; want %d bytes and the table as the text", n, page, res.Bytes, len(res.Sections), len(text))
			}
			if !strings.Contains(got, "too large to return whole") || !strings.Contains(got, `"section": "ID"`) {
				t.Errorf("%d elements, page %d: the table does not say why or what to read:\n%.400s", n, page, got)
			}
			next := fmt.Sprintf(`"page": %d}`, page+1)
			if (page < res.Pages) != strings.Contains(got, next) {
				t.Errorf("%d elements, page %d of %d: names the next page: %v", n, page, res.Pages, strings.Contains(got, next))
			}
			for _, c := range res.Sections {
				listed = append(listed, c.ID)
				sub, _ := pipeline.Find(s.Children, c.ID)
				if !strings.Contains(got, pipeline.TableLine(sub)+"\n") {
					t.Fatalf("page %d does not show %s as the index would: %q", page, c.ID, pipeline.TableLine(sub))
				}
			}
		}
		if len(listed) != n || listed[0] != "1.1" || listed[n-1] != fmt.Sprintf("1.%d", n) {
			t.Errorf("%d elements: the table's pages list %d sub-sections", n, len(listed))
		}
		if n == 2000 && res.Pages < 2 {
			t.Errorf("2000 sub-sections fit one page of %d bytes", len(res.Content))
		}
		if _, err := readSection(testRef, s, text, res.Pages+1); err == nil {
			t.Errorf("%d elements: page %d of %d answered", n, res.Pages+1, res.Pages)
		}
	}
}

// A section too large to return whole, without sub-sections, comes in exact pages, each saying
// which it is and how to go on.
func TestReadSectionLargeLeafIsPaged(t *testing.T) {
	text := strings.Repeat("a line of a log that no splitter could cut further\n", 2500)
	s := pipeline.Section{ID: "3", Title: "log", Start: 0, End: len(text)}
	first, err := readSection(testRef, s, text, 1)
	if err != nil {
		t.Fatal(err)
	}
	if first.Pages < 3 {
		t.Fatalf("a %d-byte section has %d pages", len(text), first.Pages)
	}
	var joined strings.Builder
	for page := 1; page <= first.Pages; page++ {
		res, err := readSection(testRef, s, text, page)
		if err != nil {
			t.Fatal(err)
		}
		got := checkSectionResult(t, res)
		joined.WriteString(res.Content)
		if res.Sections != nil || !strings.HasPrefix(got, res.Content) || !strings.Contains(got[len(res.Content):], fmt.Sprintf("Page %d of %d of section 3", page, res.Pages)) {
			t.Errorf("page %d: the text does not say which page it is:\n%s", page, got[len(res.Content):])
		}
		next := fmt.Sprintf(`{"ref": %q, "section": "3", "page": %d}`, testRef, page+1)
		if (page < res.Pages) != strings.Contains(got, next) {
			t.Errorf("page %d of %d: names the next page: %v", page, res.Pages, strings.Contains(got, next))
		}
	}
	if joined.String() != text {
		t.Errorf("the pages joined are %d bytes, want the section's %d exactly", joined.Len(), len(text))
	}
	if _, err := readSection(testRef, s, text, first.Pages+1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("has %d pages", first.Pages)) {
		t.Errorf("page past the end: %v", err)
	}
}

// What the pipeline transformed is kept on a call only when its traffic event is traced (serve
// --trace-content, with a traffic file), where the console's Pipeline screen runs it again:
// kept on every call, a result's whole text stayed in memory until its response left.
func TestPipelineInputKeptOnlyWhenTraced(t *testing.T) {
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: t.TempDir(), NoLLM: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	p := &contentPipeline{core: &core{log: slog.New(slog.DiscardHandler)}, engine: e}
	big := strings.Repeat("## Step\n\nCheck the replica lag first.\n\n", 2000) // paged by the default model
	const uri = "prompteka://prompt/big"
	read := p.resources(func(context.Context, mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
		return []mcp.ResourceContents{mcp.TextResourceContents{URI: uri, Text: big}}, nil
	})
	for _, tc := range []struct {
		name        string
		trace, file bool
		want        bool
	}{
		{"lengths only", false, true, false},
		{"traced", true, true, true},
		{"traced without a traffic file", true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obs := &observer{log: slog.New(slog.DiscardHandler), trace: tc.trace}
			if tc.file {
				if obs.events, err = traffic.Open(t.TempDir(), time.Now()); err != nil {
					t.Fatal(err)
				}
				t.Cleanup(obs.close)
			}
			// The call record as the wire opens it for the request.
			w := obs.wire(strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}`+"\n"+
				`{"jsonrpc":"2.0","id":2,"method":"resources/read","params":{"uri":"`+uri+`"}}`+"\n"), io.Discard)
			forwarded := make(chan struct{})
			go func() { io.Copy(io.Discard, w.pr); close(forwarded) }()
			if err := w.read(); err != nil {
				t.Fatal(err)
			}
			w.pw.Close()
			<-forwarded
			c := w.calls["2"]
			if c == nil {
				t.Fatal("the wire opened no call for the request")
			}
			var req mcp.ReadResourceRequest
			req.Params.URI = uri
			if _, err := read(withCall(t.Context(), c), req); err != nil {
				t.Fatal(err)
			}
			if c.pipeline == nil || c.pipeline.BytesBefore != len(big) {
				t.Fatalf("the call's pipeline part is %+v; want what the default model did to %d bytes", c.pipeline, len(big))
			}
			if kept := c.input.text == big && c.input.typ == "resource" && c.input.source == uri; kept != tc.want || !tc.want && c.input != (tracedInput{}) {
				t.Errorf("the call keeps %d bytes of input typed %q from %q; want the whole input kept: %v", len(c.input.text), c.input.typ, c.input.source, tc.want)
			}
		})
	}
}
