package queue

import (
	"fmt"

	"golang.org/x/sys/unix"

	"github.com/mcpctl/mcpctl/promptlib"
)

// minFree is the space a write may need on the queue's disk: its operation file (up to
// promptlib.MaxOperationSize) and the response, the two at once for a moment.
const minFree = 2 * promptlib.MaxOperationSize

// SpaceProblem says when the disk holding the queue dir has too little room for a write: it
// would fail with the disk full, and health_check should say so before a write does. nil when
// there is room, or when the free space cannot be read (the directory checks say why).
func SpaceProblem(dir string) error {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return nil
	}
	return spaceProblem(dir, st.Bavail*uint64(st.Bsize))
}

// spaceProblem is SpaceProblem for free bytes available to us.
func spaceProblem(dir string, free uint64) error {
	if free >= minFree {
		return nil
	}
	return fmt.Errorf("the disk holding the import queue %s has %d KB free, less than the %d KB a write may need, so writes fail with the disk full; ask the user to free space on that disk",
		dir, free>>10, minFree>>10)
}
