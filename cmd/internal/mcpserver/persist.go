package mcpserver

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// A cold start at 100k prompts reads every body before the first prompts/list could be whole
// (seconds). The view keeps what that list needs — names, titles, summaries, arguments — in a
// file beside the search index, so a restart serves the last known library at once; the first
// read of the library then replaces it, and list_changed tells the client if anything differed.

// persistVersion changes whenever the file's layout does, or what it keeps of a prompt (11: an
// argument's Where names headings outside fenced code as promptlib.Fence reads it), so an old
// file is ignored, not misread or served stale; its low byte is the version of the summaries the
// file holds.
const persistVersion = 11<<8 | promptlib.SummaryVersion

// viewCRC checks a kept view whole: the file ends with the CRC-32C of what comes before it.
// Without it a damaged summary block went unnoticed (the blocks are not decompressed at start,
// which would delay the first list), and the view copies unchanged blocks from table to table,
// so the damage stayed. Checking costs about 3 ms per 10 MB read.
var viewCRC = crc32.MakeTable(crc32.Castagnoli)

// viewMagic starts every kept view.
const viewMagic = "mcpctl-view\n"

// recSize is a promptRec's size in the file.
const recSize = 44

// viewFile is where the view of the library at db is kept, under the cache directory.
func viewFile(cacheDir, db string) string {
	sum := sha256.Sum256([]byte(db))
	return filepath.Join(cacheDir, "view", hex.EncodeToString(sum[:12])+".view")
}

// saveView writes the snapshot atomically (temp file, sync, rename) into a directory only this
// user may write, never through a link.
func saveView(path, db string, snap *snapshot) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	if fi, err := os.Lstat(dir); err != nil || !fi.IsDir() || fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("mcpserver: %s is not a private directory; the view is not kept", dir)
	}
	tmp, err := os.CreateTemp(dir, ".view-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := writeView(tmp, db, snap); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// The file is the snapshot's table as it lies in memory, so a restart at 100k prompts reads it
// back in milliseconds: the magic and version; the library path, the folders and the system
// prompts as JSON, and the system prompts' buckets; then the table: its text, its records
// (recSize bytes each), its index by id (4 bytes each), its two string lists (text, count,
// ends) and its compressed summaries (data, count, then each block's end and first summary);
// then the library's fingerprint the view was read at (count, then the first rowid, count and
// updated sum and latest updated_at of each bucket), so a restart reads only the buckets changed
// since, and after an edit only those of the latest second (changedBuckets); then, for a
// project's session, the gate's documents (count, then each as a string); last, the CRC-32C of
// all that (viewCRC). Strings are a uvarint length and the bytes, counts a uvarint, numbers
// little endian.

// writeView writes the kept view of snap to out a buffer at a time: made whole in memory first,
// the view of 10k prompts with their documents was 15 MB more on a server's first run.
func writeView(out io.Writer, db string, snap *snapshot) error {
	crc := crc32.New(viewCRC)
	w := io.MultiWriter(out, crc)
	t := &snap.prompts
	folders, _ := json.Marshal(snap.all) // plain data: cannot fail
	const spillAt = 64 << 10
	b := make([]byte, 0, 2*spillAt)
	var err error
	spill := func() {
		if err == nil && len(b) > 0 {
			_, err = w.Write(b)
		}
		b = b[:0]
	}
	le := binary.LittleEndian
	b = append(b, viewMagic...)
	b = binary.AppendUvarint(b, persistVersion)
	appendString := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		if len(s) < spillAt {
			b = append(b, s...)
		} else {
			spill()
			if err == nil {
				_, err = io.WriteString(w, s)
			}
		}
		if len(b) >= spillAt {
			spill()
		}
	}
	system, _ := json.Marshal(snap.system) // plain data: cannot fail
	appendString(db)
	appendString(string(folders))
	appendString(string(system))
	b = binary.AppendUvarint(b, uint64(len(snap.systemBuckets)))
	for _, sb := range snap.systemBuckets {
		b = le.AppendUint32(b, sb)
	}
	appendString(t.text)
	b = binary.AppendUvarint(b, uint64(len(t.recs)))
	for _, r := range t.recs {
		b = le.AppendUint32(b, r.off)
		b = le.AppendUint32(b, r.title)
		b = le.AppendUint16(b, r.id)
		b = le.AppendUint16(b, r.name)
		b = le.AppendUint32(b, r.sumHash)
		b = le.AppendUint32(b, r.folder)
		b = le.AppendUint32(b, r.args)
		b = le.AppendUint32(b, r.bucket)
		b = le.AppendUint64(b, r.hash)
		b = le.AppendUint64(b, uint64(r.created))
		if len(b) >= spillAt {
			spill()
		}
	}
	for _, i := range t.byID {
		b = le.AppendUint32(b, uint32(i))
		if len(b) >= spillAt {
			spill()
		}
	}
	for _, l := range []*stringList{&t.folders, &t.argSets} {
		appendString(l.text)
		b = binary.AppendUvarint(b, uint64(len(l.ends)))
		for _, e := range l.ends {
			b = le.AppendUint32(b, e)
		}
	}
	appendString(t.summaries.data)
	b = binary.AppendUvarint(b, uint64(len(t.summaries.ends)))
	for i, e := range t.summaries.ends {
		b = le.AppendUint32(b, e)
		b = le.AppendUint32(b, t.summaries.firsts[i])
	}
	b = binary.AppendUvarint(b, uint64(len(snap.sums)))
	for lo, s := range snap.sums {
		b = le.AppendUint64(b, uint64(lo))
		b = le.AppendUint64(b, uint64(s.N))
		b = le.AppendUint64(b, math.Float64bits(s.Updated))
		b = le.AppendUint64(b, math.Float64bits(s.Latest))
	}
	b = binary.AppendUvarint(b, uint64(len(snap.docs)))
	var doc []byte
	for i := range snap.docs {
		doc = snap.docs[i].AppendBinary(doc[:0])
		appendString(string(doc))
	}
	spill()
	if err == nil {
		_, err = out.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	}
	return err
}

// loadView reads a kept view of the library at db; a missing, foreign, outdated or damaged file
// is (nil, nil): the first read of the library rebuilds it.
func loadView(path, db string) (*snapshot, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("mcpserver: %s is not a regular file", path)
	}
	return decodeView(bufio.NewReaderSize(f, 1<<16), fi.Size(), db), nil
}

// decodeView is the snapshot a kept view of size bytes describes, the gate's documents
// included for a project's; nil if it is not a whole view of db. Every count is checked
// against what is left of the file before anything is allocated for it, and every record
// against the table, so a damaged file is ignored, never served.
func decodeView(r *bufio.Reader, size int64, db string) *snapshot {
	if size < 4 {
		return nil
	}
	crc := crc32.New(viewCRC)
	d := viewDecoder{r: bufio.NewReaderSize(io.TeeReader(io.LimitReader(r, size-4), crc), 1<<16), left: size - 4}
	le := binary.LittleEndian
	magic := make([]byte, len(viewMagic))
	d.read(magic)
	if d.bad || string(magic) != viewMagic || d.uvarint() != persistVersion || d.string() != db {
		return nil
	}
	snap := &snapshot{loaded: true}
	if err := json.Unmarshal([]byte(d.string()), &snap.all); err != nil {
		return nil
	}
	if err := json.Unmarshal([]byte(d.string()), &snap.system); err != nil {
		return nil
	}
	snap.systemBuckets = make([]uint32, d.count(4))
	for i := range snap.systemBuckets {
		var sb [4]byte
		d.read(sb[:])
		snap.systemBuckets[i] = le.Uint32(sb[:])
	}
	if len(snap.systemBuckets) != len(snap.system) {
		return nil
	}
	t := &snap.prompts
	t.text = d.string()
	n := d.count(recSize + 4)
	t.recs = make([]promptRec, n)
	var buf [recSize]byte
	for i := range t.recs {
		d.read(buf[:])
		t.recs[i] = promptRec{off: le.Uint32(buf[0:]), title: le.Uint32(buf[4:]), id: le.Uint16(buf[8:]), name: le.Uint16(buf[10:]),
			sumHash: le.Uint32(buf[12:]), folder: le.Uint32(buf[16:]), args: le.Uint32(buf[20:]),
			bucket: le.Uint32(buf[24:]), hash: le.Uint64(buf[28:]), created: int64(le.Uint64(buf[36:]))}
	}
	t.byID = make([]int32, n)
	for i := range t.byID {
		d.read(buf[:4])
		t.byID[i] = int32(le.Uint32(buf[:4]))
	}
	for _, l := range []*stringList{&t.folders, &t.argSets} {
		l.text = d.string()
		l.ends = make([]uint32, d.count(4))
		for i := range l.ends {
			d.read(buf[:4])
			l.ends[i] = le.Uint32(buf[:4])
		}
	}
	t.summaries = summaryStore{data: d.string(), n: len(t.recs), last: &lastBlock{}}
	t.summaries.ends = make([]uint32, d.count(8))
	t.summaries.firsts = make([]uint32, len(t.summaries.ends))
	for i := range t.summaries.ends {
		d.read(buf[:4])
		t.summaries.ends[i] = le.Uint32(buf[:4])
		d.read(buf[:4])
		t.summaries.firsts[i] = le.Uint32(buf[:4])
	}
	if n := d.count(32); n > 0 {
		snap.sums = make(dbread.Fingerprint, n)
		for range n {
			var s [32]byte
			d.read(s[:])
			snap.sums[int64(le.Uint64(s[0:]))] = dbread.BucketSum{N: int64(le.Uint64(s[8:])), Updated: math.Float64frombits(le.Uint64(s[16:])),
				Latest: math.Float64frombits(le.Uint64(s[24:]))}
		}
	}
	// A document takes at least 16 bytes in the file (its length and 15 of fields): a damaged
	// count cannot allocate more than the file could hold. The slice grows as they decode.
	if n := d.count(16); n > 0 {
		snap.docs = make([]gate.Doc, 0, min(n, 1024))
		var raw []byte // one buffer for every document: DecodeDoc copies what it keeps
		for range n {
			size := d.count(1)
			if cap(raw) < size {
				raw = make([]byte, size)
			}
			raw = raw[:size]
			d.read(raw)
			if d.bad {
				return nil
			}
			doc, used, err := gate.DecodeDoc(raw)
			if err != nil || used != len(raw) {
				return nil
			}
			snap.docs = append(snap.docs, doc)
		}
	}
	if d.bad || d.left != 0 {
		return nil
	}
	var sum [4]byte
	if _, err := io.ReadFull(r, sum[:]); err != nil || le.Uint32(sum[:]) != crc.Sum32() || !t.valid() {
		return nil
	}
	// The kept view is a plain session's: the whole library but mcpctl-system.
	sc, err := gate.NewScope(folderList(snap.all), gate.NoProject())
	if err != nil {
		return nil
	}
	snap.scope = scope{sc}
	snap.scopeKey = scopeKey(snap.scope, snap.all, false)
	for _, f := range snap.all {
		if snap.scope.sees(&f.ID) {
			snap.folders = append(snap.folders, &servedFolder{info: f, lowerPath: strings.ToLower(f.Path)})
		}
	}
	return snap
}

// valid reports whether every record and index points inside the table, in order, the index
// by id holds each record once, and every argument list decodes: a damaged file must not make
// a request panic or miss.
func (t *promptTable) valid() bool {
	n := len(t.recs)
	if uint64(len(t.text)) > math.MaxUint32 {
		return false // offsets are 32 bits: a bigger text would wrap them
	}
	for _, l := range []*stringList{&t.folders, &t.argSets} {
		for i, e := range l.ends {
			if e > uint32(len(l.text)) || i > 0 && e < l.ends[i-1] {
				return false
			}
		}
	}
	for i, r := range t.recs {
		end := uint64(r.off) + uint64(r.id) + uint64(r.name) + uint64(r.title)
		if end > uint64(len(t.text)) || int(r.folder) > t.folders.len() || int(r.args) > t.argSets.len() {
			return false
		}
		if i > 0 && t.nameAt(i-1) >= t.nameAt(i) {
			return false
		}
	}
	if len(t.byID) != n {
		return false
	}
	indexed := make([]bool, n)
	for k, i := range t.byID {
		if i < 0 || int(i) >= n || indexed[i] || k > 0 && compareKeys(t.idAt(int(t.byID[k-1])), t.idAt(int(i))) > 0 {
			return false
		}
		indexed[i] = true
	}
	for i := range t.argSets.len() {
		if !walkArgs(t.argSets.at(i), func(promptArg) {}) {
			return false
		}
	}
	// A block that does not decode shows its summaries empty, never fails a request: checking
	// the ends is enough, and decompressing every block would delay the first list.
	s := &t.summaries
	if s.n > 0 && (len(s.firsts) == 0 || s.firsts[0] != 0) {
		return false
	}
	for i, e := range s.ends {
		if e > uint32(len(s.data)) || i > 0 && e < s.ends[i-1] ||
			int(s.firsts[i]) >= s.n || i > 0 && s.firsts[i] <= s.firsts[i-1] || s.size(i) > summaryBlock {
			return false
		}
	}
	return true
}

// viewDecoder reads a kept view's fields; bad is set, and stays set, at the first that does
// not fit in what is left of the file.
type viewDecoder struct {
	r    *bufio.Reader
	left int64
	bad  bool
}

func (d *viewDecoder) read(b []byte) {
	if d.bad || int64(len(b)) > d.left {
		d.bad = true
		return
	}
	if _, err := io.ReadFull(d.r, b); err != nil {
		d.bad = true
		return
	}
	d.left -= int64(len(b))
}

func (d *viewDecoder) uvarint() uint64 {
	if d.bad {
		return 0
	}
	v, err := binary.ReadUvarint(d.r)
	if err != nil {
		d.bad = true
		return 0
	}
	d.left -= int64(len(binary.AppendUvarint(nil, v)))
	return v
}

// count reads a count of items of at least size bytes each; 0 if the file cannot hold them.
func (d *viewDecoder) count(size int64) int {
	n := d.uvarint()
	if d.bad || n > uint64(d.left/size) {
		d.bad = true
		return 0
	}
	return int(n)
}

// string reads a string straight into its own memory: the table's text is most of the file.
func (d *viewDecoder) string() string {
	n := d.count(1)
	if d.bad {
		return ""
	}
	var sb strings.Builder
	sb.Grow(n)
	if _, err := io.CopyN(&sb, d.r, int64(n)); err != nil {
		d.bad = true
		return ""
	}
	d.left -= int64(n)
	return sb.String()
}
