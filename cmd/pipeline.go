package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/schemas"
)

// maxPipelineInput bounds what 'pipeline run' reads.
const maxPipelineInput = 256 << 20

// newEngine makes the content pipeline engine over the user's config and cache directories.
// Diagnostics go to stderr as text: warnings (a failed stage, a refused cache), and with
// verbose everything, custom stages' stderr included.
func newEngine(env Env, verbose bool) (*pipeline.Engine, error) {
	level := slog.LevelWarn
	if verbose {
		level = slog.LevelDebug
	}
	e, err := pipeline.NewEngine(pipeline.Options{
		ConfigDir: filepath.Join(configHome(env), "mcpctl"),
		CacheDir:  filepath.Join(cacheHome(env), "mcpctl"),
		Logger:    slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level})),
		Getenv:    env.Getenv,
	})
	if errors.Is(err, schemas.ErrInvalidFile) {
		// config.yaml: these commands may use the LLM, so they stop, saying what to do (serve
		// goes on without it).
		return nil, fmt.Errorf("%s; %s", strings.TrimPrefix(err.Error(), "schemas: "), strings.TrimSuffix(configFix, ", then restart serve"))
	}
	return e, err
}

func runPipeline(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "run" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			args = []string{"run", "-h"}
		} else {
			return &usageError{msg: "pipeline: want 'run'", hint: "mcpctl pipeline run --model NAME FILE|-"}
		}
	}
	fs := newFlagSet("pipeline run", "mcpctl pipeline run --model NAME [--type toolResult|resource|prompt|briefing] [--source S] [--project NAME] [--section ID] [--json] [--verbose] FILE|-",
		"Runs a proxymodel over a file (or stdin, '-') as the server would: prints the transformed content on\n"+
			"stdout and the section table on stderr. --section prints one section exactly as the splitting stage\n"+
			"received it (the file's text, unless an earlier stage such as a redaction rewrote it); --json prints\n"+
			"{content, ref, sections, metadata}, or with --section {ref, section, title, bytes, content}.")
	model := fs.String("model", "", "the proxymodel `NAME` (see 'mcpctl get proxymodels')")
	typ := fs.String("type", string(pipeline.TypeToolResult), "what the content is, its `TYPE`: toolResult, resource, prompt or briefing")
	section := fs.String("section", "", "print only the section `ID`, exactly")
	asJSON := fs.Bool("json", false, "print the whole result as JSON")
	verbose := fs.Bool("verbose", false, "run every stage, whatever the cache holds, and log its diagnostics, custom stages' stderr included")
	source := fs.String("source", "", "the content's source `S` as stages see it (default: the file name)")
	project := fs.String("project", "", projectHelp+": the project custom stages are told, as serve tells them")
	if err := fs.parse(env, args[1:]); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one FILE, or - for stdin")
	}
	if *model == "" {
		return fs.usageError("--model is required")
	}
	if !pipeline.ContentType(*typ).Valid() {
		return fs.usageError("--type %q: want toolResult, resource, prompt or briefing", *typ)
	}
	text, err := readInput(env, fs.Arg(0))
	if err != nil {
		return err
	}
	if *source == "" {
		*source = fs.Arg(0)
	}
	// Custom stages are told the project serve serves (one that redacts per project gives another
	// result for none): debugging one here must see what it sees there.
	c, err := chooseProject(env, *project)
	if err != nil {
		return err
	}
	var projectName string
	if c.Project != nil {
		projectName = c.Name
	}
	e, err := newEngine(env, *verbose)
	if err != nil {
		return err
	}
	defer e.Close()
	// --verbose is for watching the stages: a cached result would show none of their diagnostics.
	out, err := e.Transform(ctx, pipeline.Request{Model: *model, Content: pipeline.Content{Text: text, Type: pipeline.ContentType(*typ), Source: *source},
		Project: projectName, Fresh: *verbose})
	if err != nil {
		return err
	}
	why := notApplied(e, out, *model, *typ)
	switch {
	case *section != "":
		if out.Ref == "" {
			return fmt.Errorf("pipeline run: the result has no sections (%s); drop --section", why)
		}
		sec, s, err := e.Section(ctx, out.Ref, *section)
		if err != nil {
			return err
		}
		if *asJSON { // --json was ignored with --section
			enc := json.NewEncoder(env.Stdout)
			enc.SetEscapeHTML(false)
			return enc.Encode(map[string]any{"ref": out.Ref, "section": sec.ID, "title": sec.Title, "bytes": len(s), "content": s})
		}
		_, err = io.WriteString(env.Stdout, s)
		return err
	case *asJSON:
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		sections := pipeline.Infos(out.Sections)
		if sections == nil {
			sections = []pipeline.SectionInfo{}
		}
		return enc.Encode(map[string]any{"content": out.Text, "ref": out.Ref, "sections": sections, "metadata": orEmpty(out.Metadata)})
	}
	if _, err := io.WriteString(env.Stdout, out.Text); err != nil {
		return err
	}
	writeSectionTable(env.Stderr, out, *model, why)
	return nil
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// notApplied says why a model made no sections: it left the content alone (its appliesTo, its
// minBytes), or its stages made none.
func notApplied(e *pipeline.Engine, out pipeline.Output, model, typ string) string {
	if out.Applied {
		return "the model's stages made none"
	}
	why := ""
	if m, err := e.Model(model); err == nil {
		switch size := out.Metrics.BytesBefore; {
		case !slices.Contains(m.AppliesTo, pipeline.ContentType(typ)):
			types := make([]string, len(m.AppliesTo))
			for i, t := range m.AppliesTo {
				types[i] = string(t)
			}
			why = ": it applies to " + strings.Join(types, ", ") + " only"
		case size < m.MinBytes:
			why = fmt.Sprintf(", under its minBytes (%d)", m.MinBytes)
		}
	}
	return fmt.Sprintf("model %s does not apply to %s content of %d bytes%s; see 'mcpctl describe proxymodel %s'", model, typ, out.Metrics.BytesBefore, why, model)
}

// writeSectionTable writes the section tree and the metrics, for a person at a terminal.
func writeSectionTable(w io.Writer, out pipeline.Output, model, why string) {
	m := out.Metrics
	if !out.Applied {
		fmt.Fprintf(w, "\n--- %s; the content is printed unchanged\n", why)
		return
	}
	hit := "miss"
	if m.CacheHit {
		hit = "hit"
	}
	fmt.Fprintf(w, "\n--- model %s, stages %s: %d → %d bytes, cache %s\n", model, strings.Join(m.StageNames(), ", "), m.BytesBefore, m.BytesAfter, hit)
	for _, s := range m.Stages {
		if s.Error != "" {
			fmt.Fprintf(w, "stage %s failed and passed its input through: %s\n", s.Name, s.Error)
		}
	}
	if out.Ref == "" {
		fmt.Fprintf(w, "no sections: %s\n", why)
		return
	}
	fmt.Fprintf(w, "ref %s; print a section with --section ID\n", out.Ref)
	var walk func(ss []pipeline.Section, depth int)
	walk = func(ss []pipeline.Section, depth int) {
		for i, s := range ss {
			if depth > 0 && i == 20 && len(ss) > 24 {
				fmt.Fprintf(w, "%s… %d more\n", strings.Repeat("  ", depth), len(ss)-i)
				return
			}
			fmt.Fprintf(w, "%s%-8s %8d  %s\n", strings.Repeat("  ", depth), s.ID, s.Bytes(), s.Title)
			walk(s.Children, depth+1)
		}
	}
	walk(out.Sections, 0)
}

// readInput reads FILE, or stdin for "-", refusing what is not a regular file (a FIFO would
// block) and what is larger than maxPipelineInput.
func readInput(env Env, name string) (string, error) {
	var r io.Reader = env.Stdin
	if name != "-" {
		fi, err := os.Stat(name)
		if err != nil {
			return "", fmt.Errorf("pipeline run: %w", err)
		}
		if !fi.Mode().IsRegular() {
			return "", fmt.Errorf("pipeline run: %s is not a regular file", name)
		}
		f, err := os.Open(name)
		if err != nil {
			return "", fmt.Errorf("pipeline run: %w", err)
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, maxPipelineInput+1))
	if err != nil {
		return "", fmt.Errorf("pipeline run: reading %s: %w", name, err)
	}
	if len(data) > maxPipelineInput {
		return "", fmt.Errorf("pipeline run: %s is over %d bytes", name, maxPipelineInput)
	}
	return string(data), nil
}
