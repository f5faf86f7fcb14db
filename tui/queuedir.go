package tui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/google/uuid"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/queue"
)

// The queue's layout (package queue's doc): pending {id}.json in the directory, and the
// state subdirectories.
var queueStates = []string{"pending", "processing", "processed", "failed"}

// processedShown is how many of the newest processed operations the Queue screen lists.
const processedShown = 100

// queueOp is one operation file as the Queue screen shows it.
type queueOp struct {
	State  string // one of queueStates
	ID     string // the file's name without .json
	Shown  string // ID as the screen shows it (display)
	Kind   string // the operation's kind, "?" when the file cannot be read
	At     time.Time
	Reason string // failed/{id}.error
	size   int64  // of the file, -1 when unknown
}

// queueState is one reading of the queue directory.
type queueState struct {
	Counts  map[string]int
	Ops     []queueOp // pending, processing, failed, then processed; newest first within each
	Missing bool      // the directory does not exist
}

// opKinds remembers the kind of each operation file a scan decoded, by its path, size and
// time: an operation file is written once, and decoding one means reading all of it (a prompt's
// whole body), so a screen that rescans after every change decoded the same 150 files each time
// (18 ms a scan for 20 KB operations). Safe for concurrent use.
type opKinds struct {
	mu sync.Mutex
	m  map[string]opKind
}

type opKind struct {
	size int64
	at   time.Time
	kind string
}

// scanQueueWith is scanQueue that takes the kinds it knows from kinds (nil: none) and leaves
// there those of this scan.
func scanQueueWith(dir string, kinds *opKinds) (queueState, error) {
	seen := map[string]opKind{}
	if kinds != nil {
		defer func() {
			kinds.mu.Lock()
			kinds.m = seen // only the files still there: the cache never outgrows a scan
			kinds.mu.Unlock()
		}()
	}
	known := func(path string, size int64, at time.Time) string {
		if kinds != nil {
			kinds.mu.Lock()
			k, ok := kinds.m[path]
			kinds.mu.Unlock()
			if ok && k.size == size && k.at.Equal(at) {
				seen[path] = k
				return k.kind
			}
		}
		kind := readOpKind(path)
		seen[path] = opKind{size: size, at: at, kind: kind}
		return kind
	}
	st := queueState{Counts: map[string]int{}}
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		st.Missing = true
		return st, nil
	}
	for _, state := range queueStates {
		sub := dir
		if state != "pending" {
			sub = filepath.Join(dir, state)
		}
		entries, err := os.ReadDir(sub)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return st, fmt.Errorf("tui: read the queue %s: %w", sub, err)
		}
		var ops []queueOp
		for _, e := range entries {
			name := e.Name()
			if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") || e.IsDir() {
				continue
			}
			op := queueOp{State: state, ID: strings.TrimSuffix(name, ".json"), size: -1}
			if fi, err := e.Info(); err == nil {
				op.At, op.size = fi.ModTime(), fi.Size()
			}
			ops = append(ops, op)
		}
		st.Counts[state] = len(ops)
		sort.Slice(ops, func(i, j int) bool { return ops[i].At.After(ops[j].At) })
		if state == "processed" && len(ops) > processedShown {
			ops = ops[:processedShown]
		}
		for i := range ops {
			ops[i].Kind = known(filepath.Join(sub, ops[i].ID+".json"), ops[i].size, ops[i].At)
			if state == "failed" {
				ops[i].Reason = queue.FailureReason(sub, ops[i].ID)
			}
		}
		if state == "processed" {
			st.Ops = append(st.Ops, ops...)
		} else {
			st.Ops = append(ops, st.Ops...)
		}
	}
	// pending, processing, failed, processed: the ones that need a look first.
	order := map[string]int{"pending": 0, "processing": 1, "failed": 2, "processed": 3}
	sort.SliceStable(st.Ops, func(i, j int) bool { return order[st.Ops[i].State] < order[st.Ops[j].State] })
	return st, nil
}

// readOpKind reads the operation kind of an operation file, "?" if it is not one.
func readOpKind(path string) string {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "?"
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "?"
	}
	var op struct {
		Operation string `json:"operation"`
	}
	if json.NewDecoder(io.LimitReader(f, promptlib.MaxOperationSize)).Decode(&op) != nil || op.Operation == "" {
		return "?"
	}
	return op.Operation
}

// retryOp puts a failed operation back into the queue. It goes back under a fresh id with the
// current time: the processor remembers every id it answered (applied_ops) and would give a
// retried id its recorded failure again. The new file is written as the writer publishes
// (temp file, link without replacing); the failed one is removed only once the new one is in
// place. It returns the new id.
func retryOp(dir, id string) (string, error) {
	src := filepath.Join(dir, "failed", id+".json")
	f, err := os.OpenFile(src, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return "", fmt.Errorf("tui: retry %s: %w", id, err)
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return "", fmt.Errorf("tui: retry %s: not a regular file; discard it instead", id)
	}
	data, err := io.ReadAll(io.LimitReader(f, promptlib.MaxOperationSize+1))
	f.Close()
	if err != nil {
		return "", fmt.Errorf("tui: retry %s: %w", id, err)
	}
	var op promptlib.Operation
	if len(data) > promptlib.MaxOperationSize || json.Unmarshal(data, &op) != nil || op.Operation == "" {
		return "", fmt.Errorf("tui: retry %s: the file is not a valid operation, so retrying cannot help; discard it", id)
	}
	op.ID = uuid.NewString()
	op.Timestamp = promptlib.Time{Time: time.Now().UTC().Truncate(time.Millisecond)}
	body, err := json.Marshal(op)
	if err != nil {
		return "", fmt.Errorf("tui: retry %s: %w", id, err)
	}
	tmp, final := filepath.Join(dir, "."+op.ID+".tmp"), filepath.Join(dir, op.ID+".json")
	w, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", fmt.Errorf("tui: retry %s: %w", id, err)
	}
	_, err = w.Write(body)
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Link(tmp, final)
	}
	os.Remove(tmp)
	if err != nil {
		return "", fmt.Errorf("tui: retry %s: nothing was queued: %w", id, err)
	}
	discardOp(dir, id) // queued again; a leftover failed copy would only mislead
	return op.ID, nil
}

// discardOp deletes a failed operation and its reason for good.
func discardOp(dir, id string) error {
	failed := filepath.Join(dir, "failed")
	if err := os.Remove(filepath.Join(failed, id+".json")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("tui: discard %s: %w", id, err)
	}
	if err := os.Remove(filepath.Join(failed, id+".error")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("tui: discard %s: the operation is gone but its reason is not: %w", id, err)
	}
	return nil
}
