package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/schemas"
)

// The proxymodel commands: validate a file or model, list the models, show one.

func runProxymodel(_ context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "validate" {
		return &usageError{msg: "proxymodel: want 'validate'", hint: "mcpctl proxymodel validate NAME|FILE"}
	}
	flags := newFlagSet("proxymodel validate", "mcpctl proxymodel validate NAME|FILE",
		"Checks a proxymodel against its schema and checks that its stages exist: a model by NAME, or a\n"+
			"YAML FILE anywhere. Every problem is printed with its line and field; exit 1 when there are any.")
	if err := flags.parse(env, args[1:]); err != nil {
		return err
	}
	if flags.NArg() != 1 {
		return flags.usageError("want one NAME or FILE")
	}
	e, err := newEngine(env, false)
	if err != nil {
		return err
	}
	defer e.Close()
	arg := flags.Arg(0)
	var m pipeline.Model
	if strings.ContainsRune(arg, filepath.Separator) || strings.HasSuffix(arg, pipeline.ModelExt) {
		data, err := readModelFile(arg)
		if errors.Is(err, fs.ErrNotExist) {
			// As validate says of a path that does not exist: a usage error, exit 2.
			return flags.usageError("%s does not exist; give a proxymodel's NAME ('mcpctl get proxymodels') or a YAML file's path", arg)
		}
		if err != nil {
			return err
		}
		if m, err = pipeline.ParseModel(arg, data); err == nil {
			err = e.CheckModel(m)
		}
		if err != nil {
			return reportModelError(env, err)
		}
	} else if m, err = e.Model(arg); err != nil {
		return reportModelError(env, err)
	}
	source := m.File
	if m.BuiltIn {
		source = "built in"
	}
	fmt.Fprintf(env.Stdout, "%s: valid (%s): %d %s: %s\n", m.Name, source, len(m.Stages), countNoun(len(m.Stages), "stage", "stages"), strings.Join(m.StageNames(), ", "))
	return nil
}

func readModelFile(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("proxymodel validate: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("proxymodel validate: %s is not a regular file", path)
	}
	if fi.Size() > schemas.MaxYAMLBytes {
		return nil, fmt.Errorf("proxymodel validate: %s is %d bytes; a proxymodel may be at most %d", path, fi.Size(), schemas.MaxYAMLBytes)
	}
	return os.ReadFile(path)
}

// reportModelError prints a model's problems one a line, FILE:LINE: field: message, and ends
// the command with exit 1; other errors pass through.
func reportModelError(env Env, err error) error {
	var me *pipeline.ModelError
	if !errors.As(err, &me) {
		return err
	}
	for _, p := range me.Problems {
		loc := me.File
		if p.Line > 0 {
			loc += fmt.Sprintf(":%d", p.Line)
		}
		field := ""
		if p.Field != "" {
			field = p.Field + ": "
		}
		fmt.Fprintf(env.Stderr, "%s: %s%s\n", loc, field, p.Message)
	}
	return exitError(1)
}

func getProxymodels(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("get proxymodels", "mcpctl get proxymodels",
		"Lists the proxymodels: the built-ins and the files in $XDG_CONFIG_HOME/mcpctl/proxymodels.")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	e, err := newEngine(env, false)
	if err != nil {
		return err
	}
	defer e.Close()
	names, err := e.ModelNames()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tSOURCE\tAPPLIES TO\tMIN BYTES\tSTAGES")
	for _, n := range names {
		m, err := e.Model(n)
		if err != nil {
			fmt.Fprintf(tw, "%s\t(invalid: %v)\n", n, err)
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", m.Name, modelSource(m), joinTypes(m.AppliesTo), m.MinBytes, strings.Join(m.StageNames(), ", "))
	}
	return tw.Flush()
}

func modelSource(m pipeline.Model) string {
	if m.BuiltIn {
		return "built in"
	}
	for _, b := range pipeline.BuiltinModels() {
		if b.Name == m.Name {
			return m.File + " (overrides the built-in)"
		}
	}
	return m.File
}

func joinTypes(ts []pipeline.ContentType) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}

func describeProxymodel(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("describe proxymodel", "mcpctl describe proxymodel NAME",
		"Shows a proxymodel: where it comes from, what it applies to, and each stage with its config.")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one proxymodel NAME")
	}
	e, err := newEngine(env, false)
	if err != nil {
		return err
	}
	defer e.Close()
	m, err := e.Model(fs.Arg(0))
	if err != nil {
		return reportModelError(env, err)
	}
	w := env.Stdout
	fmt.Fprintf(w, "Proxymodel:  %s\nSource:      %s\nDescription: %s\nController:  %s\nApplies to:  %s\nMin bytes:   %d\nSections:    %v (read_section is listed when a project uses it)\nStages:\n",
		m.Name, modelSource(m), orDash(m.Description), m.Controller, joinTypes(m.AppliesTo), m.MinBytes, m.MakesSections())
	for i, s := range m.Stages {
		kind := "built in"
		if !isBuiltinStage(s.Type) {
			kind = "custom"
		}
		cfg := ""
		if len(s.Config) > 0 {
			b, _ := json.Marshal(s.Config)
			cfg = " " + string(b)
		}
		fmt.Fprintf(w, "  %d. %s (%s)%s\n", i+1, s.Type, kind, cfg)
	}
	return nil
}

func isBuiltinStage(name string) bool {
	for _, n := range pipeline.BuiltinStageNames() {
		if n == name {
			return true
		}
	}
	return false
}

// countNoun picks the singular or plural word for n.
func countNoun(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
