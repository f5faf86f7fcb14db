package cmd

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mcpctl/mcpctl/promptlib"
)

// executable is the running binary's path; tests replace it.
var executable = os.Executable

// mcpClients are the clients mcp-config writes for: the file that holds the entry, and whether
// the client starts servers in the project's directory (so a repository project is found
// without --project).
var mcpClients = map[string]struct {
	file      string
	inProject bool
	stdioType bool // the entry carries "type": "stdio"
}{
	"claude-code":    {file: ".mcp.json at the repository's root (or give the inner object to: claude mcp add-json KEY JSON)", inProject: true, stdioType: true},
	"cursor":         {file: ".cursor/mcp.json in the repository, or ~/.cursor/mcp.json", inProject: true},
	"claude-desktop": {file: "claude_desktop_config.json (Claude Desktop → Settings → Developer → Edit Config)"},
}

func runMCPConfig(_ context.Context, env Env, args []string) error {
	fs := newFlagSet("mcp-config", "mcpctl mcp-config [--project P] [--client claude-code|claude-desktop|cursor]",
		"Prints the JSON that puts mcpctl in an MCP client's config file, with the absolute path of this\n"+
			"binary. Without --project, Claude Code and Cursor serve the repository's .mcpctl/project.yaml\n"+
			"(they start servers in the project's directory).")
	name := fs.String("project", "", "serve the project `NAME`, or the project of a repository's DIR")
	clientName := fs.String("client", "claude-code", "the `CLIENT`: claude-code, claude-desktop or cursor")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	client, ok := mcpClients[*clientName]
	if !ok {
		return fs.usageError("unknown client %q; want one of %s", *clientName, subjectList(mcpClients))
	}
	key := "mcpctl"
	if *name != "" {
		c, err := chooseProject(env, *name)
		if err != nil {
			return err
		}
		if isProjectDir(*name) {
			// The client starts mcpctl elsewhere: the entry names the directory absolutely.
			*name = filepath.Dir(filepath.Dir(c.File))
		}
		key = "mcpctl-" + c.Name
	}
	bin, err := executable()
	if err != nil {
		return fmt.Errorf("cannot tell where this mcpctl binary is (%v); write the config by hand with its absolute path", err)
	}
	entry := map[string]any{"command": bin, "args": []string{"serve"}}
	if *name != "" {
		entry["args"] = []string{"serve", "--project", *name}
	}
	if client.stdioType {
		entry["type"] = "stdio"
	}
	out, err := json.MarshalIndent(map[string]any{"mcpServers": map[string]any{key: entry}}, "", "  ")
	if err != nil {
		return err
	}
	fmt.Fprintf(env.Stdout, "%s\n", out)
	fmt.Fprintf(env.Stderr, "put this in %s\n", client.file)
	if *name == "" && !client.inProject {
		hint := "add --project NAME to serve a project of " + projectsDir(env) + ", or --project DIR for a repository's"
		if r, err := repoProject(env); err == nil && r != nil {
			hint = "add --project " + promptlib.ShellWord(filepath.Dir(filepath.Dir(r.File))) + " to serve this repository's project"
		}
		fmt.Fprintf(env.Stderr, "%s does not start servers in a project's directory: %s\n", *clientName, hint)
	}
	return nil
}
