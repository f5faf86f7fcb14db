package cmd

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/cmd/internal/trust"
	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
)

// The server commands show a project's own MCP servers (DESIGN §10) by starting them.

func trustStore(env Env) trust.Store {
	return trust.Store{Dir: filepath.Join(stateHome(env), "mcpctl", "trust")}
}

// cliLogger is quiet unless LOG_LEVEL asks: the commands report servers' errors in their
// tables, and their stderr chatter would bury them.
func cliLogger(env Env) *slog.Logger {
	var level slog.Level
	switch strings.ToLower(env.Getenv("LOG_LEVEL")) {
	case "debug":
		level = slog.LevelDebug
	case "info":
		level = slog.LevelInfo
	case "warn", "warning":
		level = slog.LevelWarn
	default:
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
}

// startServers starts the project's servers (all, or only the one named) and waits until each
// is ready or has failed, within its timeout. It returns each server's status as its wait ended,
// in the supervisor's order: a server that failed is restarted after a backoff, so its state
// read later (after waiting for a slower server) could be "starting" again, next to the error
// that ended its first attempt. The caller closes the supervisor.
func startServers(ctx context.Context, env Env, p projectChoice, only string) (*upstream.Supervisor, []upstream.Status) {
	specs := p.Servers
	if only != "" {
		specs = map[string]gate.ServerSpec{only: p.Servers[only]}
	}
	sup := upstream.New(specs, upstream.Options{Logger: cliLogger(env), Dir: upstream.BaseDir(*p.Project),
		Getenv: env.Getenv, Version: version(), Project: p.File, Environ: childEnviron(os.Environ())})
	sup.Start(ctx)
	var states []upstream.Status
	for _, srv := range sup.Servers() {
		wctx, cancel := context.WithTimeout(ctx, srv.Timeout()+time.Second)
		states = append(states, srv.Wait(wctx))
		cancel()
	}
	return sup, states
}

func getServers(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("get servers", "mcpctl get servers [--project P]",
		"Starts each of a project's MCP servers to ask it, and lists NAME, COMMAND, STATE, TOOLS, LAST ERROR.\n"+
			"Without --project, $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml found from the\n"+
			"working directory up, whose servers start only once the file is trusted (mcpctl trust).")
	name := fs.String("project", "", projectHelp)
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	p, err := needProject(env, *name, "--project NAME")
	if err != nil {
		return err
	}
	if len(p.Servers) == 0 {
		fmt.Fprintf(env.Stderr, "project %s lists no servers\n", p.DisplayName())
		return nil
	}
	var states []upstream.Status
	if p.trusted {
		var sup *upstream.Supervisor
		sup, states = startServers(ctx, env, p, "")
		sup.Close()
	} else {
		fmt.Fprintln(env.Stderr, p.why)
		for _, n := range sortedKeys(p.Servers) {
			states = append(states, upstream.Status{Name: n, Command: p.Servers[n].Command, State: upstream.State("untrusted"), LastError: "not started: the project file is not trusted"})
		}
	}
	tw := tabwriter.NewWriter(env.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCOMMAND\tSTATE\tTOOLS\tLAST ERROR")
	up := 0
	for _, st := range states {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%s\n", cell(st.Name), commandLine(p.Servers[st.Name]), cell(string(st.State)), st.Tools, orDash(cell(lastError(st))))
		if st.State == upstream.Ready {
			up++
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	// A script (or a user's "&&") learns that none of the project's servers works.
	if p.trusted && up == 0 {
		return exitError(1)
	}
	return nil
}

// lastError is a status's error with the stderr line that explains it, and the env variables
// that were unset, which is often why (MCP clients start mcpctl without the shell's
// environment, and the failing server says only that its own variable is missing). They are
// named for a server that started too: a token it starts without fails its calls instead.
func lastError(st upstream.Status) string {
	var parts []string
	if st.LastError != "" && st.State != upstream.Ready {
		msg := st.LastError
		if st.LastStderr != "" {
			msg += " (stderr: " + st.LastStderr + ")"
		}
		parts = append(parts, msg)
	}
	if len(st.UnsetEnv) > 0 {
		parts = append(parts, unsetNote(st.UnsetEnv))
	}
	return strings.Join(parts, "; ")
}

// unsetNote says which ${VAR} of a server's env were unset.
func unsetNote(vars []string) string {
	refs := make([]string, len(vars))
	for i, v := range vars {
		refs[i] = "${" + v + "}"
	}
	return "its env uses " + strings.Join(refs, ", ") + ", unset here, so empty"
}

// commandLine shows a server's command and arguments, shortened for a table.
func commandLine(s gate.ServerSpec) string {
	return clip(cell(strings.Join(append([]string{s.Command}, s.Args...), " ")), 60)
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func describeServer(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("describe server", "mcpctl describe server NAME [--project P]",
		"Starts one of a project's MCP servers and shows its state and the tools, prompts and resources\n"+
			"mcpctl serves from it (tools and prompts as NAME__tool, after the project's allow and deny lists).\n"+
			"Without --project, $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml found from the\n"+
			"working directory up, whose servers start only once the file is trusted (mcpctl trust).")
	name := fs.String("project", "", projectHelp)
	if err := fs.parse(env, reorder(args)); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fs.usageError("want one server NAME")
	}
	p, err := needProject(env, *name, "--project NAME")
	if err != nil {
		return err
	}
	server := fs.Arg(0)
	spec, ok := p.Servers[server]
	if !ok && len(p.Servers) == 0 {
		return fmt.Errorf("project %s has no server %q: it lists no servers (servers: in its file)", p.DisplayName(), server)
	}
	if !ok {
		return fmt.Errorf("project %s has no server %q; it has: %s", p.DisplayName(), server, strings.Join(sortedKeys(p.Servers), ", "))
	}
	w := env.Stdout
	fmt.Fprintf(w, "Server:   %s\nProject:  %s\nCommand:  %s\n", cell(server), cell(p.DisplayName()), cell(strings.Join(append([]string{spec.Command}, spec.Args...), " ")))
	if dir := upstream.WorkDir(spec, upstream.BaseDir(*p.Project)); dir != spec.Cwd && spec.Cwd != "" {
		fmt.Fprintf(w, "Cwd:      %s (%s)\n", cell(spec.Cwd), cell(dir))
	} else if spec.Cwd != "" {
		fmt.Fprintf(w, "Cwd:      %s\n", cell(spec.Cwd))
	}
	if len(spec.Env) > 0 {
		fmt.Fprintf(w, "Env:      %s (values not shown)\n", cell(strings.Join(sortedKeys(spec.Env), ", ")))
	}
	if !p.trusted {
		fmt.Fprintf(w, "State:    untrusted\n\n%s\n", p.why)
		return nil
	}
	sup, states := startServers(ctx, env, p, server)
	defer sup.Close()
	srv := sup.Server(server)
	st := states[0]
	fmt.Fprintf(w, "State:    %s\n", cell(string(st.State)))
	if st.State != upstream.Ready {
		fmt.Fprintf(w, "Error:    %s\n", orDash(cell(lastError(st))))
	}
	if len(st.UnsetEnv) > 0 {
		fmt.Fprintf(w, "Hint:     set %s where mcpctl starts (an MCP client passes only the env of its server entry), or give the value in the project file\n",
			cell(strings.Join(st.UnsetEnv, ", ")))
	}
	if st.State != upstream.Ready {
		if st.Hint != "" {
			fmt.Fprintf(w, "Hint:     %s\n", cell(st.Hint))
		}
		return exitError(1)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "\nTOOLS (%d)\tHINTS\tDESCRIPTION\n", st.Tools)
	for _, t := range srv.Tools() {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", cell(t.Tool.Name), toolHints(t), firstLine(t.Tool.Description))
	}
	tw.Flush()
	if ps := srv.Prompts(); len(ps) > 0 {
		fmt.Fprintf(tw, "\nPROMPTS (%d)\tARGUMENTS\tDESCRIPTION\n", len(ps))
		for _, pr := range ps {
			var names []string
			for _, a := range pr.Prompt.Arguments {
				names = append(names, a.Name)
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\n", cell(pr.Prompt.Name), orDash(cell(strings.Join(names, ", "))), firstLine(pr.Prompt.Description))
		}
		tw.Flush()
	}
	rs, ts := srv.Resources(), srv.ResourceTemplates()
	if len(rs)+len(ts) > 0 {
		// A resource under mcpctl's own URIs is never served (mcpctl's own always win); one
		// another server of the project also offers is served from the first by name, which
		// only serve, running them all, sees: it logs each one left out.
		reserved := 0
		served := func(own bool) string {
			if own {
				reserved++
				return "no: mcpctl's own URI"
			}
			return "yes"
		}
		fmt.Fprintf(tw, "\nRESOURCES (%d)\tNAME\tTYPE\tSERVED\n", len(rs)+len(ts))
		for _, r := range rs {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(r.Resource.URI), cell(r.Resource.Name), orDash(cell(r.Resource.MIMEType)), served(mcpserver.ReservedResource(r.Resource.URI)))
		}
		for _, t := range ts {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", cell(t.Template.URITemplate.Raw()), cell(t.Template.Name), orDash(cell(t.Template.MIMEType)), served(mcpserver.ReservedTemplate(t.Template)))
		}
		tw.Flush()
		if reserved > 0 {
			fmt.Fprintf(w, "\n%d of its resources are not served: mcpctl serves their URIs itself (the prompteka: scheme), and\n"+
				"its own always win. If you need them, read them through a tool of the server, if it has one.\n", reserved)
		}
	}
	return nil
}

// toolHints abbreviates a tool's annotations: read-only, destructive, idempotent.
func toolHints(t upstream.Tool) string {
	a := t.Tool.Annotations
	var h []string
	if a.ReadOnlyHint != nil && *a.ReadOnlyHint {
		h = append(h, "read-only")
	}
	if a.DestructiveHint != nil && *a.DestructiveHint && (a.ReadOnlyHint == nil || !*a.ReadOnlyHint) {
		h = append(h, "destructive")
	}
	if a.IdempotentHint != nil && *a.IdempotentHint {
		h = append(h, "idempotent")
	}
	return orDash(strings.Join(h, ","))
}

// firstLine is the first line of an upstream's description, made printable and clipped to 100
// characters (by rune: a byte cut could split one and print U+FFFD).
func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return clip(cell(s), 100)
}
