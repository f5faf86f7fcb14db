package gate

import (
	"path"
	"strings"
)

// A file's type says what a task is written in, which the words of its path often do not: a call
// that reads "web/src/pages/AccountPage.tsx" is about React, one that plans "infra/main.tf" about
// Terraform, one that opens "Dockerfile" about containers. An intercepted call's values that name
// files also give these topics. The table is general practice, not any library's: a topic the
// project does not know is dropped like every other unknown word (keyScore). Extensions that name
// no technology of their own (.md, .json, .yaml, .txt, .html) are left out: reading a README says
// nothing about what the task touches.
var fileExtTopics = map[string][]string{
	".go":      {"go"},
	".py":      {"python"},
	".rb":      {"ruby"},
	".js":      {"javascript"},
	".mjs":     {"javascript"},
	".cjs":     {"javascript"},
	".ts":      {"typescript"},
	".mts":     {"typescript"},
	".tsx":     {"react", "typescript"},
	".jsx":     {"react", "javascript"},
	".vue":     {"vue"},
	".svelte":  {"svelte"},
	".java":    {"java"},
	".kt":      {"kotlin"},
	".kts":     {"kotlin"},
	".swift":   {"swift"},
	".rs":      {"rust"},
	".ex":      {"elixir"},
	".exs":     {"elixir"},
	".php":     {"php"},
	".scala":   {"scala"},
	".sql":     {"sql"},
	".tf":      {"terraform"},
	".tfvars":  {"terraform"},
	".proto":   {"protobuf"},
	".graphql": {"graphql"},
	".gql":     {"graphql"},
	".css":     {"css"},
	".scss":    {"css"},
	".sass":    {"css"},
	".less":    {"css"},
	".sh":      {"shell"},
	".bash":    {"shell"},
}

// fileNameTopics are files whose name is their type, lower case.
var fileNameTopics = map[string][]string{
	"dockerfile":          {"docker"},
	"containerfile":       {"container"},
	"docker-compose.yml":  {"docker"},
	"docker-compose.yaml": {"docker"},
	"compose.yaml":        {"docker"},
	"makefile":            {"build"},
	"jenkinsfile":         {"ci"},
	".gitlab-ci.yml":      {"ci"},
	"go.mod":              {"go", "dependencies"},
	"package.json":        {"dependencies"},
	"requirements.txt":    {"python", "dependencies"},
	"gemfile":             {"ruby", "dependencies"},
	"cargo.toml":          {"rust", "dependencies"},
	"chart.yaml":          {"helm"},
	"kustomization.yaml":  {"kubernetes"},
}

// fileTopics returns the topics of the file names in v: each space-separated part that is a
// file name or path (no URL) with a known extension or name, and a path under
// .github/workflows/ (CI).
func fileTopics(v string) []string {
	var out []string
	for _, part := range strings.Fields(v) {
		if strings.Contains(part, "://") {
			continue
		}
		part = strings.Trim(part, `"'`+"`,;:()[]")
		base := strings.ToLower(path.Base(part))
		if ts, ok := fileNameTopics[base]; ok {
			out = append(out, ts...)
		} else if ts, ok := fileExtTopics[path.Ext(base)]; ok && len(base) > len(path.Ext(base)) {
			out = append(out, ts...)
		}
		if strings.Contains(strings.ToLower(part), ".github/workflows/") {
			out = append(out, "ci")
		}
	}
	return out
}
