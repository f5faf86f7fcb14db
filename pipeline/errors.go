package pipeline

import (
	"errors"
	"strings"

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
	// ErrStageFailed wraps every stage failure: the Engine passes the input through instead.
	ErrStageFailed = errors.New("pipeline: stage failed")
)

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
