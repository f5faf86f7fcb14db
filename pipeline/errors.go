package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

// Sentinel errors, for errors.Is.
var (
	// ErrUnknownModel means no built-in or local proxymodel has the name.
	ErrUnknownModel = errors.New("pipeline: no such proxymodel")
	// ErrInvalidModel means a proxymodel file breaks its schema or names a stage that does not
	// exist; the error is a *ModelError listing every problem.
	ErrInvalidModel = errors.New("pipeline: invalid proxymodel")
	// ErrUnknownRef means ReadSection was given a ref this cache does not hold: it was never
	// made here, or it has been evicted. Running the original call again makes it anew.
	ErrUnknownRef = errors.New("pipeline: unknown ref")
	// ErrUnknownSection means the ref is known but has no section with that id.
	ErrUnknownSection = errors.New("pipeline: unknown section")
	// ErrStageFailed wraps every stage failure: the Engine passes a built-in stage's input
	// through instead, and withholds the content when a custom stage fails (ErrWithheld).
	ErrStageFailed = errors.New("pipeline: stage failed")
	// ErrWithheld means a custom stage failed and the content was withheld rather than passed
	// on without the stage's work; the error is a *WithheldError.
	ErrWithheld = errors.New("pipeline: content withheld")
)

// WithheldError says which stage of which model failed, so the content was withheld. A custom
// stage's work may be what makes content fit to send (a redaction): mcpctl cannot tell, so its
// failure is not a pass-through unless its config says onFailure: passthrough.
type WithheldError struct {
	Model string // the proxymodel
	File  string // the proxymodel's file, "" for a built-in
	Stage string // the stage that failed
	// Project is the project the stage was told, "" for none: run again without it, a stage
	// that works per project would be told none, and not fail as it did.
	Project string
	Err     error // why, wrapping ErrStageFailed
}

func (e *WithheldError) Error() string {
	return fmt.Sprintf("pipeline: content withheld: stage %s of proxymodel %s failed: %s", e.Stage, e.Model, strings.TrimPrefix(e.Err.Error(), "pipeline: stage failed: "))
}

// Fix says what the user can do, for error messages and hints.
func (e *WithheldError) Fix() string {
	where := "its config in the proxymodel"
	if e.File != "" {
		where = "its config in " + e.File
	}
	run := "mcpctl pipeline run --model " + promptlib.ShellWord(e.Model)
	if e.Project != "" {
		run += " --project " + promptlib.ShellWord(e.Project)
	}
	return fmt.Sprintf("see why with %s and fix the stage (%s); "+
		"if its work is optional, set onFailure: passthrough in %s", promptlib.Quoted(run+" --verbose FILE"), e.Stage, where)
}

func (e *WithheldError) Unwrap() []error { return []error{ErrWithheld, e.Err} }

// Error is an operation on a file, stage or model that failed.
type Error struct {
	Op   string // what was being done: "load proxymodel", "run stage", "open cache"
	Path string // the file, directory, stage or model involved
	Err  error
}

func (e *Error) Error() string {
	msg := "pipeline: " + e.Op
	if e.Path != "" {
		msg += " " + e.Path
	}
	return msg + ": " + strings.TrimPrefix(e.Err.Error(), "pipeline: ")
}

func (e *Error) Unwrap() error { return e.Err }

// Problem is one thing wrong in a proxymodel file, located by field and line.
type Problem = schemas.FileProblem

// ModelError lists every problem in one proxymodel file. It matches ErrInvalidModel.
type ModelError struct {
	File     string
	Problems []Problem
}

func (e *ModelError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "pipeline: " + e.File + ": " + strings.Join(parts, "; ")
}

func (e *ModelError) Unwrap() error { return ErrInvalidModel }
