package queue

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// processName claims and handles the pending file name (step 2). Anything that is not a regular
// file goes to failed/ unread; a file someone else took first (another processor, or the writer
// withdrawing it) is skipped.
func (p *Processor) processName(ctx context.Context, name string) {
	if ctx.Err() != nil || !isPending(name) {
		return
	}
	src := join(p.Dir, name)
	fi, err := os.Lstat(src)
	if err != nil {
		return
	}
	id, ok := pendingID(name)
	switch {
	case !fi.Mode().IsRegular():
		// The whole mode: Type alone prints a directory as d---------.
		p.reject(src, name, "not a regular file ("+fi.Mode().String()+"); it was not read")
		return
	case !ok:
		p.reject(src, name, "the file name is not {uuid}.json")
		return
	}
	claimed := join(p.Dir, processingDir, name)
	if err := p.claim(src, claimed); err != nil {
		switch {
		case errors.Is(err, fs.ErrExist):
			p.Log.Warn("queue: an operation with this id is already being processed; left pending", "operationId", id)
		case !exists(src):
			// gone: someone else has it
		default:
			// Still pending and cannot be claimed (processing/ is read-only, or not a
			// directory): writers must learn it now rather than wait out every attempt.
			p.stuck = true
			p.Status.failed(fmt.Errorf("queue: the processor cannot claim operations (%s); %s is retried every rescan", rootCause(err), id))
			p.Log.Error("queue: cannot claim the operation; left pending", "operationId", id, "err", err)
		}
		return
	}
	p.hook(HookAfterClaim, id)
	p.handle(ctx, id, claimed)
}

// claim moves the pending file src into processing/ (step 2), after checking the directories:
// a processing/ removed while the processor runs is made again rather than failing every
// operation until a restart, and one swapped for a symlink is never claimed into.
func (p *Processor) claim(src, claimed string) error {
	if err := p.ensureDirs(); err != nil {
		return err
	}
	return renameNoReplace(src, claimed)
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// reject moves path (a non-regular or misnamed entry) into failed/ with a reason, without
// reading or following it.
func (p *Processor) reject(path, name, reason string) {
	if err := realDir(join(p.Dir, failedDir)); err != nil {
		p.stuck = true
		p.Status.failed(fmt.Errorf("queue: the processor cannot set aside %s: failed/ %v", name, err))
		p.Log.Error("queue: cannot move a rejected entry to failed/", "file", name, "err", err)
		return
	}
	dst := p.freeName(join(p.Dir, failedDir), name)
	if err := renameNoReplace(path, dst); err != nil {
		p.Log.Warn("queue: cannot move a rejected entry to failed/", "file", name, "err", err)
		return
	}
	p.stamp(dst)
	writeReason(dst, reason)
	p.Log.Warn("queue: rejected", "file", name, "reason", reason)
}

// stamp dates an entry by when it is filed in processed/ or failed/. A rename keeps
// the time the operation was written, and CleanProcessed judges age by this date: an operation
// that waited a week in the queue, or in processing/ through a long downtime, would otherwise be
// deleted the moment it was applied, and get_operation_status would call it unknown once its
// response expired. failed/ lists the newest failures first by the same date. Never through a
// symlink: the date of whatever it points at is not ours to change.
func (p *Processor) stamp(path string) {
	now := unix.NsecToTimespec(p.Now().UnixNano())
	if err := unix.UtimesNanoAt(unix.AT_FDCWD, path, []unix.Timespec{now, now}, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		p.Log.Warn("queue: cannot date the filed operation; it may be cleaned up early", "file", path, "err", err)
	}
}

// freeName is dir/name, or a suffixed variant when that is taken: filing never replaces.
func (p *Processor) freeName(dir, name string) string {
	dst := join(dir, name)
	if _, err := os.Lstat(dst); err != nil {
		return dst
	}
	return join(dir, name+"."+strconv.FormatInt(p.Now().UnixNano(), 10))
}

// writeReason stores why an entry failed beside it, as {name-without-.json}.error.
func writeReason(dst, reason string) {
	base := dst
	if n := len(base); n > 5 && base[n-5:] == ".json" {
		base = base[:n-5]
	}
	// Never through a symlink planted at the name (it would overwrite the link's target), nor
	// into a FIFO.
	f, err := os.OpenFile(base+".error", os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0o600)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	// The reason, then on its own line the time it was written; FailureReason returns the
	// reason alone, and stands in for one a full disk left empty.
	_, _ = f.WriteString(reason + "\n" + time.Now().UTC().Format(time.RFC3339) + "\n")
}
