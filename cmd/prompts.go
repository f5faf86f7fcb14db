package cmd

// STUB owned by the prompts engineer: library prompts as MCP prompts and resources.

import "context"

// startPromptSurface registers the library's prompts as MCP prompts, its prompts and folders as
// resources (with templates and completion), and starts the live updater that follows library
// changes. stop ends the updater and waits for it.
func startPromptSurface(ctx context.Context, d *deps) (stop func(), err error) {
	return func() {}, nil
}
