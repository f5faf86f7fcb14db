package queue

import (
	"errors"
	"sync"
)

// States of a library's in-process processor, as ProcessorStatus reports them.
const (
	ProcStarting = "starting" // not yet elected or not yet ready
	ProcRunning  = "running"  // this process holds the lock and processes the queue
	ProcWaiting  = "waiting"  // another process holds the lock: it processes the queue
	ProcFailed   = "failed"   // cannot process: the error says why (a symlinked processed/, a full disk, ...)
	ProcStopped  = "stopped"  // RunElected has returned
)

// ErrProcessorStopped is the reason Alive gives once the elected processor has stopped for good.
var ErrProcessorStopped = errors.New("queue: the library's queue processor has stopped")

// ProcessorStatus is the state of a standalone library's elected processor, written by
// RunElected and its Processor, read by the server: health_check reports State, and a
// Writer given Alive (WithProcessor) fails fast with the real reason instead of waiting for an
// answer that cannot come. The zero value is ready to use (state "starting"); safe for
// concurrent use.
type ProcessorStatus struct {
	mu    sync.Mutex
	state string
	err   error
	// holder, while waiting, checks the process that holds the lock: nil while it can process
	// the queue, why it cannot otherwise (HolderStopped).
	holder func() error
	// writeErr is why the last operation could not be written to the library (a full disk,
	// a read-only file), nil once one is. The processor keeps running meanwhile (the next
	// write may succeed, and each failure answers its writer with the cause), so it is not a
	// state but a reason for health_check not to say healthy.
	writeErr error
}

// State returns the processor's state and, when it is ProcFailed, the reason.
func (s *ProcessorStatus) State() (state string, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.state == "" {
		return ProcStarting, nil
	}
	return s.state, s.err
}

// Alive is nil while the queue is processed or about to be (starting, running, or waiting for
// another process's processor that can run), and the reason otherwise. Pass it to
// Writer.WithProcessor.
func (s *ProcessorStatus) Alive() error {
	s.mu.Lock()
	state, err, holder := s.state, s.err, s.holder
	s.mu.Unlock()
	switch state {
	case ProcFailed:
		return err
	case ProcStopped:
		return ErrProcessorStopped
	case ProcWaiting:
		if holder != nil {
			return holder() // outside the lock: it reads /proc
		}
	}
	return nil
}

// waiting records that another process holds the lock, and how to check that it can process
// the queue (nil: assume it can).
func (s *ProcessorStatus) waiting(holder func() error) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.err, s.writeErr, s.holder = ProcWaiting, nil, nil, holder // as set does, in one step
}

// WriteError is why the processor's last attempt to write the library failed (the disk is
// full, the file is read-only, ...), or, before its first attempt, why none can succeed (the
// file is read-only as it started); nil when the last attempt succeeded or none was made and
// nothing stood in the way.
func (s *ProcessorStatus) WriteError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.writeErr
}

// wrote records the outcome of a write to the library: err (nil for a success) stands until
// the next write.
func (s *ProcessorStatus) wrote(err error) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.writeErr = err
}

func (s *ProcessorStatus) set(state string, err error) {
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.state, s.err, s.holder = state, err, nil // a holder is waiting's alone
	if state == ProcWaiting || state == ProcStopped {
		// Another process writes the library now, or none does: this one's last write says
		// nothing about it any more.
		s.writeErr = nil
	}
}

// failed records err; a nil status (a processor run without one) ignores it.
func (s *ProcessorStatus) failed(err error) { s.set(ProcFailed, err) }
