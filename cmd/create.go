package cmd

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/pipeline"
)

// createSubjects are what 'mcpctl create' makes: starter files for the user to edit.
var createSubjects = map[string]func(ctx context.Context, env Env, args []string) error{
	"proxymodel": createProxymodel,
	"stage":      createStage,
}

func runCreate(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || createSubjects[args[0]] == nil {
		return &usageError{msg: "create: want one of " + subjectList(createSubjects) + " and a NAME", hint: "mcpctl create proxymodel NAME | mcpctl create stage NAME [--lang sh|python|go]"}
	}
	return createSubjects[args[0]](ctx, env, args[1:])
}

func createProxymodel(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("create proxymodel", "mcpctl create proxymodel NAME",
		"Writes a starter proxymodel, $XDG_CONFIG_HOME/mcpctl/proxymodels/NAME.yaml, with every field explained.\n"+
			"A file named like a built-in (default, subindex) overrides it.")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || !pipeline.ValidModelName(fs.Arg(0)) {
		return fs.usageError("want one NAME of lower-case letters, digits, '-' and '_'")
	}
	name := fs.Arg(0)
	path := filepath.Join(configHome(env), "mcpctl", "proxymodels", name+pipeline.ModelExt)
	if err := writeNew(path, pipeline.ModelStarter(name), 0o600); err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "Created %s\nTry it:  mcpctl pipeline run --model %s FILE\nUse it:  proxyModel: %s in a project file\n", path, name, name)
	return nil
}

func createStage(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("create stage", "mcpctl create stage NAME [--lang sh|python|go]",
		"Writes a starter custom stage, $XDG_CONFIG_HOME/mcpctl/stages/NAME, that passes content through and\n"+
			"shows the context it receives. A Go stage's source goes to stage-src/NAME/ and is built to stages/NAME.")
	lang := fs.String("lang", "sh", "the starter's language: sh, python or go")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if fs.NArg() != 1 || !pipeline.ValidStageName(fs.Arg(0)) {
		return fs.usageError("want one NAME of letters, digits, '.', '_' and '-', not a built-in stage's")
	}
	name := fs.Arg(0)
	base := filepath.Join(configHome(env), "mcpctl")
	binary := filepath.Join(base, "stages", name)
	src, err := pipeline.StageStarter(name, *lang, binary)
	if err != nil {
		return fs.usageError("--lang %q: want one of %s", *lang, strings.Join(pipeline.StageLangs, ", "))
	}
	if *lang != "go" {
		if err := writeNew(binary, src, 0o700); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Created %s\n", binary)
	} else {
		dir := filepath.Join(base, "stage-src", name)
		if err := writeNew(filepath.Join(dir, "main.go"), src, 0o600); err != nil {
			return err
		}
		if err := writeNew(filepath.Join(dir, "go.mod"), "module "+name+"\n\ngo 1.22\n", 0o600); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "Created %s\n", filepath.Join(dir, "main.go"))
		if err := os.MkdirAll(filepath.Dir(binary), 0o700); err != nil {
			return err
		}
		goBin, err := exec.LookPath("go")
		if err != nil {
			fmt.Fprintf(env.Stdout, "Go is not on PATH; build the stage with:  cd %s && go build -o %s .\n", dir, binary)
		} else {
			cmd := exec.CommandContext(ctx, goBin, "build", "-o", binary, ".")
			cmd.Dir = dir
			if out, err := cmd.CombinedOutput(); err != nil {
				return fmt.Errorf("create stage: building %s: %v\n%s", dir, err, out)
			}
			fmt.Fprintf(env.Stdout, "Built   %s\n", binary)
		}
	}
	fmt.Fprintf(env.Stdout, "Use it in a proxymodel's stages:\n  - type: %s\n    config: {timeoutMs: 5000}\n", name)
	return nil
}

// writeNew writes a file that must not exist yet, making its directory (0700).
func writeNew(path, text string, mode os.FileMode) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if errors.Is(err, fs.ErrExist) {
		return &usageError{msg: path + " exists", hint: "edit it, or remove it first to start again"}
	}
	if err != nil {
		return err
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(path)
		return err
	}
	return f.Close()
}
