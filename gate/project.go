package gate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

// GateMode says how a gated session hides the tools.
type GateMode string

const (
	// HardMode lists only begin_session while the session is gated.
	HardMode GateMode = "hard"
	// SoftMode lists every tool from the start; the first real call is intercepted.
	SoftMode GateMode = "soft"
)

// Defaults for fields a project file leaves out.
const (
	DefaultByteBudget = 8192
	DefaultIndexCap   = 50
	DefaultPriority   = 5
	// CriticalPriority marks prompts that every briefing carries in full.
	CriticalPriority = 10
)

// ProjectExt is the extension of project files.
const ProjectExt = ".yaml"

// Project is one project file, with every default filled in. The zero value is not useful: use
// NoProject, LoadProject or ParseProject.
type Project struct {
	Name       string         // the file's base name without ".yaml"; "" for NoProject
	File       string         // the file it was loaded from; "" for NoProject
	Folder     string         // library folder name, "A / B" path or id; "" = whole library
	Gated      bool           // whether sessions start gated
	GateMode   GateMode       // HardMode or SoftMode
	ByteBudget int            // bytes of prompt content a briefing carries in full, > 0
	IndexCap   int            // the most lines the prompt index lists, > 0
	Priorities map[string]int // prompt name → 1..10; never nil
	ProxyModel string         // "" when unset
}

// NoProject is what a server runs with when no project is chosen: the whole library, not gated.
func NoProject() Project {
	return Project{
		Gated:      false,
		GateMode:   HardMode,
		ByteBudget: DefaultByteBudget,
		IndexCap:   DefaultIndexCap,
		Priorities: map[string]int{},
	}
}

// Priority is the priority of the prompt with this name: the project's setting, else 5.
func (p Project) Priority(name string) int {
	if v, ok := p.Priorities[name]; ok {
		return v
	}
	return DefaultPriority
}

// DisplayName is how texts name the project: its name, or "the whole library" without one.
func (p Project) DisplayName() string {
	if p.Name == "" {
		return "the whole library"
	}
	return p.Name
}

var projectName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`)

// LoadProject reads the project called name from dir (the caller resolves
// $XDG_CONFIG_HOME/mcpctl/projects). A missing file gives an error matching ErrNoProject; a file
// that breaks the schema gives a *ProjectError naming the file, each field and its line.
func LoadProject(dir, name string) (Project, error) {
	if !projectName.MatchString(name) || strings.HasSuffix(name, ProjectExt) {
		return Project{}, &Error{Op: "load project", Path: name, Err: errors.New("a project name is letters, digits, '.', '_' and '-', at most 64, without the .yaml extension")}
	}
	file := filepath.Join(dir, name+ProjectExt)
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return Project{}, &Error{Op: "load project", Path: file, Err: ErrNoProject}
	}
	if err != nil {
		return Project{}, &Error{Op: "load project", Path: file, Err: err}
	}
	return ParseProject(file, data)
}

// ListProjects lists the names of the project files in dir, sorted. A missing directory has no
// projects; files that are not *.yaml, or whose names are not valid project names, are skipped.
func ListProjects(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Op: "list projects", Path: dir, Err: err}
	}
	var names []string
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ProjectExt)
		if !ok || !projectName.MatchString(name) || e.IsDir() {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names, nil
}

// ParseProject parses a project file's text; file names it in errors and gives the project its
// name. The text is checked against schemas/project.schema.json; every problem is reported with
// its field and line, not only the first.
func ParseProject(file string, data []byte) (Project, error) {
	p := NoProject()
	p.File = file
	p.Name = strings.TrimSuffix(filepath.Base(file), ProjectExt)
	p.Gated = true

	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return Project{}, &ProjectError{File: file, Problems: []Problem{syntaxProblem(err)}}
	}
	if len(doc.Content) == 0 { // an empty file: every default
		return p, nil
	}
	root := doc.Content[0]
	var problems []Problem
	value := nodeValue(root, nil, &problems, 0)
	if err := schemas.Validate("project", value); err != nil {
		var se *schemas.Error
		if !errors.As(err, &se) {
			return Project{}, &Error{Op: "load project", Path: file, Err: err}
		}
		for _, sp := range se.Problems {
			problems = append(problems, locate(root, sp)...)
		}
	}
	if len(problems) > 0 {
		sort.SliceStable(problems, func(i, j int) bool { return problems[i].Line < problems[j].Line })
		return Project{}, &ProjectError{File: file, Problems: problems}
	}

	// The schema passed, so every field has its type and range.
	m, _ := value.(map[string]any)
	if v, ok := m["folder"].(string); ok {
		p.Folder = v
	}
	if v, ok := m["gated"].(bool); ok {
		p.Gated = v
	}
	if v, ok := m["gateMode"].(string); ok {
		p.GateMode = GateMode(v)
	}
	if v, ok := asInt(m["byteBudget"]); ok {
		p.ByteBudget = v
	}
	if v, ok := asInt(m["indexCap"]); ok {
		p.IndexCap = v
	}
	if pr, ok := m["priorities"].(map[string]any); ok {
		for k, v := range pr {
			n, _ := asInt(v)
			p.Priorities[k] = n
		}
	}
	if v, ok := m["proxyModel"].(string); ok {
		p.ProxyModel = v
	}
	return p, nil
}

func asInt(v any) (int, bool) {
	switch n := v.(type) {
	case int:
		return n, true
	case int64:
		return int(n), true
	case uint64:
		return int(n), true
	case float64:
		return int(n), n == float64(int(n))
	}
	return 0, false
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// syntaxProblem turns a YAML parse error ("yaml: line 2: mapping values are not allowed in this
// context") into a located problem.
func syntaxProblem(err error) Problem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return Problem{Line: line, Message: "not valid YAML: " + m[2]}
	}
	return Problem{Message: "not valid YAML: " + msg}
}

// nodeValue turns a YAML node into the value JSON Schema sees. Duplicate keys, which JSON cannot
// express and YAML forbids, are reported here with their line.
func nodeValue(n *yaml.Node, path []string, problems *[]Problem, depth int) any {
	if depth > 64 {
		*problems = append(*problems, Problem{Field: strings.Join(path, "."), Line: n.Line, Message: "nested too deeply"})
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return nodeValue(n.Content[0], path, problems, depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil
		}
		return nodeValue(n.Alias, path, problems, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := k.Value
			field := append(append([]string(nil), path...), key)
			if _, dup := m[key]; dup {
				*problems = append(*problems, Problem{Field: strings.Join(field, "."), Line: k.Line, Message: "given twice"})
				continue
			}
			m[key] = nodeValue(v, field, problems, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			s = append(s, nodeValue(c, append(append([]string(nil), path...), strconv.Itoa(i)), problems, depth+1))
		}
		return s
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return n.Value
		}
		return v
	}
}

// member finds a mapping's key and value nodes by key.
func member(m *yaml.Node, key string) (k, v *yaml.Node) {
	if m.Kind == yaml.AliasNode && m.Alias != nil {
		m = m.Alias
	}
	if m.Kind != yaml.MappingNode {
		return nil, nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// walk follows JSON pointer tokens through the node tree. It returns the deepest node reached,
// the line to report (a member's key line, so the user sees the field name) and the tokens
// followed.
func walk(root *yaml.Node, tokens []string) (node *yaml.Node, line int, path []string) {
	node, line = root, root.Line
	for _, t := range tokens {
		next := node
		if next.Kind == yaml.AliasNode && next.Alias != nil {
			next = next.Alias
		}
		switch next.Kind {
		case yaml.MappingNode:
			k, v := member(next, t)
			if k == nil {
				return node, line, path
			}
			node, line = v, k.Line
		case yaml.SequenceNode:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(next.Content) {
				return node, line, path
			}
			node, line = next.Content[i], next.Content[i].Line
		default:
			return node, line, path
		}
		path = append(path, t)
	}
	return node, line, path
}

// findKey looks for a mapping key anywhere in the tree, in document order.
func findKey(n *yaml.Node, key string, path []string, depth int) (*yaml.Node, []string) {
	if depth > 64 {
		return nil, nil
	}
	switch n.Kind {
	case yaml.DocumentNode, yaml.SequenceNode:
		for i, c := range n.Content {
			p := path
			if n.Kind == yaml.SequenceNode {
				p = append(append([]string(nil), path...), strconv.Itoa(i))
			}
			if k, kp := findKey(c, key, p, depth+1); k != nil {
				return k, kp
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(n.Content); i += 2 {
			p := append(append([]string(nil), path...), n.Content[i].Value)
			if n.Content[i].Value == key {
				return n.Content[i], p
			}
			if k, kp := findKey(n.Content[i+1], key, p, depth+1); k != nil {
				return k, kp
			}
		}
	}
	return nil, nil
}

var (
	quoted        = regexp.MustCompile(`'([^']*)'`)
	projectFields = "byteBudget, folder, gateMode, gated, indexCap, priorities, proxyModel"
)

// locate turns a schema problem into problems that name the field and line. The schema reports
// an unknown field or a bad property name at the enclosing object, naming the key only in its
// message; such keys are looked up so the line is the key's own.
func locate(root *yaml.Node, sp schemas.Problem) []Problem {
	tokens := splitPointer(sp.Pointer)
	node, line, path := walk(root, tokens)
	if len(path) < len(tokens) { // the pointer goes past what the file holds
		path = tokens
	}
	field := strings.Join(path, ".")

	if strings.HasPrefix(sp.Message, "additional properties") {
		var out []Problem
		for _, m := range quoted.FindAllStringSubmatch(sp.Message, -1) {
			k, _ := member(node, m[1])
			if k == nil {
				continue
			}
			msg := "unknown field"
			if len(path) == 0 {
				msg += "; the fields are " + projectFields
			}
			out = append(out, Problem{Field: joinField(field, m[1]), Line: k.Line, Message: msg})
		}
		if len(out) > 0 {
			sort.Slice(out, func(i, j int) bool { return out[i].Line < out[j].Line })
			return out
		}
	}
	if strings.Contains(sp.Message, "does not match pattern") {
		if m := quoted.FindStringSubmatch(sp.Message); m != nil {
			if k, kp := findKey(root, m[1], nil, 0); k != nil {
				msg := sp.Message
				if len(kp) == 2 && kp[0] == "priorities" {
					msg = "not a prompt name: priorities are keyed by prompt name, the slug of the title (" + strconv.Quote(promptlib.Slug(m[1])) + ")"
				}
				return []Problem{{Field: strings.Join(kp, "."), Line: k.Line, Message: msg}}
			}
		}
	}
	return []Problem{{Field: field, Line: line, Message: sp.Message}}
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

func splitPointer(p string) []string {
	if p == "" || p == "/" {
		return nil
	}
	parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
	for i, t := range parts {
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return parts
}
