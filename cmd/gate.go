package cmd

import (
	"context"
	"io"

	"github.com/mcpctl/mcpctl/gate"
)

func runGate(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "preview" {
		return &usageError{msg: "gate: want 'preview'", hint: "mcpctl gate preview --project P TAG..."}
	}
	fs := newFlagSet("gate preview", "mcpctl gate preview --project P [--library DIR] TAG...",
		"Prints exactly what begin_session would return to a new session of project P for these tags.")
	lf := addLibraryFlags(fs)
	name := fs.String("project", "", "the project `NAME` (required)")
	if err := fs.parse(env, args[1:]); err != nil {
		return err
	}
	if *name == "" || fs.NArg() == 0 {
		return fs.usageError("want --project and at least one TAG")
	}
	p, err := loadProject(env, *name)
	if err != nil {
		return err
	}
	db, err := openForCLI(ctx, env, lf)
	if err != nil {
		return err
	}
	defer db.Close()
	lib, err := readLibrary(ctx, db)
	if err != nil {
		return err
	}
	ix, err := gate.NewIndex(lib, *p)
	if err != nil {
		return err
	}
	b := gate.NewSession(*p).Begin(ix, fs.Args())
	text, _ := gate.Renderer{Texts: gate.SystemTexts(lib), Tools: []string{"(the library tools)", gate.ToolReadPrompts}}.Briefing(b)
	_, err = io.WriteString(env.Stdout, text+"\n")
	return err
}
