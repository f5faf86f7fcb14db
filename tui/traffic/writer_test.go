package traffic

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

var t0 = time.Date(2026, 11, 23, 6, 30, 0, 0, time.UTC)

// sample is a response event with every field set.
func sample(i int) Event {
	return Event{
		TS: t0.Add(time.Duration(i) * time.Millisecond), Session: "s1", Project: "web", Kind: KindResponse,
		Method: "tools/call", ID: fmt.Sprint(i), Name: "search_prompts", DurationMs: 1.5,
		BytesIn: 120, BytesOut: 4096, Status: StatusError, ErrorCode: "NOT_FOUND",
		Gate:     &Gate{State: "open", Matched: 3, Sent: 2, Bytes: 2048},
		Pipeline: &Pipeline{Model: "subindex", Stages: []string{"section-split", "summarize-tree"}, BytesBefore: 9000, BytesAfter: 1200, CacheHit: true},
		Upstream: "github", Payload: json.RawMessage(`{"q":"ünïcode 👨‍💻"}`),
	}
}

func openWriter(tb testing.TB, dir string) *Writer {
	tb.Helper()
	w, err := Open(dir, t0)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { w.Close() })
	return w
}

func TestWriteReadRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "traffic")
	w := openWriter(t, dir)
	want := []Event{sample(1), {TS: t0, Session: "s1", Kind: KindNotification, Method: "notifications/tools/list_changed"}}
	for _, e := range want {
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("read back\n got %+v\nwant %+v", got, want)
	}
	if name := filepath.Base(w.Path()); !regexp.MustCompile(`^20261123T063000\.000Z-\d+\.jsonl$`).MatchString(name) {
		t.Errorf("file name %q, want {start-time}-{pid}.jsonl", name)
	}
	for path, want := range map[string]os.FileMode{dir: 0o700, w.Path(): 0o600} {
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if got := fi.Mode().Perm(); got != want {
			t.Errorf("%s has mode %o, want %o", path, got, want)
		}
	}
	if err := w.Write(sample(2)); err == nil {
		t.Error("Write after Close succeeded, want an error")
	}
}

// A write the disk can take only part of (here the kernel's file size limit, as a full disk
// would) leaves a torn line; the next event still lands on a line of its own.
func TestTornWriteLosesOnlyItsOwnEvent(t *testing.T) {
	w := openWriter(t, t.TempDir())
	if err := w.Write(sample(1)); err != nil {
		t.Fatal(err)
	}
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		t.Fatal(err)
	}
	short := limit
	short.Cur = uint64(w.size) + 40
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &short); err != nil {
		t.Skipf("cannot lower the file size limit: %v", err)
	}
	err := w.Write(sample(2))
	if rerr := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit); rerr != nil {
		t.Fatal(rerr)
	}
	if err == nil {
		t.Fatal("a write beyond the file size limit succeeded")
	}
	if err := w.Write(sample(3)); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if want := []Event{sample(1), sample(3)}; !reflect.DeepEqual(got, want) {
		t.Errorf("read back %d events %+v\nwant the first and the third", len(got), got)
	}
}

// Lengths only by default: an event without a payload writes no payload key.
func TestNoPayloadUnlessTraced(t *testing.T) {
	w := openWriter(t, t.TempDir())
	e := sample(1)
	e.Payload = nil
	if err := w.Write(e); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(w.Path())
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "payload") {
		t.Errorf("line %s has a payload key, want none", b)
	}
	if !strings.HasSuffix(string(b), "}\n") || strings.Count(string(b), "\n") != 1 {
		t.Errorf("line %q, want one JSON line", b)
	}
}

func TestOpenRefusesSymlinkedDir(t *testing.T) {
	root := t.TempDir()
	target := filepath.Join(root, "elsewhere")
	if err := os.Mkdir(target, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "traffic")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(link, t0); err == nil || !strings.HasPrefix(err.Error(), "traffic: ") {
		t.Errorf("Open on a symlinked dir: err %v, want a traffic error", err)
	}
}

// A symlink planted at the session's file name is never followed: the writer takes the next name.
func TestOpenNeverFollowsPlantedLink(t *testing.T) {
	dir := t.TempDir()
	victim := filepath.Join(t.TempDir(), "victim")
	if err := os.WriteFile(victim, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	planted := filepath.Join(dir, t0.Format(nameTime)+fmt.Sprintf("-%d", os.Getpid())+Ext)
	if err := os.Symlink(victim, planted); err != nil {
		t.Fatal(err)
	}
	w := openWriter(t, dir)
	if err := w.Write(sample(1)); err != nil {
		t.Fatal(err)
	}
	if w.Path() == planted {
		t.Errorf("writer took the planted link's name %s", planted)
	}
	if b, _ := os.ReadFile(victim); string(b) != "keep" {
		t.Errorf("link target now holds %q, want it untouched", b)
	}
}

func TestPrune(t *testing.T) {
	const mb = 1 << 20
	type file struct {
		name string
		size int
		age  time.Duration
	}
	for _, tc := range []struct {
		name  string
		files []file
		kept  []string
	}{
		{"older than 7 days go", []file{{"a.jsonl", 10, 8 * 24 * time.Hour}, {"b.jsonl", 10, 6 * 24 * time.Hour}}, []string{"b.jsonl"}},
		{"oldest beyond 20 MB go", []file{{"old.jsonl", 10 * mb, 3 * time.Hour}, {"mid.jsonl", 8 * mb, 2 * time.Hour}, {"new.jsonl", 3 * mb, time.Hour}}, []string{"mid.jsonl", "new.jsonl"}},
		{"other files stay", []file{{"notes.txt", 10, 30 * 24 * time.Hour}, {".hidden.jsonl", 10, 30 * 24 * time.Hour}}, []string{".hidden.jsonl", "notes.txt"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for _, f := range tc.files {
				p := filepath.Join(dir, f.name)
				if err := os.WriteFile(p, make([]byte, f.size), 0o600); err != nil {
					t.Fatal(err)
				}
				if err := os.Chtimes(p, t0.Add(-f.age), t0.Add(-f.age)); err != nil {
					t.Fatal(err)
				}
			}
			w := openWriter(t, dir)
			var got []string
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				if filepath.Join(dir, e.Name()) != w.Path() {
					got = append(got, e.Name())
				}
			}
			if !reflect.DeepEqual(got, tc.kept) {
				t.Errorf("kept %v, want %v", got, tc.kept)
			}
		})
	}
}

// A long session moves on to a new file past maxFile, and every event stays readable.
func TestRotation(t *testing.T) {
	dir := t.TempDir()
	w := openWriter(t, dir)
	first := w.Path()
	big := json.RawMessage(`"` + strings.Repeat("x", 1<<20) + `"`)
	const n = 7 // 7 MB > maxFile
	for i := range n {
		e := sample(i)
		e.Payload = big
		if err := w.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	if w.Path() == first {
		t.Fatalf("still writing %s after %d MB, want a new file past %d bytes", first, n, maxFile)
	}
	var count int
	for _, f := range listFiles(dir) {
		evs, err := ReadFile(f.path)
		if err != nil {
			t.Fatal(err)
		}
		count += len(evs)
		if f.size > maxFile {
			t.Errorf("%s has %d bytes, want at most %d", f.path, f.size, maxFile)
		}
	}
	if count != n {
		t.Errorf("read %d events across files, want %d", count, n)
	}
}

func TestConcurrentWriters(t *testing.T) {
	dir := t.TempDir()
	// Two writers of one process opened at the same instant get two files.
	ws := []*Writer{openWriter(t, dir), openWriter(t, dir)}
	if ws[0].Path() == ws[1].Path() {
		t.Fatalf("two writers share %s", ws[0].Path())
	}
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				e := sample(i)
				e.ID = fmt.Sprintf("%d-%d", g, i)
				if err := ws[g%2].Write(e); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	seen := map[string]int{}
	for _, w := range ws {
		evs, err := ReadFile(w.Path())
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range evs {
			seen[e.ID]++
		}
	}
	if len(seen) != goroutines*each {
		t.Errorf("read %d distinct events, want %d", len(seen), goroutines*each)
	}
	for id, n := range seen {
		if n != 1 {
			t.Errorf("event %s read %d times, want once", id, n)
		}
	}
}
