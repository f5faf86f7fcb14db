package upstream

import "path/filepath"

// projectBase is the repository holding file when file is REPO/.mcpctl/project.yaml (the
// layout package trust finds), else file's directory; "" for no file.
func projectBase(file string) string {
	if file == "" {
		return ""
	}
	dir := filepath.Dir(file)
	if filepath.Base(dir) == ".mcpctl" {
		return filepath.Dir(dir)
	}
	return dir
}
