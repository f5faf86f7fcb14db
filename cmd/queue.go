package cmd

// STUB owned by the queue engineer: `mcpctl queue process|status|clean`.

import "context"

func runQueue(ctx context.Context, env Env, args []string) error {
	return &usageError{msg: "queue: not built yet"}
}
