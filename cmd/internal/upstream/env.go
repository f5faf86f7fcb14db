package upstream

import (
	"path/filepath"
	"regexp"
	"slices"
	"sort"
)

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expandEnv returns base with the server's env added, each value's ${VAR} references replaced by
// getenv(VAR). Only the ${VAR} form is expanded: $VAR, $(cmd) and backquotes stay as written, so
// a value can hold a literal '$'. It also returns the names of referenced variables that are
// unset (they expand to ""), for a warning; values are never returned apart from the
// environment itself, so nothing logs them by mistake.
func expandEnv(base []string, env map[string]string, getenv func(string) string) (out []string, unset []string) {
	keys := make([]string, 0, len(env))
	for k := range env {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out = append([]string(nil), base...)
	seen := map[string]bool{}
	for _, k := range keys {
		v := envRef.ReplaceAllStringFunc(env[k], func(ref string) string {
			name := envRef.FindStringSubmatch(ref)[1]
			val := getenv(name)
			if val == "" && !seen[name] {
				seen[name] = true
				unset = append(unset, name)
			}
			return val
		})
		out = append(out, k+"="+v) // a later entry wins in os/exec, so this overrides base
	}
	return out, unset
}

// ParentEnv lists, in the environment of every server mcpctl starts for a project, the files
// of the projects whose servers started it, outermost first (filepath.ListSeparator between
// them). An mcpctl serve among them (one serving another library, say) runs in the project's
// directory: finding the repository's project there, or being given one of those projects,
// it would start their servers again, and they theirs, without end (A's server serving B
// whose server serves A, too). Such a serve drops a project on this list (InChain).
const ParentEnv = "MCPCTL_UPSTREAM_OF"

// InChain reports whether the project file is one whose servers started this process (its
// ParentEnv value is chain).
func InChain(chain, file string) bool {
	return file != "" && slices.Contains(filepath.SplitList(chain), file)
}

// childChain is ParentEnv for a child of project's servers: the inherited chain, then project.
func childChain(inherited, project string) string {
	if inherited == "" {
		return project
	}
	return inherited + string(filepath.ListSeparator) + project
}
