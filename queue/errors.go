package queue

import "errors"

// ErrLocked is returned when another processor holds the library's processor lock.
var ErrLocked = errors.New("queue: another processor is running on this library")

// Error is a queue failure with the operation and path it concerns.
type Error struct {
	Op   string
	Path string
	Err  error
}

func (e *Error) Error() string { return "queue: " + e.Op + " " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }
