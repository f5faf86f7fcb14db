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
	// File is the project file that names Path, when the error is about a folder it names.
	File string
}

func (e *Error) Error() string {
	msg := "gate: " + e.Op
	if e.Path != "" {
		msg += " " + e.Path
	}
	return msg + ": " + strings.TrimPrefix(e.Err.Error(), "gate: ")
}

func (e *Error) Unwrap() error { return e.Err }

// UserHint says what to do next, for the errors a user can fix themselves ("" otherwise).
func (e *Error) UserHint() string {
	if e.Err != ErrNoFolder { // ambiguous paths and names say in the message what to write
		return ""
	}
	file := "the project's file"
	if e.File != "" {
		file = e.File
	}
	return "create the folder " + quote(e.Path) + " in the library (in the app, or with create_folder from a session without this project), " +
		"or change folder: in " + file + " to a folder the library has ('mcpctl get prompts' shows each prompt's folder)"
}

// inFile records the project file behind a folder error.
func inFile(err error, file string) error {
	var e *Error
	if errors.As(err, &e) && e.File == "" {
		e.File = file
	}
	return err
}

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
