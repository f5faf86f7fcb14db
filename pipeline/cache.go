package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// DefaultCacheBytes is the disk cache's default size cap.
const DefaultCacheBytes = 256 << 20

// maxEntryBytes bounds one cache entry; a larger value is not cached.
const maxEntryBytes = 64 << 20

// diskCache is the content-addressed store under $XDG_CACHE_HOME/mcpctl/pipeline: one file per
// key, least recently used files removed beyond a size cap. Several processes may share it:
// each entry is written to a temporary file and renamed into place, so a reader sees a whole
// entry or none, and a key always names the same bytes, so two writers of one key agree. It
// never follows a symlink and never reads a file it does not own: such a file is a miss, and is
// removed.
type diskCache struct {
	dir    string
	cap    int64
	log    *slog.Logger
	size   atomic.Int64 // this process's estimate of the bytes on disk
	hits   atomic.Int64
	misses atomic.Int64
	evict  sync.Mutex

	started   string // this process's start, in the name of its counters file
	statsMu   sync.Mutex
	stats     processStats
	statsFile *os.File // written in place; see countRequest
	closed    bool

	// openEntry opens an entry for Get; tests replace it to inject what the system may answer.
	openEntry func(name string, flag int, perm os.FileMode) (*os.File, error)
}

// openCache opens (creating) the cache directory dir. A symlink at dir is replaced by a fresh
// directory, its target untouched; a directory that another user owns, or that others may
// write, is refused, since anyone who can write it could plant entries.
func openCache(dir string, capBytes int64, log *slog.Logger) (*diskCache, error) {
	if capBytes <= 0 {
		capBytes = DefaultCacheBytes
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, &Error{Op: "open cache", Path: dir, Err: err}
	}
	fi, err := os.Lstat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, &Error{Op: "open cache", Path: dir, Err: err}
		}
	case err != nil:
		return nil, &Error{Op: "open cache", Path: dir, Err: err}
	case fi.Mode()&fs.ModeSymlink != 0:
		log.Warn("pipeline: the cache directory was a symlink; replaced by a directory of ours (its target is untouched)", "dir", dir)
		if err := os.Remove(dir); err != nil {
			return nil, &Error{Op: "open cache", Path: dir, Err: err}
		}
		if err := os.Mkdir(dir, 0o700); err != nil {
			return nil, &Error{Op: "open cache", Path: dir, Err: err}
		}
	case !fi.IsDir():
		return nil, &Error{Op: "open cache", Path: dir, Err: errors.New("not a directory; remove it and mcpctl makes the cache anew")}
	}
	fi, err = os.Lstat(dir)
	if err != nil {
		return nil, &Error{Op: "open cache", Path: dir, Err: err}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return nil, &Error{Op: "open cache", Path: dir, Err: fmt.Errorf("owned by uid %d, not us; remove it and mcpctl makes the cache anew", st.Uid)}
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return nil, &Error{Op: "open cache", Path: dir, Err: fmt.Errorf("others may write it (mode %v); run chmod 700 on it, or remove it", fi.Mode().Perm())}
	}
	c := &diskCache{dir: dir, cap: capBytes, log: log, started: strconv.FormatInt(time.Now().UnixNano(), 36), openEntry: os.OpenFile}
	st, err := c.Stats()
	if err != nil {
		return nil, err
	}
	c.size.Store(st.Bytes)
	return c, nil
}

// validKey reports whether key can name a file: what the Engine makes, hex digits with a
// letter prefix.
func validKey(key string) bool {
	if key == "" || len(key) > 160 {
		return false
	}
	for _, r := range key {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// Get returns the entry for key. It opens without following symlinks and without blocking on a
// FIFO, and accepts only a regular file of ours; anything else is a miss and is removed.
func (c *diskCache) Get(key string) ([]byte, bool) {
	if !validKey(key) {
		return nil, false
	}
	path := filepath.Join(c.dir, key)
	f, err := c.openEntry(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case errors.Is(err, syscall.ELOOP), errors.Is(err, fs.ErrPermission):
			c.log.Warn("pipeline: unusable cache entry removed", "file", path, "err", err)
			os.Remove(path) // a symlink: removes the link, never its target
		default:
			// Out of descriptors or memory, an I/O error: the entry may be sound, and
			// removing it would only cost the next request a recomputation.
			c.log.Warn("pipeline: cache entry not readable now; kept", "file", path, "err", err)
		}
		c.misses.Add(1)
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		c.misses.Add(1)
		return nil, false
	}
	if !ours(fi) || fi.Size() > maxEntryBytes {
		c.log.Warn("pipeline: cache entry not a regular file of ours; removed", "file", path)
		os.Remove(path)
		c.misses.Add(1)
		return nil, false
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		c.misses.Add(1)
		return nil, false
	}
	if time.Since(fi.ModTime()) > time.Minute { // LRU order; at most one write a minute
		now := unix.NsecToTimeval(time.Now().UnixNano())
		_ = unix.Futimes(int(f.Fd()), []unix.Timeval{now, now})
	}
	c.hits.Add(1)
	return data, true
}

// ours reports whether fi is a regular file owned by this process's user.
func ours(fi fs.FileInfo) bool {
	if !fi.Mode().IsRegular() {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Getuid()
}

// Put stores value under key: a temporary file renamed into place (replacing whatever stood at
// the name, a planted symlink included, without following it). Failures are logged: a cache
// that cannot write is slower, never wrong.
func (c *diskCache) Put(key string, value []byte) {
	if !validKey(key) || len(value) > maxEntryBytes {
		return
	}
	if !c.writeFile(key, value) {
		return
	}
	if c.size.Add(int64(len(value))) > c.cap {
		c.evictLRU()
	}
}

// writeFile writes name in the cache directory atomically; it reports success.
func (c *diskCache) writeFile(name string, value []byte) bool {
	f, err := os.CreateTemp(c.dir, ".tmp-*")
	if err != nil {
		c.log.Warn("pipeline: cache write failed", "dir", c.dir, "err", err)
		return false
	}
	_, err = f.Write(value)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(c.dir, name))
	}
	if err != nil {
		os.Remove(f.Name())
		c.log.Warn("pipeline: cache write failed", "dir", c.dir, "err", err)
		return false
	}
	return true
}

// has reports whether key has an entry, without reading it.
func (c *diskCache) has(key string) bool {
	fi, err := os.Lstat(filepath.Join(c.dir, key))
	return err == nil && ours(fi)
}

// evictLRU removes the least recently used entries until the cache is at 90% of its cap, and
// temporary files an interrupted writer left more than an hour ago.
func (c *diskCache) evictLRU() {
	c.evict.Lock()
	defer c.evict.Unlock()
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return
	}
	type item struct {
		name string
		size int64
		mod  time.Time
	}
	var items []item
	var total int64
	for _, e := range entries {
		fi, err := e.Info()
		if err != nil {
			continue
		}
		if strings.HasPrefix(e.Name(), ".tmp-") || strings.HasPrefix(e.Name(), statsPrefix) {
			// An interrupted writer's leftovers; counters of processes gone a week.
			if age := time.Since(fi.ModTime()); strings.HasPrefix(e.Name(), ".tmp-") && age > time.Hour || age > 7*24*time.Hour {
				os.Remove(filepath.Join(c.dir, e.Name()))
			}
			continue
		}
		items = append(items, item{e.Name(), fi.Size(), fi.ModTime()})
		total += fi.Size()
	}
	sort.Slice(items, func(i, j int) bool { return items[i].mod.Before(items[j].mod) })
	target := c.cap / 10 * 9
	removed := 0
	for _, it := range items {
		if total <= target {
			break
		}
		if os.Remove(filepath.Join(c.dir, it.name)) == nil {
			total -= it.size
			removed++
		}
	}
	c.size.Store(total)
	c.log.Debug("pipeline: cache evicted", "entries", removed, "bytes", total)
}

// CacheStats describes the disk cache.
type CacheStats struct {
	Dir     string `json:"dir"`
	Entries int    `json:"entries"`
	Bytes   int64  `json:"bytes"`
	Cap     int64  `json:"cap"`
	Hits    int64  `json:"hits"`   // the Engine's cache hits since it started, in memory or on disk
	Misses  int64  `json:"misses"` // the Engine's cache misses since it started
	// Requests and RequestHits count the transforms of every process using the cache since it
	// was last cleared, and how many were answered wholly from the cache.
	Requests    int64 `json:"requests"`
	RequestHits int64 `json:"requestHits"`
}

// Stats counts the entries on disk.
func (c *diskCache) Stats() (CacheStats, error) {
	st := CacheStats{Dir: c.dir, Cap: c.cap, Hits: c.hits.Load(), Misses: c.misses.Load()}
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return st, &Error{Op: "read cache", Path: c.dir, Err: err}
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), statsPrefix) {
			if data, ok := c.readOwn(e.Name(), 4096); ok {
				var ps processStats
				if json.Unmarshal(data, &ps) == nil {
					st.Requests += ps.Requests
					st.RequestHits += ps.Hits
				}
			}
			continue
		}
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		if fi, err := e.Info(); err == nil && fi.Mode().IsRegular() {
			st.Entries++
			st.Bytes += fi.Size()
		}
	}
	return st, nil
}

// statsPrefix names the per-process request counters, one file per process so that processes
// never write the same file.
const statsPrefix = ".stats-"

// processStats is one process's request counters.
type processStats struct {
	Requests int64 `json:"requests"`
	Hits     int64 `json:"hits"`
}

// statsRecord is the fixed size of a counters file: each update overwrites it in place with one
// small write, far cheaper than a file per update, and a reader that catches a write half done
// only skips one process's counts.
const statsRecord = 64

// countRequest records one transform of this process, and whether the cache answered it.
func (c *diskCache) countRequest(hit bool) {
	c.statsMu.Lock()
	defer c.statsMu.Unlock()
	c.stats.Requests++
	if hit {
		c.stats.Hits++
	}
	if c.statsFile == nil && !c.closed {
		name := filepath.Join(c.dir, statsPrefix+strconv.Itoa(os.Getpid())+"-"+c.started)
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
		if err != nil {
			return
		}
		c.statsFile = f
	}
	if c.statsFile == nil {
		return
	}
	data, _ := json.Marshal(c.stats)
	rec := make([]byte, statsRecord)
	copy(rec, data)
	for i := len(data); i < statsRecord; i++ {
		rec[i] = ' ' // JSON allows trailing spaces
	}
	_, _ = c.statsFile.WriteAt(rec, 0)
}

// close closes the counters file and stops counting on disk.
func (c *diskCache) close() error {
	c.statsMu.Lock()
	defer c.statsMu.Unlock()
	c.closed = true
	if c.statsFile == nil {
		return nil
	}
	err := c.statsFile.Close()
	c.statsFile = nil
	return err
}

// readOwn reads a small regular file of ours in the cache directory, never following a link.
func (c *diskCache) readOwn(name string, limit int64) ([]byte, bool) {
	f, err := os.OpenFile(filepath.Join(c.dir, name), os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !ours(fi) || fi.Size() > limit {
		return nil, false
	}
	data, err := io.ReadAll(f)
	return data, err == nil
}

// Clear removes every entry.
func (c *diskCache) Clear() error {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return &Error{Op: "clear cache", Path: c.dir, Err: err}
	}
	for _, e := range entries {
		if err := os.Remove(filepath.Join(c.dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return &Error{Op: "clear cache", Path: c.dir, Err: err}
		}
	}
	c.size.Store(0)
	c.statsMu.Lock()
	c.stats = processStats{}
	if c.statsFile != nil { // removed above; the next request starts a new one
		c.statsFile.Close()
		c.statsFile = nil
	}
	c.statsMu.Unlock()
	return nil
}
