package queue

import (
	"path/filepath"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// File names inside the queue directory. Everything mcpctl keeps there besides pending
// operations starts with a dot, so a processor that ignores dot-files never sees it.
const (
	processingDir = "processing"
	processedDir  = "processed"
	failedDir     = "failed"
	lockName      = ".processor.lock"
)

func opName(id string) string        { return id + ".json" }
func tmpName(id string) string       { return "." + id + ".tmp" }
func responseName(id string) string  { return ".response-" + id + ".json" }
func withdrawnName(id string) string { return "." + id + ".withdrawn" }
func responseTmpName(id string) string {
	return ".response-" + id + ".tmp"
}

// pendingID returns the operation id of a pending operation file name, ok false for anything
// else (dot-files, other extensions, names that are not a UUID).
func pendingID(name string) (string, bool) {
	if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
		return "", false
	}
	id := strings.TrimSuffix(name, ".json")
	return id, promptlib.ValidID(id)
}

func join(elem ...string) string { return filepath.Join(elem...) }
