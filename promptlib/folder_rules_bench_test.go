package promptlib_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// BenchmarkApplyCreateFolder measures create_folder through Apply, which now reads every folder
// and checks the rules in Go (Unicode case folding) instead of one NOCASE query. Each op is
// rolled back, so the library keeps its size.
func BenchmarkApplyCreateFolder(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		b.Run(fmt.Sprintf("folders=%d", n), func(b *testing.B) {
			at := promptlib.Time{Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
			lib := promptlib.Library{}
			for i := range n {
				var parent *string
				if i > 0 {
					parent = promptlib.Ptr(lib.Folders[(i-1)/10].ID)
				}
				lib.Folders = append(lib.Folders, promptlib.Folder{ID: fmt.Sprintf("F0000000-0000-4000-8000-%012d", i),
					Name: fmt.Sprintf("Folder %d", i), ParentID: parent, Position: i, CreatedAt: at, UpdatedAt: at})
			}
			l := librarytest.FromLibrary(b, lib)
			op, err := promptlib.NewOperation(promptlib.OpCreateFolder, json.RawMessage(`{"name":"Über new"}`))
			if err != nil {
				b.Fatal(err)
			}
			ctx := context.Background()
			b.ResetTimer()
			for b.Loop() {
				tx, err := l.Writer.BeginTx(ctx, nil)
				if err != nil {
					b.Fatal(err)
				}
				if r := promptlib.Apply(ctx, tx, op); !r.OK() {
					b.Fatalf("create_folder: %+v", r)
				}
				tx.Rollback()
			}
			b.ReportMetric(float64(n), "folders")
		})
	}
}
