package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/mcpctl/mcpctl/schemas"
)

// ModelExt is a proxymodel file's extension.
const ModelExt = ".yaml"

// StageSpec is one stage of a proxymodel: a built-in or custom stage's name and its config.
type StageSpec struct {
	Type   string         `json:"type"`
	Config map[string]any `json:"config,omitempty"`
}

// Model is a proxymodel: a named list of stages and the content they apply to.
type Model struct {
	Name        string        `json:"name"`
	Description string        `json:"description,omitempty"`
	Controller  string        `json:"controller"` // "gate" or "none"
	AppliesTo   []ContentType `json:"appliesTo"`
	MinBytes    int           `json:"minBytes"`
	Stages      []StageSpec   `json:"stages"`
	File        string        `json:"file,omitempty"` // the file it was read from; "" for a built-in
	BuiltIn     bool          `json:"builtIn"`        // a built-in, not overridden by a file
}

// Applies reports whether the model transforms content of type t and size bytes.
func (m Model) Applies(t ContentType, size int) bool {
	return size >= m.MinBytes && size > 0 && slices.Contains(m.AppliesTo, t)
}

// MakesSections reports whether the model's results may carry sections, so read_section is
// worth listing: any stage other than passthrough may make them.
func (m Model) MakesSections() bool {
	for _, s := range m.Stages {
		if s.Type != "passthrough" {
			return true
		}
	}
	return false
}

// StageNames lists the model's stage types in order.
func (m Model) StageNames() []string {
	names := make([]string, len(m.Stages))
	for i, s := range m.Stages {
		names[i] = s.Type
	}
	return names
}

// DefaultModel is the built-in proxymodel content gets where a project names none.
const DefaultModel = "default"

// BuiltinModels are the proxymodels every install has; a file of the same name overrides one.
func BuiltinModels() []Model {
	return []Model{
		{
			Name: DefaultModel, Description: "Serves content as it is; content over 32 KB is cut into pages of 8 KB, the first page sent with a table of the others.",
			Controller: "gate", AppliesTo: slices.Clone(ContentTypes), MinBytes: 32 << 10, BuiltIn: true,
			Stages: []StageSpec{{Type: "passthrough"}, {Type: "paginate"}},
		},
		{
			Name: "subindex", Description: "Content over 4 KB becomes a table of its sections with a summary each; every section is one read_section away.",
			Controller: "gate", AppliesTo: slices.Clone(ContentTypes), MinBytes: 4 << 10, BuiltIn: true,
			Stages: []StageSpec{{Type: "section-split"}, {Type: "summarize-tree"}},
		},
	}
}

func builtinModel(name string) (Model, bool) {
	for _, m := range BuiltinModels() {
		if m.Name == name {
			return m, true
		}
	}
	return Model{}, false
}

var modelName = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)

// modelFile is a proxymodel file as its schema describes it.
type modelFile struct {
	Name        *string       `json:"name"`
	Description string        `json:"description"`
	Controller  *string       `json:"controller"`
	AppliesTo   []ContentType `json:"appliesTo"`
	MinBytes    *int          `json:"minBytes"`
	Stages      []StageSpec   `json:"stages"`
}

// ParseModel parses a proxymodel file's text; file names it in errors and, by its base name,
// gives the model its name. The text is checked against schemas/proxymodel.schema.json; every
// problem is reported with its field and line as a *ModelError. It does not check that the
// stages exist: Engine.CheckModel does.
func ParseModel(file string, data []byte) (Model, error) {
	name := strings.TrimSuffix(filepath.Base(file), ModelExt)
	var f modelFile
	if err := schemas.DecodeYAML("proxymodel", file, data, &f); err != nil {
		var fe *schemas.FileError
		if errors.As(err, &fe) {
			return Model{}, &ModelError{File: file, Problems: fe.Problems}
		}
		return Model{}, &Error{Op: "load proxymodel", Path: file, Err: err}
	}
	if f.Name != nil && *f.Name != name {
		return Model{}, &ModelError{File: file, Problems: []Problem{{Field: "name", Message: fmt.Sprintf(
			"is %q but the file is named %s%s; a model is known by its file name, so rename the file or fix the name", *f.Name, name, ModelExt)}}}
	}
	m := Model{Name: name, Description: f.Description, Controller: "gate", AppliesTo: f.AppliesTo, Stages: f.Stages, File: file}
	if f.Controller != nil {
		m.Controller = *f.Controller
	}
	if len(m.AppliesTo) == 0 {
		m.AppliesTo = slices.Clone(ContentTypes)
	}
	if f.MinBytes != nil {
		m.MinBytes = *f.MinBytes
	}
	for i := range m.Stages {
		if m.Stages[i].Config == nil {
			m.Stages[i].Config = map[string]any{}
		}
	}
	return m, nil
}

// fingerprint identifies a file's version cheaply: a changed file has (almost always) a new
// modification time, size or inode.
type fingerprint struct {
	mod  time.Time
	size int64
	ino  uint64
}

func fingerprintOf(fi fs.FileInfo) fingerprint {
	fp := fingerprint{mod: fi.ModTime(), size: fi.Size()}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		fp.ino = uint64(st.Ino)
	}
	return fp
}

type loadedModel struct {
	fp    fingerprint
	model Model
	err   error
}

// readConfigFile reads a small config file without following it into a FIFO or device: only a
// regular file of at most limit bytes.
func readConfigFile(path string, limit int64) ([]byte, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fi, fmt.Errorf("not a regular file")
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	return data, fi, err
}

// Model returns the proxymodel called name: the file proxymodels/NAME.yaml when there is one,
// else the built-in. The file is checked on every call (one stat) and re-read when it changed,
// so an edit applies to the next request without a restart.
func (e *Engine) Model(name string) (Model, error) {
	if !modelName.MatchString(name) {
		return Model{}, e.unknownModel(name)
	}
	path := filepath.Join(e.modelsDir, name+ModelExt)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if m, ok := builtinModel(name); ok {
			return m, nil
		}
		return Model{}, e.unknownModel(name)
	}
	if err != nil {
		return Model{}, &Error{Op: "load proxymodel", Path: path, Err: err}
	}
	fp := fingerprintOf(fi)
	e.mu.Lock()
	lm, ok := e.models[name]
	e.mu.Unlock()
	if !ok || lm.fp != fp {
		lm = &loadedModel{fp: fp}
		data, fi, err := readConfigFile(path, schemas.MaxYAMLBytes)
		if err != nil {
			lm.err = &Error{Op: "load proxymodel", Path: path, Err: err}
		} else {
			lm.fp = fingerprintOf(fi)
			lm.model, lm.err = ParseModel(path, data)
		}
		e.mu.Lock()
		e.models[name] = lm
		e.mu.Unlock()
	}
	if lm.err != nil {
		return lm.model, lm.err
	}
	// Checked on every call, not cached with the file: a stage created, fixed or removed after
	// the model was read counts at the next request.
	return lm.model, e.CheckModel(lm.model)
}

func (e *Engine) unknownModel(name string) error {
	names, _ := e.ModelNames()
	return &Error{Op: "find proxymodel", Path: name, Err: fmt.Errorf("%w; the models are %s (files in %s)", ErrUnknownModel, strings.Join(names, ", "), e.modelsDir)}
}

// CheckModel reports a model whose stages do not resolve, as a *ModelError.
func (e *Engine) CheckModel(m Model) error {
	var problems []Problem
	for i, s := range m.Stages {
		if _, _, err := e.resolveStage(s.Type); err != nil {
			problems = append(problems, Problem{Field: fmt.Sprintf("stages.%d.type", i), Message: err.Error()})
		}
	}
	if len(problems) > 0 {
		return &ModelError{File: m.File, Problems: problems}
	}
	return nil
}

// ModelNames lists the built-in and local proxymodels' names, sorted.
func (e *Engine) ModelNames() ([]string, error) {
	seen := map[string]bool{}
	for _, m := range BuiltinModels() {
		seen[m.Name] = true
	}
	entries, err := os.ReadDir(e.modelsDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Op: "list proxymodels", Path: e.modelsDir, Err: err}
	}
	for _, en := range entries {
		if n, ok := strings.CutSuffix(en.Name(), ModelExt); ok && modelName.MatchString(n) && !en.IsDir() {
			seen[n] = true
		}
	}
	names := make([]string, 0, len(seen))
	for n := range seen {
		names = append(names, n)
	}
	sort.Strings(names)
	return names, nil
}
