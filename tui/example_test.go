package tui_test

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/tui"
)

// The console as cmd starts it, here without a library: the Library screen says why and what
// to do instead of showing nothing. tui.Run(ctx, cfg) shows the same model on the terminal.
func Example() {
	m := tui.New(context.Background(), tui.Config{
		LibraryErr: errors.New("no library database at /home/me/lib/prompts.db"),
		NoColor:    true,
	})
	defer m.Close()
	lines := strings.Split(m.View(), "\n")
	fmt.Println(strings.TrimSpace(lines[0]))
	fmt.Println(strings.TrimSpace(lines[1]))
	// Output:
	// mcpctl [1 Library]  2 Queue   3 Traffic   4 Gate   5 Pipeline
	// The library could not be opened: no library database at /home/me/lib/prompts.db
}
