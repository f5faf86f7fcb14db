package gate

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func writeFile(tb testing.TB, dir, name, text string) string {
	tb.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

func TestLoadProject(t *testing.T) {
	defaults := NoProject()
	defaults.Gated = true
	tests := []struct {
		name string
		text string
		want func(p *Project) // edits the defaults into the expected project
	}{
		{"empty file is all defaults", "", func(p *Project) {}},
		{"comment only", "# nothing yet\n", func(p *Project) {}},
		{"every field", `folder: Engineering / Backend
gated: false
gateMode: soft
byteBudget: 4096
indexCap: 20
priorities:
  security-review: 10
  release-notes: 1
proxyModel: compact
`, func(p *Project) {
			p.Folder = "Engineering / Backend"
			p.Gated = false
			p.GateMode = SoftMode
			p.ByteBudget = 4096
			p.IndexCap = 20
			p.Priorities = map[string]int{"security-review": 10, "release-notes": 1}
			p.ProxyModel = "compact"
		}},
		{"anchors and aliases", "priorities: &p\n  a: 7\nfolder: Docs\n", func(p *Project) {
			p.Folder = "Docs"
			p.Priorities = map[string]int{"a": 7}
		}},
		{"flow style", "{gated: true, priorities: {x-1: 3}}", func(p *Project) {
			p.Priorities = map[string]int{"x-1": 3}
		}},
		{"whole-number float", "byteBudget: 4096.0\n", func(p *Project) { p.ByteBudget = 4096 }},
		{"servers", `servers:
  db:
    command: npx
    args: [-y, "@example/db-mcp"]
    env: {TOKEN: "${DB_TOKEN}"}
    cwd: tools
    timeoutMs: 5000
    tools: {allow: ["query*"], deny: [drop_table]}
    proxyModel: subindex
  docs: {command: /usr/bin/docs-mcp}
`, func(p *Project) {
			p.Servers = map[string]ServerSpec{
				"db": {Command: "npx", Args: []string{"-y", "@example/db-mcp"}, Env: map[string]string{"TOKEN": "${DB_TOKEN}"},
					Cwd: "tools", TimeoutMs: 5000, Allow: []string{"query*"}, Deny: []string{"drop_table"}, ProxyModel: "subindex"},
				"docs": {Command: "/usr/bin/docs-mcp"},
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := writeFile(t, dir, "web.yaml", tt.text)
			got, err := LoadProject(dir, "web")
			if err != nil {
				t.Fatalf("LoadProject: %v", err)
			}
			want := defaults
			want.Priorities = map[string]int{}
			want.Name, want.File = "web", file
			tt.want(&want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("got  %+v\nwant %+v", got, want)
			}
		})
	}
}

// projectFields is what an unknown top-level field's message lists.
const projectFields = "byteBudget, folder, gateMode, gated, indexCap, priorities, proxyModel, proxyModelOverrides, servers, synonyms"

func TestLoadProjectProblems(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Problem
	}{
		{"unknown field", "folder: Docs\ncolour: red\n", []Problem{
			{Field: "colour", Line: 2, Message: "unknown field; the fields are " + projectFields},
		}},
		{"two unknown fields, each on its line", "gated: true\nbudget: 10\nmode: hard\n", []Problem{
			{Field: "budget", Line: 2, Message: "unknown field; the fields are " + projectFields},
			{Field: "mode", Line: 3, Message: "unknown field; the fields are " + projectFields},
		}},
		{"priority above 10", "priorities:\n  security-review: 10\n  common-mistakes: 11\n", []Problem{
			{Field: "priorities.common-mistakes", Line: 3, Message: "maximum: got 11, want 10"},
		}},
		{"priority below 1", "\n\npriorities: {a: 0}\n", []Problem{
			{Field: "priorities.a", Line: 3, Message: "minimum: got 0, want 1"},
		}},
		{"priority not a number", "priorities:\n  a: high\n", []Problem{
			{Field: "priorities.a", Line: 2, Message: "got string, want integer"},
		}},
		{"priority keyed by title", "priorities:\n  Security Review: 9\n", []Problem{
			{Field: "priorities.Security Review", Line: 2, Message: `not a prompt name: priorities are keyed by prompt name, the slug of the title ("security-review")`},
		}},
		{"bad mode, zero budget, empty folder", "gateMode: strict\nbyteBudget: 0\nfolder: \"\"\n", []Problem{
			{Field: "gateMode", Line: 1, Message: "value must be one of 'hard', 'soft'"},
			{Field: "byteBudget", Line: 2, Message: "minimum: got 0, want 1"},
			{Field: "folder", Line: 3, Message: "minLength: got 0, want 1"},
		}},
		{"gated not a boolean", "gated: maybe\n", []Problem{
			{Field: "gated", Line: 1, Message: "got string, want boolean"},
		}},
		{"field given twice", "indexCap: 5\nindexCap: 6\n", []Problem{
			{Field: "indexCap", Line: 2, Message: "given twice"},
		}},
		{"priorities as a list", "folder: Docs\npriorities:\n  - a\n  - b\n", []Problem{
			{Field: "priorities", Line: 2, Message: "got array, want object"},
		}},
		{"server without a command", "servers:\n  db:\n    args: [x]\n", []Problem{
			{Field: "servers.db", Line: 2, Message: "missing property 'command'"},
		}},
		{"server name with a double underscore", "servers:\n  my__db: {command: x}\n", []Problem{
			{Field: "servers.my__db", Line: 2, Message: "not a server name: letters, digits, and single '-' or '_' between them, at most 32 (its tools are named NAME__tool)"},
		}},
		{"server name with a dot", "servers:\n  x.y: {command: x}\n", []Problem{
			{Field: "servers.x.y", Line: 2, Message: "not a server name: letters, digits, and single '-' or '_' between them, at most 32 (its tools are named NAME__tool)"},
		}},
		{"environment variable name with a space", "servers:\n  db:\n    command: x\n    env: {MY VAR: a}\n", []Problem{
			{Field: "servers.db.env.MY VAR", Line: 4, Message: "not an environment variable name: letters, digits and '_', not starting with a digit"},
		}},
		{"server timeout too small", "servers:\n  db: {command: x, timeoutMs: 5}\n", []Problem{
			{Field: "servers.db.timeoutMs", Line: 2, Message: "minimum: got 5, want 100"},
		}},
		{"null document", "~\n", []Problem{
			{Line: 1, Message: "got null, want object"},
		}},
		{"not a mapping", "- folder: Docs\n", []Problem{
			{Line: 1, Message: "got array, want object"},
		}},
		{"syntax error", "folder: Docs\n  gated: [\n", []Problem{
			{Line: 2, Message: "not valid YAML: mapping values are not allowed in this context"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := writeFile(t, dir, "web.yaml", tt.text)
			_, err := LoadProject(dir, "web")
			var pe *ProjectError
			if !errors.As(err, &pe) {
				t.Fatalf("got error %v, want a *ProjectError", err)
			}
			if !errors.Is(err, ErrInvalidProject) {
				t.Errorf("errors.Is(%v, ErrInvalidProject) = false", err)
			}
			if pe.File != file {
				t.Errorf("got file %q, want %q", pe.File, file)
			}
			got := append([]Problem(nil), pe.Problems...)
			for i := range got {
				got[i].Keyword, got[i].Key = "", "" // which keyword failed is the schema's business
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got problems\n  %q\nwant\n  %q", got, tt.want)
			}
			// The message names the file, and each field and line.
			msg := err.Error()
			if !strings.HasPrefix(msg, "gate: "+file+": ") {
				t.Errorf("message %q does not start with gate: and the file", msg)
			}
			for _, p := range tt.want {
				if !strings.Contains(msg, p.String()) {
					t.Errorf("message %q lacks %q", msg, p.String())
				}
			}
		})
	}
}

func TestProblemString(t *testing.T) {
	got := (&ProjectError{File: "p/web.yaml", Problems: []Problem{
		{Field: "colour", Line: 2, Message: "unknown field"},
		{Line: 1, Message: "not valid YAML"},
	}}).Error()
	want := `gate: p/web.yaml: line 2: field "colour": unknown field; line 1: not valid YAML`
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestLoadProjectErrors(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, project string
		wantIs        error
		wantIn        string
	}{
		{"missing", "nope", ErrNoProject, filepath.Join(dir, "nope.yaml")},
		{"path in the name", "../etc/passwd", nil, "project name"},
		{"extension in the name", "web.yaml", nil, "without the .yaml extension"},
		{"empty name", "", nil, "project name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := LoadProject(dir, tt.project)
			if err == nil {
				t.Fatal("got no error")
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("got %v, want it to match %v", err, tt.wantIs)
			}
			if !strings.HasPrefix(err.Error(), "gate: ") || !strings.Contains(err.Error(), tt.wantIn) {
				t.Errorf("got %q, want gate: ... %q", err, tt.wantIn)
			}
		})
	}
}

func TestListProjects(t *testing.T) {
	dir := t.TempDir()
	for _, name := range []string{"web.yaml", "api.yaml", "notes.txt", ".hidden.yaml", "b.yml"} {
		writeFile(t, dir, name, "")
	}
	if err := os.Mkdir(filepath.Join(dir, "dir.yaml"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := ListProjects(dir)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"api", "web"}; !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}

	got, err = ListProjects(filepath.Join(dir, "missing"))
	if err != nil || len(got) != 0 {
		t.Errorf("missing dir: got %q, %v; want no projects, no error", got, err)
	}
}

// A repository's project is named after the repository, as a name LoadProject would accept.
func TestRepoProjectName(t *testing.T) {
	long := strings.Repeat("a", 63) + " b" + strings.Repeat("c", 10)
	for _, tt := range []struct{ dir, want string }{
		{"/home/me/src/mcpctl", "mcpctl"},
		{"/home/me/src/Shop Front", "shop-front"},
		{"/src/Café Crème/", "cafe-creme"},
		{"/src/api.example.com", "api.example.com"},
		{"/src/my_app", "my_app"},
		{"/src/.dotfiles", "dotfiles"},
		{"/src/--weird  (copy)--", "weird-copy"},
		{"/src/" + long, strings.Repeat("a", 63)}, // cut at 64, without the '-' it would end on
		{"/src/日本語", "repository"},
		{"/", "repository"},
		{"", "repository"},
	} {
		got := RepoProjectName(tt.dir)
		if got != tt.want {
			t.Errorf("RepoProjectName(%q) = %q, want %q", tt.dir, got, tt.want)
		}
		if !projectName.MatchString(got) {
			t.Errorf("RepoProjectName(%q) = %q, not a valid project name", tt.dir, got)
		}
	}
}

func TestProjectPriority(t *testing.T) {
	p := project(100, map[string]int{"a": 9})
	for _, tt := range []struct {
		name string
		want int
	}{{"a", 9}, {"b", DefaultPriority}} {
		if got := p.Priority(tt.name); got != tt.want {
			t.Errorf("Priority(%q) = %d, want %d", tt.name, got, tt.want)
		}
	}
	if got := NoProject(); got.Gated || got.ByteBudget != 8192 || got.IndexCap != 50 || got.GateMode != HardMode {
		t.Errorf("NoProject() = %+v, want ungated, hard, 8192, 50", got)
	}
}

func TestLoadProjectHostile(t *testing.T) {
	bomb := "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n" +
		"g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\ni: &i [*h, *h, *h, *h, *h, *h, *h, *h, *h]\n"
	deep := strings.Repeat("[", 200) + strings.Repeat("]", 200)
	huge := "folder: " + strings.Repeat("x", 2<<20) + "\n"
	for _, tt := range []struct{ name, text, want string }{
		{"alias bomb", bomb, "expands to more than"},
		{"deep nesting", "folder: " + deep + "\n", "nested too deeply"},
		{"huge file", huge, "a config file may be at most"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			file := writeFile(t, dir, "web.yaml", tt.text)
			_, err := LoadProject(dir, "web")
			if !errors.Is(err, ErrInvalidProject) || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), file) {
				t.Fatalf("got %v, want an invalid project naming %s and saying %q", err, file, tt.want)
			}
		})
	}
}
