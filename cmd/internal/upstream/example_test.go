package upstream_test

import (
	"context"
	"fmt"

	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
)

// A server's whole life: start in the background, learn when its tools come and go, call one,
// and turn a failure into the tool result a client reads.
func Example() {
	sup := upstream.New(map[string]gate.ServerSpec{
		"docs": {Command: "docs-mcp", Args: []string{"--stdio"}, Env: map[string]string{"TOKEN": "${DOCS_TOKEN}"}},
	}, upstream.Options{})
	defer sup.Close()
	sup.OnChange(func() {
		for _, t := range sup.Server("docs").Tools() {
			fmt.Println("serve", t.Tool.Name) // docs__search, ...; then send tools/list_changed
		}
	})
	sup.Start(context.Background()) // returns at once

	res, err := sup.CallTool(context.Background(), "docs__search", map[string]any{"q": "retry"}, nil)
	if te := upstream.ToolError(err); te != nil {
		fmt.Println(te.Code, te.Message, te.Hint()) // UPSTREAM_UNAVAILABLE or UPSTREAM_ERROR
		return
	}
	if err != nil {
		return // the caller cancelled: no response at all
	}
	fmt.Println(res.IsError) // the upstream's own result, isError included
}
