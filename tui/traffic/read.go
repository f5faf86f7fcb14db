package traffic

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"os"
	"sort"
	"syscall"
)

// ReadFile returns the events of one traffic file in the order they were written. A torn last
// line (a session killed mid-write) and any line that is not an event are skipped, so a file
// that is being written or was left by a crash still reads.
func ReadFile(path string) ([]Event, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil, &Error{Op: "read", Path: path, Err: err}
	}
	defer f.Close()
	var out []Event
	_, err = readLines(f, true, func(e Event) { out = append(out, e) })
	if err != nil {
		return out, &Error{Op: "read", Path: path, Err: err}
	}
	return out, nil
}

// Position is how far each traffic file of a directory has been read: its path → the bytes of
// its complete lines. Follow from a Position delivers what was written since, and nothing twice.
type Position map[string]int64

// ReadDir returns the events of every traffic file in dir, oldest first, and the Position they
// end at. A missing directory is no traffic yet. A last line still being written is left to a
// Follow from the Position.
func ReadDir(dir string) ([]Event, Position, error) {
	var all []Event
	pos := Position{}
	for _, fi := range listFiles(dir) {
		// Non-blocking: a FIFO put in a file's place after the listing must not hold the read.
		f, err := os.OpenFile(fi.path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue // pruned since it was listed
			}
			return all, pos, &Error{Op: "read", Path: fi.path, Err: err}
		}
		if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
			f.Close()
			continue
		}
		n, err := readLines(f, false, func(e Event) { all = append(all, e) })
		f.Close()
		if err != nil {
			return all, pos, &Error{Op: "read", Path: fi.path, Err: err}
		}
		pos[fi.path] = n
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].TS.Before(all[j].TS) })
	return all, pos, nil
}

// readLines decodes the lines of r, calling fn for each event, and returns how many bytes it
// consumed: up to the end of the last complete line. With final set a last line without its
// newline is decoded too (and skipped if torn); without, it is left for the next read.
func readLines(r io.Reader, final bool, fn func(Event)) (int64, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var n int64
	for {
		line, err := br.ReadBytes('\n')
		if errors.Is(err, io.EOF) {
			if final && len(line) > 0 {
				if e, ok := decode(line); ok {
					fn(e)
				}
				n += int64(len(line))
			}
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n += int64(len(line))
		if e, ok := decode(line); ok {
			fn(e)
		}
	}
}

// decode parses one line; a line that is not a JSON object with a timestamp is not an event.
func decode(line []byte) (Event, bool) {
	line = bytes.TrimSpace(line)
	if len(line) == 0 || line[0] != '{' {
		return Event{}, false
	}
	var e Event
	if err := json.Unmarshal(line, &e); err != nil || e.TS.IsZero() {
		return Event{}, false
	}
	return e, true
}
