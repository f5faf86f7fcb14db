package gate_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// The flow of a gated MCP session: load the project, index the library snapshot, open a
// session, answer begin_session, then read_prompts.
func Example() {
	dir, _ := os.MkdirTemp("", "projects")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "web.yaml"), []byte("folder: Engineering\npriorities:\n  golden-rules: 10\n  sql-style: 7\n"), 0o600)

	proj, err := gate.LoadProject(dir, "web")
	if err != nil {
		fmt.Println(err)
		return
	}
	eng := "7A1C0D4E-0000-4000-8000-000000000001"
	lib := promptlib.Library{
		Folders: []promptlib.Folder{{ID: eng, Name: "Engineering"}},
		Prompts: []promptlib.Prompt{
			{ID: "7A1C0D4E-0000-4000-8000-000000000002", Title: "Golden Rules", Content: "Never push to main.\n", FolderID: &eng},
			{ID: "7A1C0D4E-0000-4000-8000-000000000003", Title: "SQL Style", Content: "Name tables in the plural.\n\n## Migrations\n", FolderID: &eng},
			{ID: "7A1C0D4E-0000-4000-8000-000000000004", Title: "Go Errors", Content: "Wrap errors with context.\n", FolderID: &eng},
		},
	}
	// The server builds the index from the Docs of its library view; LibraryIndex does the same
	// from a library in memory. Bodies are loaded only for what a briefing sends in full.
	ix, scope, err := gate.LibraryIndex(lib, proj)
	if err != nil {
		fmt.Println(err)
		return
	}
	session := gate.NewSession(proj)
	r := gate.Renderer{Texts: gate.SystemTexts(scope.SystemPrompts(lib.Prompts)), Tools: []string{"search_prompts", "read_prompts"}}

	b := session.Begin(ix, []string{"migrations"})
	text, _, err := r.Briefing(context.Background(), b, gate.LibraryBodies(lib))
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ungated:", b.Ungated, "sent:", strings.Join(append(names(b.Critical), names(b.Full)...), ", "))
	fmt.Println(strings.Contains(text, "Never push to main."))

	res := session.Read(ix, []string{"errors", "sql"}).Result("")
	out, _ := json.Marshal(map[string][]string{"matched": res.Matched, "alreadyProvided": res.AlreadyProvided})
	fmt.Println(string(out))
	// Output:
	// ungated: true sent: golden-rules, sql-style
	// true
	// {"alreadyProvided":["sql-style"],"matched":["go-errors"]}
}

func names(es []gate.Entry) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.Name)
	}
	return out
}
