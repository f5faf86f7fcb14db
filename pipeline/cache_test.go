package pipeline

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

func openTestCache(tb testing.TB, dir string, capBytes int64) *diskCache {
	tb.Helper()
	c, err := openCache(dir, capBytes, slog.New(slog.DiscardHandler))
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

func TestCacheNeverFollowsPlantedFiles(t *testing.T) {
	root := t.TempDir()
	c := openTestCache(t, filepath.Join(root, "pipeline"), 0)
	target := filepath.Join(root, "prompts.db")
	os.WriteFile(target, []byte("the user's library"), 0o600)

	link := filepath.Join(c.dir, "r-planted")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Get("r-planted"); ok {
		t.Errorf("Get through a symlink returned %q", v)
	}
	if _, err := os.Lstat(link); err == nil {
		t.Error("the planted symlink was left in place")
	}
	os.Symlink(target, link)
	c.Put("r-planted", []byte("ours"))
	if got, _ := os.ReadFile(target); string(got) != "the user's library" {
		t.Errorf("Put wrote through a symlink: the target now holds %q", got)
	}
	if v, ok := c.Get("r-planted"); !ok || string(v) != "ours" {
		t.Errorf("after Put over a symlink: %q, %v; want our own entry", v, ok)
	}

	fifo := filepath.Join(c.dir, "r-fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan bool)
	go func() { _, ok := c.Get("r-fifo"); done <- ok }()
	select {
	case ok := <-done:
		if ok {
			t.Error("a FIFO was read as an entry")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Get blocked opening a FIFO")
	}
	for _, bad := range []string{"../escape", "a/b", "", "UPPER"} {
		c.Put(bad, []byte("x"))
		if _, ok := c.Get(bad); ok {
			t.Errorf("key %q was accepted", bad)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "escape")); err == nil {
		t.Error("a key wrote outside the cache directory")
	}
}

// An entry the system cannot open for now (out of descriptors or memory, an I/O error) is a
// miss but stays: it is sound, and removing it would cost the next request a recomputation.
func TestCacheKeepsEntriesItCannotOpenForNow(t *testing.T) {
	c := openTestCache(t, filepath.Join(t.TempDir(), "pipeline"), 0)
	c.Put("r-kept", []byte("a summary"))
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOMEM, syscall.EIO} {
		c.openEntry = func(name string, _ int, _ os.FileMode) (*os.File, error) {
			return nil, &os.PathError{Op: "open", Path: name, Err: errno}
		}
		if _, ok := c.Get("r-kept"); ok {
			t.Fatalf("%v: Get answered a hit", errno)
		}
		c.openEntry = os.OpenFile
		if v, ok := c.Get("r-kept"); !ok || string(v) != "a summary" {
			t.Fatalf("after %v: Get = %q, %v; want the entry kept", errno, v, ok)
		}
	}
}

func TestCacheDirectoryChecks(t *testing.T) {
	t.Run("a symlinked directory is replaced, its target untouched", func(t *testing.T) {
		root := t.TempDir()
		elsewhere := filepath.Join(root, "elsewhere")
		os.Mkdir(elsewhere, 0o700)
		os.WriteFile(filepath.Join(elsewhere, "keep"), []byte("x"), 0o600)
		dir := filepath.Join(root, "pipeline")
		os.Symlink(elsewhere, dir)
		c := openTestCache(t, dir, 0)
		c.Put("r-a", []byte("entry"))
		if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() {
			t.Fatalf("cache dir is %v, %v; want a real directory", fi, err)
		}
		entries, _ := os.ReadDir(elsewhere)
		if len(entries) != 1 {
			t.Errorf("the symlink's target holds %d files, want its one file untouched", len(entries))
		}
	})
	t.Run("a directory others can write is refused, and the engine still works", func(t *testing.T) {
		root := t.TempDir()
		dir := filepath.Join(root, "pipeline")
		os.Mkdir(dir, 0o700)
		os.Chmod(dir, 0o777)
		if _, err := openCache(dir, 0, slog.New(slog.DiscardHandler)); err == nil || !strings.Contains(err.Error(), "chmod 700") {
			t.Errorf("openCache on a 0777 dir: %v, want a refusal saying to chmod 700", err)
		}
		e, err := NewEngine(Options{ConfigDir: filepath.Join(root, "config"), CacheDir: root})
		if err != nil {
			t.Fatal(err)
		}
		if e.CacheErr() == nil {
			t.Error("CacheErr is nil for a refused cache directory")
		}
		text := jsonArray(t, 100)
		out := transform(t, e, "subindex", text)
		checkDrillDown(t, e, out, text)
	})
}

func TestCacheEvictsLeastRecentlyUsed(t *testing.T) {
	c := openTestCache(t, filepath.Join(t.TempDir(), "pipeline"), 10_000)
	value := bytes.Repeat([]byte("x"), 1000)
	old := time.Now().Add(-time.Hour)
	for i := range 8 {
		key := fmt.Sprintf("r-%d", i)
		c.Put(key, value)
		os.Chtimes(filepath.Join(c.dir, key), old.Add(time.Duration(i)*time.Minute), old.Add(time.Duration(i)*time.Minute))
	}
	c.Get("r-0") // used recently: survives
	for i := 8; i < 12; i++ {
		c.Put(fmt.Sprintf("r-%d", i), value)
	}
	st, _ := c.Stats()
	if st.Bytes > 10_000 {
		t.Errorf("cache holds %d bytes, over its cap of 10000", st.Bytes)
	}
	if _, ok := c.Get("r-0"); !ok {
		t.Error("the recently used entry was evicted")
	}
	if _, ok := c.Get("r-1"); ok {
		t.Error("the least recently used entry survived")
	}
}

func TestEnginesShareOneCacheConcurrently(t *testing.T) {
	te := newTestEngine(t)
	text := jsonArray(t, 300)
	want := transform(t, te.Engine, "subindex", text).Text
	te.ClearCache()
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e := te.reopen(t) // each a separate engine, as separate serve processes are
			for range 3 {
				if out := transform(t, e, "subindex", text); out.Text != want {
					errs <- "a concurrent engine got a different result"
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	entries, _ := os.ReadDir(filepath.Join(te.cache, "pipeline"))
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".tmp-") {
			t.Errorf("temporary file %s left behind", en.Name())
		}
	}
}

func FuzzDecodeEntry(f *testing.F) {
	f.Add(encodeEntry(entry{Text: "abc", Base: "abc", Sections: []Section{{Start: 0, End: 1, Title: "a", Children: []Section{{Start: 0, End: 1}}}, {Start: 1, End: 3}}, Metadata: map[string]any{"k": 1.0}}, ""))
	f.Add([]byte(entryMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		e, err := decodeEntry(data)
		if err == nil {
			decodeEntry(encodeEntry(e, "")) // whatever decodes must re-encode
		}
	})
}
