package pipeline_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/mcpctl/mcpctl/pipeline"
)

// The server's use of an Engine: transform a large tool result with the model in force, send
// the text, and answer read_section from the ref.
func ExampleEngine_Transform() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: dir + "/config", CacheDir: dir + "/cache"})
	if err != nil {
		panic(err)
	}
	defer e.Close()
	var b strings.Builder
	b.WriteString("[")
	for i := range 300 {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"id": %d, "name": "item-%d"}`, i, i)
	}
	b.WriteString("]")
	text := b.String()

	out, err := e.Transform(context.Background(), pipeline.Request{
		Model:   "subindex",
		Content: pipeline.Content{Text: text, Type: pipeline.TypeToolResult, Source: "inventory/list"},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(strings.SplitN(out.Text, "\n", 2)[0])
	fmt.Println(out.Metrics.Model, out.Metrics.StageNames(), out.Metrics.BytesBefore, "bytes in")
	section, _ := e.ReadSection(context.Background(), out.Ref, "2.1")
	fmt.Println(section)
	// Output:
	// JSON array of 300 elements, 9.4 KB, in 3 sections:
	// subindex [section-split summarize-tree] 9381 bytes in
	// {"id": 131, "name": "item-131"},
}
