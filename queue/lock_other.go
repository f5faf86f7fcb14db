//go:build !linux

package queue

// flockHeld cannot tell without taking the lock where there is no /proc/locks: Running probes.
func flockHeld(string) (held, ok bool) { return false, false }

// flockHolder cannot tell either.
func flockHolder(string) (pid int, held, ok bool) { return 0, false, false }

// stopped cannot tell without /proc.
func stopped(int) bool { return false }
