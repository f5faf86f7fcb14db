//go:build !linux

package queue

// flockWaiting cannot tell where there is no /proc/locks.
func flockWaiting(string) (waiting, ok bool) { return false, false }
