package dbread

import (
	"context"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Library reads the whole library into memory, bodies included: for one-shot commands and
// previews that look at a project's prompts once. A server follows the library with EachPrompt
// instead, keeping no bodies.
func (db *DB) Library(ctx context.Context) (promptlib.Library, error) {
	infos, err := db.Folders(ctx)
	if err != nil {
		return promptlib.Library{}, err
	}
	prompts, err := db.AllPrompts(ctx)
	if err != nil {
		return promptlib.Library{}, err
	}
	folders := make([]promptlib.Folder, len(infos))
	for i, f := range infos {
		folders[i] = f.Folder
	}
	return promptlib.Library{Folders: folders, Prompts: prompts}, nil
}
