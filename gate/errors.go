package gate

import (
	"errors"
	"strings"

	"github.com/mcpctl/mcpctl/schemas"
)

// Sentinel errors, for errors.Is.
var (
	// ErrNoProject means no project file of that name exists.
	ErrNoProject = errors.New("gate: no such project")
	// ErrInvalidProject means a project file exists but breaks its schema; the error is a
	// *ProjectError listing every problem.
	ErrInvalidProject = errors.New("gate: invalid project")
	// ErrNoFolder means the project's folder is not in the library.
	ErrNoFolder = errors.New("gate: project folder not found")
)

// Error is an operation on a file or project that failed.
type Error struct {
	Op   string // what was being done: "load project", "list projects", "resolve folder"
	Path string // the file, directory or folder involved
	Err  error
}

func (e *Error) Error() string {
	msg := "gate: " + e.Op
	if e.Path != "" {
		msg += " " + e.Path
	}
	return msg + ": " + strings.TrimPrefix(e.Err.Error(), "gate: ")
}

func (e *Error) Unwrap() error { return e.Err }

// Problem is one thing wrong in a project file, located so the user can go straight to it.
type Problem = schemas.FileProblem

// ProjectError lists every problem in one project file. It matches ErrInvalidProject.
type ProjectError struct {
	File     string
	Problems []Problem
}

func (e *ProjectError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "gate: " + e.File + ": " + strings.Join(parts, "; ")
}

func (e *ProjectError) Unwrap() error { return ErrInvalidProject }
