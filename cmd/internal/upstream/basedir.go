package upstream

import "path/filepath"

// RepoDir and RepoFile name a project that travels with its repository: REPO/.mcpctl/project.yaml.
const (
	RepoDir  = ".mcpctl"
	RepoFile = "project.yaml"
)

// projectBase is the repository holding file when file is REPO/.mcpctl/project.yaml, else
// file's directory; "" for no file.
func projectBase(file string) string {
	if file == "" {
		return ""
	}
	dir := filepath.Dir(file)
	if filepath.Base(dir) == RepoDir {
		return filepath.Dir(dir)
	}
	return dir
}
