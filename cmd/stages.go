package cmd

import (
	"context"
	"fmt"
	"text/tabwriter"
)

func getStages(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("get stages", "mcpctl get stages",
		"Lists the content stages: the built-ins and the executables in $XDG_CONFIG_HOME/mcpctl/stages,\n"+
			"with each custom stage's file hash (part of its cache key) or what is wrong with it.")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	e, err := newEngine(env, false)
	if err != nil {
		return err
	}
	defer e.Close()
	stages, err := e.Stages()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tKIND\tPATH\tHASH")
	for _, s := range stages {
		switch {
		case s.BuiltIn:
			fmt.Fprintf(tw, "%s\tbuilt in\t-\t-\n", s.Name)
		case s.Problem != "":
			fmt.Fprintf(tw, "%s\tcustom\t%s\t(unusable: %s)\n", s.Name, s.Path, s.Problem)
		default:
			fmt.Fprintf(tw, "%s\tcustom\t%s\t%s\n", s.Name, s.Path, s.Hash[:12])
		}
	}
	return tw.Flush()
}
