package gate

import (
	"sort"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// The gate texts, by name. A prompt in the library's SystemFolder whose title slugs to one of
// these names replaces the built-in default.
const (
	TextInstructions      = "gate-instructions"       // initialize instructions of a gated session
	TextEncouragement     = "gate-encouragement"      // after the prompts in a session briefing
	TextReminder          = "read-prompts-reminder"   // the end of every read_prompts answer
	TextInterceptPreamble = "gate-intercept-preamble" // before the briefing of an intercepted call
	TextGreeting          = "session-greeting"        // the opening of a session briefing
)

// Template variables the gate texts may use, as {{name}}.
const (
	VarPromptIndex      = "prompt_index"      // the index lines, capped
	VarProjectName      = "project_name"      // the project's name, or "the whole library"
	VarMatchedPrompts   = "matched_prompts"   // index lines of what this briefing matched
	VarRemainingPrompts = "remaining_prompts" // index lines of what it neither sent nor named as a match
	VarTools            = "tools"             // the tools available once ungated
)

var defaults = map[string]string{
	TextInstructions: `You are working on the project {{project_name}}. This server holds its prompt library: the rules, conventions, architecture decisions and known mistakes of this project. Some of them are about exactly what you are going to do, and a rule you did not read costs far more than the minute it takes to read it.

Before anything else, call begin_session with 3 to 10 tags that describe your task, for example ["sql", "migrations", "error handling"]. It answers with the critical rules in full, the prompts that match your tags, and an index of the rest, and it opens the other tools. After that, read_prompts fetches more prompts by tag at any time: call it whenever your work moves into an area you have not been briefed on.

Prompts in this project:
{{prompt_index}}`,

	TextGreeting: `Session started for {{project_name}}. Read what follows before you act: these are the project's own rules and they take precedence over your habits and defaults. Tools now available: {{tools}}.`,

	TextEncouragement: `Other prompts in this project, not sent to you yet:
{{remaining_prompts}}

Do not assume you have all the context. If any of these touch what you are doing now or may do later, fetch them with read_prompts({"tags": [...]}) before you act. Checking costs one call; breaking a rule you did not read costs a rework.`,

	TextReminder: `Remember: read_prompts fetches more prompts at any time. The project may have rules about your current approach that you have not read yet; when in doubt, check before you act.`,

	TextInterceptPreamble: `You called a tool before begin_session. Your call ran, and this answer carries its result. Before you act on it, read the project guidance below, picked from the keywords of your call: it may change what you should do next. Start future sessions with begin_session.`,
}

// TextNames lists the gate texts' names, sorted.
func TextNames() []string {
	names := make([]string, 0, len(defaults))
	for n := range defaults {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// DefaultText is the built-in body of a gate text; ok is false for an unknown name.
func DefaultText(name string) (body string, ok bool) {
	body, ok = defaults[name]
	return body, ok
}

// Texts maps gate text names to bodies that replace the defaults. A nil Texts uses every default.
type Texts map[string]string

// Get is the body of a gate text: the override when there is a non-blank one, else the default.
func (t Texts) Get(name string) string {
	if body, ok := t[name]; ok && strings.TrimSpace(body) != "" {
		return body
	}
	return defaults[name]
}

// SystemTexts collects the overrides among the system prompts (the prompts of the
// mcpctl-system subtree: Scope.SystemPrompts picks them): those whose title slugs to a gate text
// name ("Gate Encouragement" → gate-encouragement). When several prompts give the same name, the
// most recently updated wins (then the lowest id), so an edit in the app takes effect on the
// next snapshot. The bodies are copied, not referenced.
func SystemTexts(system []promptlib.Prompt) Texts {
	t := Texts{}
	chosen := map[string]promptlib.Prompt{}
	for _, p := range system {
		name := promptlib.Slug(p.Title)
		if _, known := defaults[name]; !known {
			continue
		}
		if prev, ok := chosen[name]; ok {
			if prev.UpdatedAt.After(p.UpdatedAt.Time) || (prev.UpdatedAt.Equal(p.UpdatedAt.Time) && strings.ToLower(prev.ID) < strings.ToLower(p.ID)) {
				continue
			}
		}
		chosen[name] = p
		t[name] = strings.Clone(p.Content)
	}
	return t
}

// Expand substitutes {{name}} (spaces inside the braces allowed) with vars[name], literally and
// in a single pass: a value containing {{x}} is not expanded again. A variable not in vars is
// left exactly as typed and its name returned in unknown (deduplicated, in order of first use),
// for the caller to log.
func Expand(tmpl string, vars map[string]string) (out string, unknown []string) {
	if !strings.Contains(tmpl, "{{") {
		return tmpl, nil
	}
	var b strings.Builder
	b.Grow(len(tmpl))
	seen := map[string]bool{}
	rest := tmpl
	for {
		i := strings.Index(rest, "{{")
		if i < 0 {
			b.WriteString(rest)
			break
		}
		j := strings.Index(rest[i+2:], "}}")
		if j < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		inner := rest[i+2 : i+2+j]
		name := strings.TrimSpace(inner)
		if v, ok := vars[name]; ok {
			b.WriteString(v)
		} else {
			b.WriteString(rest[i : i+2+j+2])
			if name != "" && !seen[name] {
				seen[name] = true
				unknown = append(unknown, name)
			}
		}
		rest = rest[i+2+j+2:]
	}
	return b.String(), unknown
}
