package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
)

func TestResourcesList(t *testing.T) {
	ts := newTestSurface(t, promptFixture())
	var got []string
	cursor := ""
	for {
		var res mcp.ListResourcesResult
		if e := ts.rpc(t, "resources/list", map[string]any{"cursor": cursor}, &res); e != nil {
			t.Fatalf("resources/list: %+v", e)
		}
		for _, r := range res.Resources {
			got = append(got, r.URI+" "+r.MIMEType)
		}
		if res.NextCursor == "" {
			break
		}
		cursor = string(res.NextCursor)
	}
	sort.Strings(got)
	want := []string{
		"prompteka://folder/" + workID + " application/json",
		"prompteka://library application/json",
		"prompteka://prompt/" + reviewID + " text/markdown",
		"prompteka://prompt/D0000000-0000-4000-8000-000000000002 text/markdown",
		"prompteka://prompt/D0000000-0000-4000-8000-000000000003 text/markdown",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("resources/list (system folder excluded):\n got %q\nwant %q", got, want)
	}

	var tmpl mcp.ListResourceTemplatesResult
	if e := ts.rpc(t, "resources/templates/list", nil, &tmpl); e != nil {
		t.Fatalf("resources/templates/list: %+v", e)
	}
	var templates []string
	for _, rt := range tmpl.ResourceTemplates {
		templates = append(templates, rt.URITemplate.Raw()+" "+rt.MIMEType)
	}
	if want := []string{"prompteka://folder/{id} application/json", "prompteka://prompt/{id} text/markdown"}; !reflect.DeepEqual(templates, want) {
		t.Errorf("templates: got %q, want %q", templates, want)
	}
}

// Every resource appears exactly once however the pages fall, also when a project server
// gives many resources one name, or a library prompt's name.
func TestResourcesListPagesCoverEveryResource(t *testing.T) {
	ts := newTestSurface(t, sampleLibrary(3*promptPageSize+17))
	snap := ts.view.current()
	own := 1 + snap.prompts.len() + len(snap.folders)
	listAll := func() (seen map[string]int, pages int) {
		seen = map[string]int{}
		cursor := ""
		for {
			var res mcp.ListResourcesResult
			if e := ts.rpc(t, "resources/list", map[string]any{"cursor": cursor}, &res); e != nil {
				t.Fatalf("resources/list: %+v", e)
			}
			pages++
			for _, r := range res.Resources {
				seen[r.URI]++
			}
			if res.NextCursor == "" {
				return seen, pages
			}
			cursor = string(res.NextCursor)
		}
	}
	check := func(what string, want int) {
		t.Helper()
		seen, pages := listAll()
		if len(seen) != want {
			t.Errorf("%s: got %d distinct resources over %d pages, want %d", what, len(seen), pages, want)
		}
		for uri, n := range seen {
			if n != 1 {
				t.Errorf("%s: %s listed %d times", what, uri, n)
			}
		}
		if pages < 2 {
			t.Errorf("%s: got %d pages, want several", what, pages)
		}
	}
	check("the library alone", own)

	var ups []mcp.Resource
	for i := range promptPageSize + 50 { // more than a page of one name
		ups = append(ups, mcp.Resource{URI: fmt.Sprintf("docs://readme/%04d", i), Name: "readme"})
	}
	for i := range 3 { // a library prompt's name and the library's
		ups = append(ups, mcp.Resource{URI: fmt.Sprintf("docs://clash/%d", i), Name: snap.prompts.nameAt(promptPageSize - 1)})
		ups = append(ups, mcp.Resource{URI: fmt.Sprintf("docs://library/%d", i), Name: libraryResource.Name})
	}
	slices.SortFunc(ups, func(a, b mcp.Resource) int { return compareResource(a.Name, a.URI, b.Name, b.URI) })
	ts.up = &upstreams{listing: ups}
	check("with a project server's resources", own+len(ups))
}

func TestResourcesRead(t *testing.T) {
	ts := newTestSurface(t, promptFixture())
	tests := []struct {
		uri      string
		wantMIME string
		check    func(t *testing.T, text string)
		wantCode int
		wantIn   string
	}{
		{uri: "prompteka://prompt/" + reviewID, wantMIME: "text/markdown", check: func(t *testing.T, text string) {
			if !strings.HasPrefix(text, "# Code Review\n\nReview this **{{language}}** code.") {
				t.Errorf("got %q, want the title as a heading, then the body", text)
			}
		}},
		{uri: "prompteka://prompt/" + strings.ToLower(reviewID), wantMIME: "text/markdown", check: func(t *testing.T, text string) {
			if !strings.HasPrefix(text, "# Code Review\n\n") {
				t.Errorf("lower-case id: got %q", text)
			}
		}},
		{uri: "prompteka://folder/" + workID, wantMIME: "application/json", check: func(t *testing.T, text string) {
			var doc folderDoc
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Name != "Work" || doc.Path != "Work" || len(doc.Prompts) != 1 || doc.Prompts[0].ID != reviewID || doc.Prompts[0].Name != "code-review" {
				t.Errorf("got %+v, want folder Work holding code-review", doc)
			}
		}},
		{uri: "prompteka://folder/" + systemID, wantMIME: "application/json", check: func(t *testing.T, text string) {
			var doc folderDoc
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatal(err)
			}
			if len(doc.Subfolders) != 1 || doc.Subfolders[0].Name != "texts" {
				t.Errorf("got subfolders %+v, want texts", doc.Subfolders)
			}
		}},
		{uri: "prompteka://library", wantMIME: "application/json", check: func(t *testing.T, text string) {
			var doc libraryDoc
			if err := json.Unmarshal([]byte(text), &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Prompts != 3 || doc.Folders != 1 || doc.TopLevelPrompts != 2 || len(doc.Tree) != 1 || doc.Tree[0].PromptCount != 1 {
				t.Errorf("got %+v, want 3 prompts, 2 at the top, one folder Work holding 1", doc)
			}
		}},
		{uri: "prompteka://prompt/00000000-0000-4000-8000-000000000000", wantCode: mcp.RESOURCE_NOT_FOUND, wantIn: "search_prompts"},
		{uri: "prompteka://folder/00000000-0000-4000-8000-000000000000", wantCode: mcp.RESOURCE_NOT_FOUND, wantIn: "list_folders"},
		{uri: "prompteka://nothing", wantCode: mcp.RESOURCE_NOT_FOUND, wantIn: "prompteka://prompt/{id}"},
		{uri: "file:///etc/passwd", wantCode: mcp.RESOURCE_NOT_FOUND, wantIn: "file:///etc/passwd"},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			var res struct {
				Contents []struct {
					URI      string `json:"uri"`
					MIMEType string `json:"mimeType"`
					Text     string `json:"text"`
				} `json:"contents"`
			}
			e := ts.rpc(t, "resources/read", map[string]any{"uri": tt.uri}, &res)
			if tt.wantCode != 0 {
				if e == nil || e.Code != tt.wantCode || !strings.Contains(e.Message, tt.wantIn) {
					t.Fatalf("got %+v, want code %d naming %q", e, tt.wantCode, tt.wantIn)
				}
				return
			}
			if e != nil {
				t.Fatalf("resources/read: %+v", e)
			}
			if len(res.Contents) != 1 || res.Contents[0].MIMEType != tt.wantMIME || res.Contents[0].URI != tt.uri {
				t.Fatalf("got %+v, want one %s content for %s", res.Contents, tt.wantMIME, tt.uri)
			}
			tt.check(t, res.Contents[0].Text)
		})
	}
}

// JSON resources are written as tool results are: "R&D <team>" as it is, not "R\u0026D
// \u003cteam\u003e", which the model reads literally.
func TestResourcesJSONKeepsAmpersandsAndBrackets(t *testing.T) {
	lib := promptFixture()
	lib.Folders[2].Name = "R&D <team>"
	lib.Prompts[0].Title = "Review <code> & tests"
	ts := newTestSurface(t, lib)
	for _, uri := range []string{"prompteka://folder/" + workID, "prompteka://library"} {
		var res struct {
			Contents []struct {
				Text string `json:"text"`
			} `json:"contents"`
		}
		if e := ts.rpc(t, "resources/read", map[string]any{"uri": uri}, &res); e != nil || len(res.Contents) != 1 {
			t.Fatalf("resources/read %s: %+v, %d contents", uri, e, len(res.Contents))
		}
		if text := res.Contents[0].Text; !strings.Contains(text, `"R&D <team>"`) || strings.Contains(text, `\u00`) {
			t.Errorf("%s reads %s; want the names as they are", uri, text)
		}
	}
}

func TestResourcesOfAProject(t *testing.T) {
	work := gate.NoProject()
	work.Name, work.Folder = "work", "Work"
	ts := newScopedTestSurface(t, promptFixture(), &work, nil)
	if got, want := ts.listPromptNames(t), []string{"code-review"}; !reflect.DeepEqual(got, want) {
		t.Errorf("prompts/list: got %q, want %q", got, want)
	}
	tests := []struct {
		uri    string
		wantIn string // "" means readable
	}{
		{"prompteka://prompt/" + reviewID, ""},
		{"prompteka://folder/" + workID, ""},
		{"prompteka://prompt/D0000000-0000-4000-8000-000000000003", "outside the project"},
		{"prompteka://folder/" + systemID, "outside the project"},
	}
	for _, tt := range tests {
		e := ts.rpc(t, "resources/read", map[string]any{"uri": tt.uri}, nil)
		switch {
		case tt.wantIn == "" && e != nil:
			t.Errorf("read %s: %+v", tt.uri, e)
		case tt.wantIn != "" && (e == nil || e.Code != mcp.RESOURCE_NOT_FOUND || !strings.Contains(e.Message, tt.wantIn)):
			t.Errorf("read %s: got %+v, want resource-not-found saying %q", tt.uri, e, tt.wantIn)
		}
	}
}

// A project server's template is left out when it could take reads of mcpctl's own resources:
// mcp-go tries templates in no fixed order, so it would win some of them at random.
func TestReservedTemplate(t *testing.T) {
	for raw, reserved := range map[string]bool{
		"prompteka://notes/{id}":  true, // mcpctl's scheme
		"prompteka://prompt/{id}": true, // mcpctl's own template
		"{scheme}://{+rest}":      true, // matches everything, mcpctl's URIs included
		"{+uri}":                  true,
		"test://item/{id}":        false,
		"file:///{+path}":         false,
	} {
		if got := ReservedTemplate(mcp.NewResourceTemplate(raw, "t")); got != reserved {
			t.Errorf("ReservedTemplate(%s) = %v, want %v", raw, got, reserved)
		}
	}
	if !ReservedResource(libraryURI) || ReservedResource("test://prompteka://library") {
		t.Error("ReservedResource: the prompteka: scheme is mcpctl's, and only it")
	}
}
