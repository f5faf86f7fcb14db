package cmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/schemas"
)

func runGate(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "preview" {
		return &usageError{msg: "gate: want 'preview'", hint: "mcpctl gate preview [--project P] [--explain] TAG..."}
	}
	fs := newFlagSet("gate preview", "mcpctl gate preview [--project P] [--library DIR] [--explain] TAG...",
		"Prints what begin_session would return to a new session of project P for these tags, tables of\n"+
			"contents included. No LLM takes part (config.yaml's would re-rank and write the tables'\n"+
			"summaries in serve), and the project's servers are not started: their tools are named by\n"+
			"prefix alone (db__*), and an untrusted repository project's not at all.\n"+
			"Without --project, $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml found from the\n"+
			"working directory up: the project 'mcpctl serve' would serve there.\n"+
			"With --explain, prints instead why each prompt is sent, named or left out, with its score parts.")
	lf := addLibraryFlags(fs)
	name := fs.String("project", "", projectHelp)
	explain := fs.Bool("explain", false, "explain the ranking instead of printing the briefing")
	if err := fs.parse(env, reorder(args[1:])); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return fs.usageError("want at least one TAG")
	}
	// What begin_session would refuse, the preview refuses too: it shows that call.
	if err := schemas.Validate(gate.ToolBeginSession+".input", map[string]any{"tags": fs.Args()}); err != nil {
		var se *schemas.Error
		if errors.As(err, &se) && len(se.Problems) > 0 {
			where := "the tags"
			if i, err := strconv.Atoi(strings.TrimPrefix(se.Problems[0].Pointer, "/tags/")); err == nil {
				where = fmt.Sprintf("tag %d", i+1)
			}
			return fs.usageError("begin_session would refuse %s (%s): at most %d tags of 1 to 100 characters", where, se.Problems[0].Message, gate.MaxTags)
		}
		return err
	}
	c, err := needProject(env, *name, "--project NAME")
	if err != nil {
		return err
	}
	p := c.Project
	lib, err := readLibrary(ctx, env, lf)
	if err != nil {
		return err
	}
	br, done := briefer(env)
	defer done()
	br.Untrusted = c.untrusted()
	ix, render, err := br.Brief(ctx, lib, *p)
	if err != nil {
		return err
	}
	if *explain {
		tags := gate.NormalizeTags(fs.Args())
		fmt.Fprintf(env.Stdout, "Project %s, tags %q, budget %d bytes. Relevance is BM25F over stemmed words (title, headings, summary, body, folder), the best of each tag and its synonyms; a tag that names a folder weighs less beside other tags; \"feedback\" is the best matches' own words, searched weakly. The floor is a share of the two best relevances' mean, lower for a prompt filed in the best matches' folder or leading a tag; below it the best few are named as weak matches, the rest left out.\n\n",
			p.DisplayName(), tags, p.ByteBudget)
		for _, x := range gate.Explain(ix, tags, p.ByteBudget, p.IndexCap, nil) {
			if _, err := fmt.Fprintln(env.Stdout, x.String()); err != nil {
				return err
			}
		}
		return nil
	}
	b := gate.NewSession(*p).Begin(ix, fs.Args())
	text, err := render(ctx, b, gate.LibraryBodies(lib))
	if err != nil {
		return err
	}
	_, err = io.WriteString(env.Stdout, text+"\n")
	return err
}
