package queue_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

// A standalone library: the processor plays the app's part, the writer drops an operation and
// gets the answer.
func ExampleWriter_Submit() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	ctx := context.Background()
	if err := queue.CreateLibrary(ctx, dir, promptlib.Library{}); err != nil {
		panic(err)
	}
	db, _ := queue.OpenStore(filepath.Join(dir, queue.DBName))
	defer db.Close()
	p := queue.NewProcessor(filepath.Join(dir, queue.QueueName), db, nil)
	p.Start(ctx)
	defer p.Close()

	w := queue.NewWriter(filepath.Join(dir, queue.QueueName), nil)
	res, err := w.Submit(ctx, promptlib.OpCreateFolder, promptlib.CreateFolderData{Name: "Ideas"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Response.Status, res.Response.Message)
	// Output: success Folder 'Ideas' created
}
