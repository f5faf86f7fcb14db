package queue_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

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

// A server on a standalone library: it runs the elected processor with a status, writes through
// a writer that fails fast when that processor cannot run, and reports both in health_check.
func ExampleRunElected() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	if err := queue.CreateLibrary(context.Background(), dir, promptlib.Library{}); err != nil {
		panic(err)
	}
	q := filepath.Join(dir, queue.QueueName)
	ctx, cancel := context.WithCancel(context.Background())
	status := &queue.ProcessorStatus{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		queue.RunElected(ctx, queue.ElectConfig{Dir: q, DB: filepath.Join(dir, queue.DBName), Retry: time.Second, Status: status})
	}()

	w := queue.NewWriter(q, nil).WithProcessor(status.Alive)
	res, err := w.Submit(ctx, promptlib.OpCreateFolder, promptlib.CreateFolderData{Name: "Ideas"})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Response.Status)

	state, pending, _ := queue.CheckDir(q) // health_check's queue state
	proc, _ := status.State()              // and its processor state
	fmt.Println(state, pending, proc)

	cancel()
	<-done
	// Output:
	// success
	// writable 0 running
}
