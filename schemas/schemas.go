// Package schemas holds the JSON Schemas of mcpctl's contracts — every tool's input and output,
// the queue's operation and response files, project configs — and validates documents against
// them. Schemas are embedded and compiled once, on first use.
package schemas

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
)

//go:embed *.schema.json
var files embed.FS

const suffix = ".schema.json"

// base is where the embedded schemas are said to live, so their relative $refs resolve among
// them. It is absolute: a bare name would be resolved against the working directory, once when
// the schemas are added and again at each first compile, and a process that changed directory in
// between (tests do) could compile none.
const base = "https://schemas.mcpctl.invalid/"

// Names lists every schema, sorted: a file "list_prompts.input.schema.json" is named
// "list_prompts.input".
func Names() []string {
	entries, _ := fs.Glob(files, "*"+suffix)
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = strings.TrimSuffix(e, suffix)
	}
	sort.Strings(names)
	return names
}

// Raw returns a schema's JSON text, for tool registration. It panics on an unknown name: schema
// names are compile-time constants of the caller.
func Raw(name string) json.RawMessage {
	b, err := files.ReadFile(name + suffix)
	if err != nil {
		panic("schemas: no schema " + name)
	}
	return b
}

// compiled holds the compiler with every schema added, and the schemas compiled so far: each is
// compiled on its first use, so a server that validates a dozen tools' input does not keep the
// compiled form of every queue, config and output schema (a few megabytes).
var compiled struct {
	once    sync.Once
	c       *jsonschema.Compiler
	err     error
	mu      sync.Mutex
	schemas map[string]*jsonschema.Schema
}

func compile(name string) (*jsonschema.Schema, error) {
	compiled.once.Do(func() {
		c := jsonschema.NewCompiler()
		c.AssertFormat()
		for _, name := range Names() {
			doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(Raw(name)))
			if err != nil {
				compiled.err = fmt.Errorf("schemas: %s: %w", name, err)
				return
			}
			if err := c.AddResource(base+name+suffix, doc); err != nil {
				compiled.err = fmt.Errorf("schemas: %s: %w", name, err)
				return
			}
		}
		compiled.c, compiled.schemas = c, map[string]*jsonschema.Schema{}
	})
	if compiled.err != nil {
		return nil, compiled.err
	}
	if _, err := files.ReadFile(name + suffix); err != nil {
		return nil, fmt.Errorf("schemas: no schema %q", name)
	}
	compiled.mu.Lock()
	defer compiled.mu.Unlock()
	if s, ok := compiled.schemas[name]; ok {
		return s, nil
	}
	s, err := compiled.c.Compile(base + name + suffix)
	if err != nil {
		return nil, fmt.Errorf("schemas: compile %s: %w", name, err)
	}
	compiled.schemas[name] = s
	return s, nil
}

// Problem is one way a document breaks its schema.
type Problem struct {
	Pointer string // JSON pointer into the document, "" for the whole document
	Message string
	// Keyword is the schema keyword that failed: "type", "pattern", "additionalProperties",
	// "propertyNames", ... Callers that explain a problem switch on it, never on Message.
	Keyword string
	// Keys names the offending keys of the object at Pointer, for additionalProperties and
	// propertyNames problems.
	Keys []string
}

func (p Problem) String() string {
	ptr := p.Pointer
	if ptr == "" {
		ptr = "/"
	}
	return ptr + ": " + p.Message
}

// NullRefused is the Message of a "type" Problem whose value is null where the schema takes
// none.
const NullRefused = "cannot be null"

// Error lists every problem found in a document.
type Error struct {
	Schema   string
	Problems []Problem
}

func (e *Error) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "schemas: " + e.Schema + ": " + strings.Join(parts, "; ")
}

// Validate checks doc against the named schema. doc is JSON text ([]byte or json.RawMessage) or a
// Go value, which is validated as it would marshal. A document that breaks the schema gives an
// *Error; a document that is not JSON gives an *Error with one problem at the root.
func Validate(name string, doc any) error {
	s, err := compile(name)
	if err != nil {
		return err
	}
	var text []byte
	switch d := doc.(type) {
	case []byte:
		text = d
	case json.RawMessage:
		text = d
	default:
		if text, err = json.Marshal(doc); err != nil {
			return fmt.Errorf("schemas: %s: %w", name, err)
		}
	}
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(text))
	if err != nil {
		return &Error{Schema: name, Problems: []Problem{{Message: "not valid JSON: " + err.Error()}}}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	ve, ok := err.(*jsonschema.ValidationError)
	if !ok {
		return fmt.Errorf("schemas: %s: %w", name, err)
	}
	out := &Error{Schema: name}
	collect(ve, &out.Problems)
	for i := range out.Problems {
		if out.Problems[i].Keyword == "propertyNames" {
			placeKey(v, &out.Problems[i])
		}
	}
	return out
}

// placeKey puts a propertyNames problem at the object that holds its key. The validator keeps
// such an error's location without copying it, and a sibling validated after it can overwrite
// its last part (santhosh-tekuri/jsonschema#269, unmerged in v6.0.3): "servers.db.env" read
// "servers.db.command" about one run in six, depending on map order. The object at the pointer
// is checked; when it lacks the key, the one sibling of it that holds the key is the place.
// Delete it once a release carries the library's fix.
func placeKey(doc any, p *Problem) {
	if len(p.Keys) != 1 || p.Pointer == "" {
		return
	}
	tokens := splitPointer(p.Pointer)
	if len(tokens) == 0 {
		return
	}
	parent, ok := at(doc, tokens[:len(tokens)-1])
	if !ok {
		return
	}
	holds := func(v any) bool {
		obj, ok := v.(map[string]any)
		if ok {
			_, ok = obj[p.Keys[0]]
		}
		return ok
	}
	if v, ok := at(parent, tokens[len(tokens)-1:]); ok && holds(v) {
		return // where it says
	}
	var found []string
	switch c := parent.(type) {
	case map[string]any:
		for k, v := range c {
			if holds(v) {
				found = append(found, k)
			}
		}
	case []any:
		for i, v := range c {
			if holds(v) {
				found = append(found, strconv.Itoa(i))
			}
		}
	}
	if len(found) == 1 {
		p.Pointer = pointer(append(tokens[:len(tokens)-1], found[0]))
	}
}

// at is the value at the path tokens in doc.
func at(doc any, tokens []string) (any, bool) {
	for _, t := range tokens {
		switch c := doc.(type) {
		case map[string]any:
			v, ok := c[t]
			if !ok {
				return nil, false
			}
			doc = v
		case []any:
			i, err := strconv.Atoi(t)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			doc = c[i]
		default:
			return nil, false
		}
	}
	return doc, true
}

var printer = message.NewPrinter(language.English)

// collect keeps the leaves of the cause tree: the specific failures, not the "doesn't validate
// with ..." summaries above them.
func collect(e *jsonschema.ValidationError, into *[]Problem) {
	if pn, ok := e.ErrorKind.(*kind.PropertyNames); ok {
		// The causes describe the name as if it were a value; report them at the object, naming
		// the key.
		var inner []Problem
		for _, c := range e.Causes {
			collect(c, &inner)
		}
		for _, p := range inner {
			*into = append(*into, Problem{Pointer: pointer(e.InstanceLocation), Message: p.Message, Keyword: "propertyNames", Keys: []string{pn.Property}})
		}
		return
	}
	if len(e.Causes) == 0 {
		p := Problem{Pointer: pointer(e.InstanceLocation), Message: problemMessage(e.ErrorKind)}
		if t, ok := e.ErrorKind.(*kind.Type); ok && t.Got == "null" && p.Pointer != "" {
			// "got null, want string" reads as a type to convert to; null is a value, and the
			// field takes none (an update's title: leave it out to keep it). A whole document
			// that is null keeps "want object".
			p.Message = NullRefused
		}
		if kp := e.ErrorKind.KeywordPath(); len(kp) > 0 {
			p.Keyword = kp[0]
		}
		if ap, ok := e.ErrorKind.(*kind.AdditionalProperties); ok {
			p.Keys = ap.Properties
		}
		*into = append(*into, p)
		return
	}
	for _, c := range e.Causes {
		collect(c, into)
	}
}

// problemMessage is the validator's message for a failure, in two places in plainer words: it
// prints a JSON null as Go's <nil> ("must be one of 'red', …, <nil>"), and a bound's numbers as
// floats in the printer's notation, so 2000000 read "2×10⁰⁶".
func problemMessage(k jsonschema.ErrorKind) string {
	switch k := k.(type) {
	case *kind.Minimum:
		return boundMessage("minimum", k.Got, k.Want)
	case *kind.Maximum:
		return boundMessage("maximum", k.Got, k.Want)
	case *kind.ExclusiveMinimum:
		return boundMessage("exclusiveMinimum", k.Got, k.Want)
	case *kind.ExclusiveMaximum:
		return boundMessage("exclusiveMaximum", k.Got, k.Want)
	case *kind.MultipleOf:
		return boundMessage("multipleOf", k.Got, k.Want)
	}
	return strings.ReplaceAll(k.LocalizedString(printer), "<nil>", "null")
}

// boundMessage is a numeric bound's failure, with its numbers as people write them.
func boundMessage(name string, got, want *big.Rat) string {
	return fmt.Sprintf("%s: got %s, want %s", name, number(got), number(want))
}

// number is r as people write it: 2,000,000 or 0.5.
func number(r *big.Rat) string {
	if r.IsInt() && r.Num().IsInt64() {
		return printer.Sprintf("%d", r.Num().Int64())
	}
	f, _ := r.Float64()
	return strconv.FormatFloat(f, 'f', -1, 64)
}

func pointer(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(strings.NewReplacer("~", "~0", "/", "~1").Replace(t))
	}
	return b.String()
}
