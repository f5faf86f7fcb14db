package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// Results are sized for a model's context: by default lists carry summaries, not bodies, and
// stay small even beside a 100 KB prompt; a body over 100 KB is read in pages.
func TestResultsSizedForAModel(t *testing.T) {
	lib := librarytest.New(t, 300)
	huge := strings.Repeat("Line of a very long runbook with <tags> & \"quotes\".\n", 5000) // ~260 KB
	lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('B16B16B1-0000-4000-8000-000000000001', 'Huge Runbook Review', ?, NULL, NULL, NULL, NULL, 1900000000, 1900000000)`, huge)
	// 160 folders with long names, nested, each holding nothing: listed with includeEmpty.
	for i := range 160 {
		parent := any(nil)
		if i%2 == 1 {
			parent = fmt.Sprintf("F01DE500-0000-4000-8000-%012d", i-1)
		}
		lib.Exec(t, `INSERT INTO folders (id, name, parent_id, position, created_at, updated_at) VALUES (?, ?, ?, ?, 1700000000, 1700000000)`,
			fmt.Sprintf("F01DE500-0000-4000-8000-%012d", i), fmt.Sprintf("Team area %03d with a long descriptive folder name", i), parent, 1000+i)
	}
	s := serve(t, testHome(t), "--library", lib.Dir)

	textBytes := func(tb testing.TB, name string, args map[string]any, out any) int {
		tb.Helper()
		return len(resultJSON(tb, s.call(tb, name, args, out)))
	}

	t.Run("default list and search stay under 32 KB", func(t *testing.T) {
		for _, call := range []struct {
			name string
			args map[string]any
		}{
			{"list_prompts", map[string]any{}},
			{"search_prompts", map[string]any{"query": "review"}},
		} {
			var page mcpserver.PromptsResult
			n := textBytes(t, call.name, call.args, &page)
			if n > 32<<10 {
				t.Errorf("%s %v: %d bytes of text, want at most 32 KB", call.name, call.args, n)
			}
			if len(page.Prompts) == 0 || page.Prompts[0].Content != nil || page.Prompts[0].Summary == "" || page.Prompts[0].ContentBytes == 0 {
				t.Errorf("%s: items %+v, want summaries and sizes without bodies", call.name, page.Prompts[:min(1, len(page.Prompts))])
			}
			if page.NextOffset == nil || *page.NextOffset != len(page.Prompts) {
				t.Errorf("%s: nextOffset %v after %d of %d", call.name, page.NextOffset, len(page.Prompts), page.Total)
			}
		}
	})

	t.Run("list_folders stops at the limit and says so", func(t *testing.T) {
		var folders mcpserver.FoldersResult
		n := textBytes(t, "list_folders", map[string]any{"includeEmpty": true}, &folders)
		if n > mcpserver.MaxResultBytes || !folders.Truncated || folders.Total < 160 || len(folders.Folders) >= folders.Total {
			t.Errorf("list_folders: %d bytes of text, %d of %d folders, truncated %v; want at most %d bytes and truncated",
				n, len(folders.Folders), folders.Total, folders.Truncated, mcpserver.MaxResultBytes)
		}
		// The shallowest are kept: every top-level folder, the last one too, where the first
		// subtrees went whole and the later top-level folders not at all.
		top := 0
		for _, f := range folders.Folders {
			if f.ParentID == nil && strings.HasPrefix(f.Name, "Team area") {
				top++
			}
		}
		if top != 80 {
			t.Errorf("list_folders lists %d of the 80 top-level team folders, want all", top)
		}
		// What is left out is one parentId away.
		var below mcpserver.FoldersResult
		textBytes(t, "list_folders", map[string]any{"includeEmpty": true, "parentId": "f01de500-0000-4000-8000-000000000158"}, &below)
		if len(below.Folders) != 1 || below.Folders[0].Name != "Team area 159 with a long descriptive folder name" || below.Truncated {
			t.Errorf("list_folders below team area 158: %+v, want team area 159", below)
		}
		s.callError(t, "list_folders", map[string]any{"parentId": "F01DE500-0000-4000-8000-999999999999"}, "FOLDER_NOT_FOUND")
	})

	t.Run("a paged resource is not typed as the JSON it no longer is", func(t *testing.T) {
		var req mcp.ReadResourceRequest
		req.Params.URI = "prompteka://library"
		res, err := s.ReadResource(context.Background(), req)
		if err != nil || len(res.Contents) != 1 {
			t.Fatalf("read prompteka://library: %v, %v", res, err)
		}
		tc, _ := res.Contents[0].(mcp.TextResourceContents)
		if len(tc.Text) > 32<<10 || tc.MIMEType != "text/markdown" || json.Valid([]byte(tc.Text)) {
			t.Errorf("prompteka://library: %d bytes typed %s; want its first page, typed text/markdown", len(tc.Text), tc.MIMEType)
		}
	})

	t.Run("includeContent ends a page early and says where to go on", func(t *testing.T) {
		var page mcpserver.PromptsResult
		n := textBytes(t, "list_prompts", map[string]any{"includeContent": true, "limit": 500}, &page)
		if n > mcpserver.MaxResultBytes {
			t.Errorf("%d bytes of text, want at most %d", n, mcpserver.MaxResultBytes)
		}
		if page.Prompts[0].Title != "Huge Runbook Review" || !page.Prompts[0].ContentOmitted || page.Prompts[0].Content != nil {
			t.Errorf("first (newest) item %+v, want the huge prompt listed without its content", page.Prompts[0].Title)
		}
		if page.NextOffset == nil || len(page.Prompts) >= 500 {
			t.Errorf("got %d prompts and nextOffset %v, want a page ended early", len(page.Prompts), page.NextOffset)
		}
		for _, p := range page.Prompts[1:] {
			if p.Content == nil || len(*p.Content) != p.ContentBytes {
				t.Fatalf("%s: content missing or cut", p.Title)
			}
		}
	})

	t.Run("get_prompt pages a body over the limit, and the pages join to the body", func(t *testing.T) {
		var got strings.Builder
		pages := 1
		for page := 1; page <= pages; page++ {
			var p mcpserver.PromptResult
			n := textBytes(t, "get_prompt", map[string]any{"id": "B16B16B1-0000-4000-8000-000000000001", "page": page}, &p)
			if n > mcpserver.MaxResultBytes {
				t.Errorf("page %d: %d bytes of text", page, n)
			}
			if p.ContentBytes != len(huge) || p.Page != page {
				t.Fatalf("page %d: contentBytes %d page %d", page, p.ContentBytes, p.Page)
			}
			pages = p.Pages
			got.WriteString(p.Content)
		}
		if pages < 2 || got.String() != huge {
			t.Errorf("%d pages joined to %d bytes, want the %d-byte body exactly", pages, got.Len(), len(huge))
		}
		s.callError(t, "get_prompt", map[string]any{"id": "B16B16B1-0000-4000-8000-000000000001", "page": pages + 1}, "INVALID_INPUT")
	})
}
