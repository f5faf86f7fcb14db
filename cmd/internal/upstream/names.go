package upstream

import (
	"crypto/sha256"
	"encoding/hex"
	"path"
	"regexp"
	"strings"
)

// Separator joins a server's name and its tool's or prompt's own name. Server names never hold
// it (the project schema forbids "__"), so the first one in a name splits it.
const Separator = "__"

// MaxNameLen is the longest name a tool may have in MCP clients (Claude Code and the API
// reject longer ones).
const MaxNameLen = 64

var nameChars = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// exposedName is how mcpctl serves the server's item called own: server__own when that is
// at most 64 characters of [A-Za-z0-9_-] and not taken. Otherwise other characters become '_',
// the name is cut to fit, and 8 hex digits of the own name's hash keep it apart from others,
// the same every time for the same own name.
func exposedName(server, own string, taken map[string]bool) string {
	clean := nameChars.ReplaceAllString(own, "_")
	name := server + Separator + clean
	if clean == own && len(name) <= MaxNameLen && !taken[name] {
		return name
	}
	sum := sha256.Sum256([]byte(own))
	suffix := "_" + hex.EncodeToString(sum[:4])
	if keep := MaxNameLen - len(server) - len(Separator) - len(suffix); len(clean) > keep {
		clean = clean[:keep]
	}
	return server + Separator + clean + suffix
}

// splitName returns the server part of an exposed name.
func splitName(name string) (server string, ok bool) {
	server, _, ok = strings.Cut(name, Separator)
	return server, ok && server != ""
}

// toolFilter is a server's tools.allow and tools.deny.
type toolFilter struct{ allow, deny []string }

// allows reports whether the tool called own is served: it matches allow (or allow is empty)
// and matches no deny. Patterns are names or path.Match globs; a malformed glob matches only
// its exact text.
func (f toolFilter) allows(own string) bool { return f.hiding(own) == "" }

// hiding names the rule that leaves out the tool called own, "tools.deny" or "tools.allow",
// or "" when it is served.
func (f toolFilter) hiding(own string) string {
	switch {
	case matchAny(f.deny, own):
		return "tools.deny"
	case len(f.allow) > 0 && !matchAny(f.allow, own):
		return "tools.allow"
	}
	return ""
}

func matchAny(patterns []string, name string) bool {
	for _, p := range patterns {
		if p == name {
			return true
		}
		if ok, err := path.Match(p, name); err == nil && ok {
			return true
		}
	}
	return false
}
