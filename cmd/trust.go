package cmd

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/cmd/internal/trust"
	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
)

func runTrust(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("trust", "mcpctl trust [DIR]",
		"Trusts the repository project file .mcpctl/project.yaml found from DIR (default: the working\n"+
			"directory) upwards, so that 'mcpctl serve' starts the servers it lists. It records the file's\n"+
			"sha256 in $XDG_STATE_HOME/mcpctl/trust/; once the file changes, it must be trusted again.\n"+
			"Read the file first: its servers run as you.")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if fs.NArg() > 1 {
		return fs.usageError("want at most one DIR")
	}
	dir := fs.Arg(0)
	if dir == "" {
		wd, err := os.Getwd()
		if err != nil {
			return err
		}
		dir = wd
	} else if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		what := "does not exist"
		if err == nil {
			what = "is not a directory"
		} else if !errors.Is(err, iofs.ErrNotExist) {
			what = "cannot be read: " + err.Error()
		}
		return &usageError{msg: fmt.Sprintf("trust: %s %s", dir, what),
			hint: "give the repository's directory (the one holding .mcpctl/project.yaml), or run 'mcpctl trust' inside it"}
	}
	file, err := trust.Find(dir)
	if errors.Is(err, trust.ErrNotFound) {
		return &hintError{msg: fmt.Sprintf("trust: no .mcpctl/project.yaml in %s or a directory above it", dir),
			hint: "run it in the repository whose project you mean to trust, or give that directory: mcpctl trust DIR"}
	}
	if err != nil {
		return err
	}
	data, err := trust.ReadFile(file)
	if err != nil {
		return err
	}
	// A file that does not parse would start nothing; say so now rather than at serve.
	p, err := gate.ParseProject(file, data)
	if err != nil {
		return fmt.Errorf("%w\nfix the file, then trust it", err)
	}
	rec, err := trustStore(env).Trust(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "trusted %s (sha256 %s), the project %s\n", rec.File, rec.SHA256[:16], gate.RepoProjectName(trust.RepoDir(rec.File)))
	if len(p.Servers) == 0 {
		fmt.Fprintln(env.Stdout, "it lists no servers")
		return nil
	}
	base := upstream.BaseDir(p)
	fmt.Fprintln(env.Stdout, "mcpctl serve will start these commands in", base+" (unless another directory is named):")
	for _, n := range sortedKeys(p.Servers) {
		s := p.Servers[n]
		fmt.Fprintf(env.Stdout, "  %s: %s", cell(n), cell(strings.Join(append([]string{s.Command}, s.Args...), " ")))
		// Where it runs is part of what is trusted: cwd: resolves as the upstream package does.
		if s.Cwd != "" {
			dir := s.Cwd
			if !filepath.IsAbs(dir) {
				dir = filepath.Join(base, dir)
			}
			fmt.Fprintf(env.Stdout, "  (in %s)", cell(dir))
		}
		fmt.Fprintln(env.Stdout)
	}
	return nil
}
