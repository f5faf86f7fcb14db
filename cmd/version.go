package cmd

import (
	"context"
	"fmt"
	"runtime/debug"
)

// Version is set at build time with -ldflags "-X github.com/mcpctl/mcpctl/cmd.Version=v1.2.3";
// otherwise the module version, or "dev".
var Version = ""

func version() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "dev"
}

func runVersion(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("version", "mcpctl version", "Prints mcpctl's version.")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "mcpctl %s\n", version())
	return nil
}
