package cmd

// STUB owned by the queue engineer: `mcpctl validate PATH...`.

import "context"

func runValidate(ctx context.Context, env Env, args []string) error {
	return &usageError{msg: "validate: not built yet"}
}
