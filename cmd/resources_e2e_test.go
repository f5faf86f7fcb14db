package cmd

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// The library as resources, end to end: listed, read, refused and completed by a real client
// of the real binary.
func TestResourcesEndToEnd(t *testing.T) {
	lib := librarytest.FromLibrary(t, librarytest.Fixture())
	s := serve(t, testHome(t), "--library", lib.Dir)
	ctx := context.Background()

	uris := s.allResourceURIs(t)
	for _, want := range []string{"prompteka://library", "prompteka://prompt/" + librarytest.ReviewID, "prompteka://folder/" + librarytest.WorkID} {
		if !slices.Contains(uris, want) {
			t.Errorf("resources/list lacks %s: %q", want, uris)
		}
	}
	tmpl, err := s.ListResourceTemplates(ctx, mcp.ListResourceTemplatesRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var raw []string
	for _, rt := range tmpl.ResourceTemplates {
		raw = append(raw, rt.URITemplate.Raw())
	}
	if !slices.Contains(raw, "prompteka://prompt/{id}") || !slices.Contains(raw, "prompteka://folder/{id}") {
		t.Errorf("templates: got %q", raw)
	}

	read := func(uri string) (string, error) {
		var req mcp.ReadResourceRequest
		req.Params.URI = uri
		res, err := s.ReadResource(ctx, req)
		if err != nil {
			return "", err
		}
		if len(res.Contents) != 1 {
			t.Fatalf("%s: got %d contents", uri, len(res.Contents))
		}
		tc, ok := res.Contents[0].(mcp.TextResourceContents)
		if !ok {
			t.Fatalf("%s: got %T", uri, res.Contents[0])
		}
		return tc.MIMEType + "\n" + tc.Text, nil
	}
	for uri, wantPrefix := range map[string]string{
		"prompteka://prompt/" + librarytest.ReviewID: "text/markdown\n# Code Review\n\nReview this",
		"prompteka://folder/" + librarytest.WorkID:   `application/json` + "\n" + `{"id":"` + librarytest.WorkID + `","name":"Work"`,
		"prompteka://library":                        "application/json\n{\"prompts\":3,",
	} {
		got, err := read(uri)
		if err != nil {
			t.Errorf("read %s: %v", uri, err)
		} else if !strings.HasPrefix(got, wantPrefix) {
			t.Errorf("read %s:\n got %.120q\nwant prefix %q", uri, got, wantPrefix)
		}
	}
	if _, err := read("prompteka://prompt/00000000-0000-4000-8000-000000000000"); !errors.Is(err, mcp.ErrResourceNotFound) || !strings.Contains(err.Error(), "search_prompts") {
		t.Errorf("unknown prompt id: got %v, want resource-not-found with a hint", err)
	}

	var req mcp.CompleteRequest
	req.Params.Ref = mcp.ResourceReference{Type: "ref/resource", URI: "prompteka://prompt/{id}"}
	req.Params.Argument = mcp.CompleteArgument{Name: "id", Value: "security"}
	comp, err := s.Complete(ctx, req)
	if err != nil {
		t.Fatalf("completion/complete: %v", err)
	}
	if want := []string{"D0000000-0000-4000-8000-000000000003"}; !slices.Equal(comp.Completion.Values, want) {
		t.Errorf("complete %q: got %q, want %q", req.Params.Argument.Value, comp.Completion.Values, want)
	}
}
