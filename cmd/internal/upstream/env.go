package upstream

import (
	"regexp"
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
