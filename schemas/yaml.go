package schemas

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Limits on a YAML config file. They bound the time and memory one hostile file can cost: the
// largest real config is a few kilobytes, and a 600-byte alias bomb expands to gigabytes.
const (
	// MaxYAMLBytes is the largest config file DecodeYAML reads.
	MaxYAMLBytes = 1 << 20
	// MaxYAMLValues is how many values (scalars, mappings, sequences, counted each time an
	// alias repeats them) a file may expand to.
	MaxYAMLValues = 100_000
	// MaxYAMLDepth is how deeply a file may nest.
	MaxYAMLDepth = 64
)

// ErrInvalidFile is matched by every *FileError.
var ErrInvalidFile = errors.New("schemas: invalid file")

// FileProblem is one thing wrong in a config file, located so the user can go straight to it.
type FileProblem struct {
	Field   string // dotted path of the field, "priorities.security-review"; "" for the whole file
	Line    int    // 1-based line in the file; 0 when unknown
	Message string
	// Keyword is the schema keyword that failed ("pattern", "additionalProperties", ...), or ""
	// for problems found before validation (syntax, duplicates, limits). Callers that explain a
	// problem in their own words switch on it, never on Message.
	Keyword string
	// Key is the offending key of an unknown field or a bad property name: Field ends with it,
	// and a key may itself hold dots ("servers.x.y" is the key "x.y" of servers).
	Key string
}

func (p FileProblem) String() string {
	var b strings.Builder
	if p.Line > 0 {
		fmt.Fprintf(&b, "line %d: ", p.Line)
	}
	if p.Field != "" {
		fmt.Fprintf(&b, "field %q: ", p.Field)
	}
	b.WriteString(p.Message)
	return b.String()
}

// FileError lists every problem in one config file. It matches ErrInvalidFile.
type FileError struct {
	File     string
	Schema   string
	Problems []FileProblem
}

func (e *FileError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "schemas: " + e.File + ": " + strings.Join(parts, "; ")
}

func (e *FileError) Unwrap() error { return ErrInvalidFile }

// DecodeYAML checks a YAML config file's text against the named schema and decodes it into v
// (through its JSON form, so v's json tags apply). file names the file in errors. Every problem
// is reported with its field and line, not only the first, as a *FileError. An empty file (or
// one holding only comments) decodes as an empty object. The file's size, nesting and alias
// expansion are bounded (MaxYAMLBytes, MaxYAMLDepth, MaxYAMLValues), so a hostile file is refused
// quickly, naming the file.
func DecodeYAML(name, file string, data []byte, v any) error {
	fail := func(p FileProblem) error { return &FileError{File: file, Schema: name, Problems: []FileProblem{p}} }
	if len(data) > MaxYAMLBytes {
		return fail(FileProblem{Message: fmt.Sprintf("the file is %d bytes; a config file may be at most %d", len(data), MaxYAMLBytes)})
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return fail(syntaxProblem(err))
	}
	var value any = map[string]any{}
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = doc.Content[0]
		e := expander{budget: MaxYAMLValues}
		value = e.value(root, nil, 0)
		if e.exhausted {
			return fail(FileProblem{Line: e.exhaustedAt, Message: fmt.Sprintf(
				"the file expands to more than %d values (anchors and aliases repeat what they name); write it out plainly", MaxYAMLValues)})
		}
		if len(e.problems) > 0 {
			return &FileError{File: file, Schema: name, Problems: sortProblems(e.problems)}
		}
	}
	if err := Validate(name, value); err != nil {
		var se *Error
		if !errors.As(err, &se) {
			return fmt.Errorf("schemas: %s: %w", file, err)
		}
		var problems []FileProblem
		for _, sp := range se.Problems {
			problems = append(problems, locate(name, root, sp)...)
		}
		return &FileError{File: file, Schema: name, Problems: sortProblems(problems)}
	}
	text, err := json.Marshal(value)
	if err != nil {
		return fmt.Errorf("schemas: %s: %w", file, err)
	}
	if err := json.Unmarshal(text, v); err != nil {
		return fmt.Errorf("schemas: %s: %w", file, err)
	}
	return nil
}

func sortProblems(p []FileProblem) []FileProblem {
	sort.SliceStable(p, func(i, j int) bool { return p[i].Line < p[j].Line })
	return p
}

var yamlLine = regexp.MustCompile(`^line (\d+): (.*)$`)

// syntaxProblem turns a YAML parse error ("yaml: line 2: mapping values are not allowed in this
// context") into a located problem.
func syntaxProblem(err error) FileProblem {
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		return FileProblem{Line: line, Message: "not valid YAML: " + m[2]}
	}
	return FileProblem{Message: "not valid YAML: " + msg}
}

// expander turns a YAML node tree into the value JSON Schema sees, within a budget of values.
type expander struct {
	budget      int
	exhausted   bool
	exhaustedAt int
	problems    []FileProblem
}

// value converts n. Duplicate keys, which JSON cannot express and YAML forbids, are reported
// with their line.
func (e *expander) value(n *yaml.Node, path []string, depth int) any {
	if e.exhausted {
		return nil
	}
	if e.budget--; e.budget < 0 {
		e.exhausted, e.exhaustedAt = true, n.Line
		return nil
	}
	if depth > MaxYAMLDepth {
		e.problems = append(e.problems, FileProblem{Field: strings.Join(path, "."), Line: n.Line, Message: "nested too deeply"})
		return nil
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil
		}
		return e.value(n.Content[0], path, depth+1)
	case yaml.AliasNode:
		if n.Alias == nil {
			return nil
		}
		return e.value(n.Alias, path, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			key := k.Value
			field := append(append([]string(nil), path...), key)
			if _, dup := m[key]; dup {
				e.problems = append(e.problems, FileProblem{Field: strings.Join(field, "."), Line: k.Line, Message: "given twice"})
				continue
			}
			m[key] = e.value(v, field, depth+1)
		}
		return m
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for i, c := range n.Content {
			s = append(s, e.value(c, append(append([]string(nil), path...), strconv.Itoa(i)), depth+1))
		}
		return s
	default:
		var v any
		if err := n.Decode(&v); err != nil {
			return n.Value
		}
		switch f := v.(type) {
		case float64: // JSON Schema's integer accepts 4096.0; keep whole numbers whole
			if f == float64(int64(f)) {
				return int64(f)
			}
		case uint64:
			return json.Number(strconv.FormatUint(f, 10))
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

// locate turns a schema problem into problems that name the field and line. The validator
// reports an unknown field or a bad property name at the enclosing object, naming the keys in
// Problem.Keys; each is looked up so the line is the key's own.
func locate(schema string, root *yaml.Node, sp Problem) []FileProblem {
	tokens := splitPointer(sp.Pointer)
	if root == nil {
		return []FileProblem{{Field: strings.Join(tokens, "."), Message: sp.Message, Keyword: sp.Keyword}}
	}
	node, line, path := walk(root, tokens)
	if len(path) < len(tokens) { // the pointer goes past what the file holds
		path = tokens
	}
	field := strings.Join(path, ".")
	if len(sp.Keys) > 0 {
		var out []FileProblem
		for _, key := range sp.Keys {
			k, _ := member(node, key)
			if k == nil {
				continue
			}
			msg := sp.Message
			if sp.Keyword == "additionalProperties" {
				msg = "unknown field"
				if fields := Fields(schema, path); len(fields) > 0 {
					msg += "; the fields are " + strings.Join(fields, ", ")
				}
			}
			out = append(out, FileProblem{Field: joinField(field, key), Line: k.Line, Message: msg, Keyword: sp.Keyword, Key: key})
		}
		if len(out) > 0 {
			return sortProblems(out)
		}
	}
	return []FileProblem{{Field: field, Line: line, Message: sp.Message, Keyword: sp.Keyword}}
}

// Fields lists the properties a schema declares for the object at path (nil: the top level),
// sorted; nil where the schema declares none.
func Fields(name string, path []string) []string {
	var s map[string]any
	if err := json.Unmarshal(Raw(name), &s); err != nil {
		return nil
	}
	for _, p := range path {
		props, _ := s["properties"].(map[string]any)
		next, ok := props[p].(map[string]any)
		if !ok {
			if ap, ok := s["additionalProperties"].(map[string]any); ok {
				next = ap
			} else {
				return nil
			}
		}
		s = next
	}
	props, _ := s["properties"].(map[string]any)
	fields := make([]string, 0, len(props))
	for k := range props {
		fields = append(fields, k)
	}
	sort.Strings(fields)
	return fields
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
