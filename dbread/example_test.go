package dbread_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

func Example() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "dbread-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	// The app's library: here written by a second connection, as Prompteka would.
	path := filepath.Join(dir, "prompts.db")
	app, err := librarytest.OpenWriter(path)
	if err != nil {
		log.Fatal(err)
	}
	defer app.Close()
	if err := promptlib.Create(ctx, app, promptlib.Library{Prompts: []promptlib.Prompt{
		{ID: "A0000000-0000-4000-8000-000000000001", Title: "Security Review", Content: "Audit the login flow for injection.",
			CreatedAt: promptlib.FromUnix(1700000000), UpdatedAt: promptlib.FromUnix(1700000000)},
		{ID: "A0000000-0000-4000-8000-000000000002", Title: "Release notes", Content: "Summarize the release.",
			CreatedAt: promptlib.FromUnix(1700000100), UpdatedAt: promptlib.FromUnix(1700000100)},
	}}); err != nil {
		log.Fatal(err)
	}

	db, err := dbread.Open(ctx, path, dbread.Options{CacheDir: filepath.Join(dir, "cache")})
	if err != nil {
		log.Fatal(err)
	}
	defer db.Close()

	found, total, err := db.Search(ctx, "injection audit", 10, 0)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(total, found[0].Title)

	p, err := db.Prompt(ctx, "a0000000-0000-4000-8000-000000000002") // either case
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.ID, p.CreatedAt)
	// Output:
	// 1 Security Review
	// A0000000-0000-4000-8000-000000000002 2023-11-14T22:15:00.000Z
}
