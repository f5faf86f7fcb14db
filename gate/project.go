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
	"unicode"

	"golang.org/x/text/unicode/norm"

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
	Name       string         // the file's base name without ".yaml" (see RepoProjectName); "" for NoProject
	File       string         // the file it was loaded from; "" for NoProject
	Folder     string         // library folder name, "A / B" path or id; "" = whole library
	Gated      bool           // whether sessions start gated
	GateMode   GateMode       // HardMode or SoftMode
	ByteBudget int            // bytes of prompt content a briefing carries in full, > 0
	IndexCap   int            // the most lines the prompt index lists, > 0
	Priorities map[string]int // prompt name → 1..10; never nil
	ProxyModel string         // "" when unset
	// ProxyModelOverrides picks a proxymodel per source ("server/tool", a URI, a prompt name).
	ProxyModelOverrides map[string]string
	// Synonyms maps a word or phrase of the project's to others that mean the same to it, used
	// both ways when ranking (see synonyms.go); nil when unset.
	Synonyms map[string][]string
	// Servers are the MCP servers the project runs (DESIGN §10), by name; never nil. Env values
	// are kept as written: ${VAR} is expanded when a server starts, so secrets never sit here.
	Servers map[string]ServerSpec
}

// ServerSpec is one upstream MCP server of a project, as its file gives it.
type ServerSpec struct {
	Command    string
	Args       []string
	Env        map[string]string // values may hold ${VAR} references, unexpanded
	Cwd        string            // "" = the project's directory decides
	TimeoutMs  int               // 0 = the default (60 s)
	Allow      []string          // tool names or globs; empty = every tool
	Deny       []string          // tool names or globs never served
	ProxyModel string            // "" when unset
}

// NoProject is what a server runs with when no project is chosen: the whole library, not gated.
func NoProject() Project {
	return Project{
		Gated:      false,
		GateMode:   HardMode,
		ByteBudget: DefaultByteBudget,
		IndexCap:   DefaultIndexCap,
		Priorities: map[string]int{},
		Servers:    map[string]ServerSpec{},
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

// RepoProjectName is the name of the project a repository holds in REPO/.mcpctl/project.yaml,
// given REPO. That file is project.yaml in every repository, so its base name would call every
// such project "project" (in the greeting, traffic, the console); the repository's directory
// tells them apart. Its name is made a project name: lower case, accents folded, '.' and '_'
// kept, every other run of characters one '-', at most 64, starting with a letter or digit.
// A name with nothing of that left ("/", "日本語") gives "repository".
func RepoProjectName(repoDir string) string {
	var b strings.Builder
	dash := false
	for _, r := range norm.NFKD.String(filepath.Base(repoDir)) {
		switch {
		case unicode.Is(unicode.Mn, r): // combining marks left by the decomposition
		case r < unicode.MaxASCII && (unicode.IsLetter(r) || unicode.IsDigit(r)),
			(r == '.' || r == '_') && b.Len() > 0:
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(unicode.ToLower(r))
		default:
			dash = true
		}
	}
	name := b.String()
	if len(name) > 64 {
		name = strings.TrimRight(name[:64], "-")
	}
	if !projectName.MatchString(name) {
		return "repository"
	}
	return name
}

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

// projectFile is a project file as its schema describes it.
type projectFile struct {
	Folder     *string             `json:"folder"`
	Gated      *bool               `json:"gated"`
	GateMode   *string             `json:"gateMode"`
	ByteBudget *int                `json:"byteBudget"`
	IndexCap   *int                `json:"indexCap"`
	Priorities map[string]int      `json:"priorities"`
	ProxyModel *string             `json:"proxyModel"`
	Synonyms   map[string][]string `json:"synonyms"`
	Overrides  map[string]string   `json:"proxyModelOverrides"`
	Servers    map[string]struct {
		Command   string            `json:"command"`
		Args      []string          `json:"args"`
		Env       map[string]string `json:"env"`
		Cwd       string            `json:"cwd"`
		TimeoutMs int               `json:"timeoutMs"`
		Tools     struct {
			Allow []string `json:"allow"`
			Deny  []string `json:"deny"`
		} `json:"tools"`
		ProxyModel string `json:"proxyModel"`
	} `json:"servers"`
}

// ParseProject parses a project file's text; file names it in errors and gives the project its
// name (a repository's project.yaml is renamed by its loader: RepoProjectName). The text is checked against schemas/project.schema.json; every problem is reported with
// its field and line, not only the first.
func ParseProject(file string, data []byte) (Project, error) {
	p := NoProject()
	p.File = file
	p.Name = strings.TrimSuffix(filepath.Base(file), ProjectExt)
	p.Gated = true

	var f projectFile
	if err := schemas.DecodeYAML("project", file, data, &f); err != nil {
		var fe *schemas.FileError
		if !errors.As(err, &fe) {
			return Project{}, &Error{Op: "load project", Path: file, Err: err}
		}
		for i, pr := range fe.Problems {
			if pr.Keyword != "propertyNames" {
				continue
			}
			switch pr.Field {
			case "priorities." + pr.Key:
				fe.Problems[i].Message = "not a prompt name: priorities are keyed by prompt name, the slug of the title (" + strconv.Quote(promptlib.Slug(pr.Key)) + ")"
			case "servers." + pr.Key:
				fe.Problems[i].Message = "not a server name: letters, digits, and single '-' or '_' between them, at most 32 (its tools are named NAME__tool)"
			default:
				if strings.HasPrefix(pr.Field, "servers.") && strings.HasSuffix(pr.Field, ".env."+pr.Key) {
					fe.Problems[i].Message = "not an environment variable name: letters, digits and '_', not starting with a digit"
				}
			}
		}
		return Project{}, &ProjectError{File: file, Problems: fe.Problems}
	}
	if f.Folder != nil {
		p.Folder = *f.Folder
	}
	if f.Gated != nil {
		p.Gated = *f.Gated
	}
	if f.GateMode != nil {
		p.GateMode = GateMode(*f.GateMode)
	}
	if f.ByteBudget != nil {
		p.ByteBudget = *f.ByteBudget
	}
	if f.IndexCap != nil {
		p.IndexCap = *f.IndexCap
	}
	for k, v := range f.Priorities {
		p.Priorities[k] = v
	}
	if f.ProxyModel != nil {
		p.ProxyModel = *f.ProxyModel
	}
	p.Synonyms = f.Synonyms
	p.ProxyModelOverrides = f.Overrides
	for name, s := range f.Servers {
		p.Servers[name] = ServerSpec{Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd, TimeoutMs: s.TimeoutMs,
			Allow: s.Tools.Allow, Deny: s.Tools.Deny, ProxyModel: s.ProxyModel}
	}
	return p, nil
}
