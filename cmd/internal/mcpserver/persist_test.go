package mcpserver

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// viewListing is everything prompts/list, resources/list and the lookups give of a snapshot,
// to compare a restored view with the one that was kept.
func viewListing(t *testing.T, snap *snapshot) []any {
	t.Helper()
	var out []any
	for i := range snap.prompts.len() {
		p := snap.prompts.listed(i)
		byID, ok := snap.prompts.byIDKey(promptlib.Key(p.id))
		if !ok || byID != snap.prompts.at(i) {
			t.Fatalf("prompt %q is not found by its id", p.id)
		}
		out = append(out, p.mcpPrompt(), p.resource(), p.folderID, p.hash)
	}
	for _, f := range snap.folders {
		out = append(out, f.info.Path)
	}
	return out
}

func TestKeptViewRoundTrip(t *testing.T) {
	lib := promptFixture()
	lib.Prompts = append(lib.Prompts, promptlib.Prompt{ID: "ffff0000-0000-4000-8000-000000000000", Title: "Code Review",
		Content: "Review {{file}} in {{lang|Go}}.\n\n## Notes\n\nMind {{file}}."})
	v := newView(newMemLibrary(lib), nil, nil)
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	kept := v.current()
	path := filepath.Join(t.TempDir(), "view", "lib.view")
	if err := saveView(path, "lib.db", kept); err != nil {
		t.Fatal(err)
	}
	got, err := loadView(path, "lib.db")
	if err != nil || got == nil {
		t.Fatalf("loadView: %v, %v", got, err)
	}
	if want, have := viewListing(t, kept), viewListing(t, got); !reflect.DeepEqual(want, have) {
		t.Errorf("restored view differs:\nkept     %v\nrestored %v", want, have)
	}
	sp, ok := got.prompt("code-review-ffff")
	if !ok || len(sp.placeholders()) != 2 || sp.placeholders()[1].Default != "Go" {
		t.Errorf("restored arguments: %+v", sp.placeholders())
	}
	if len(got.system) != len(kept.system) || len(kept.system) == 0 {
		t.Errorf("restored %d system prompts, kept %d", len(got.system), len(kept.system))
	}
	// A restart on an unchanged library reads no prompt: the kept view carries the library's
	// fingerprint.
	mem := v.db.(*memLibrary)
	restarted := newView(mem, nil, nil)
	restarted.snap.Store(got)
	before := mem.read.Load()
	if err := restarted.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := mem.read.Load() - before; n != 0 {
		t.Errorf("a restart on an unchanged library read %d prompts", n)
	}
	// A view of another library is not served.
	if other, err := loadView(path, "other.db"); other != nil || err != nil {
		t.Errorf("a view of another library was restored: %v, %v", other, err)
	}
}

// An edit after a restart reads the buckets it and the latest second touched, not the whole
// library: the kept view keeps each bucket's latest updated_at (changedBuckets).
func TestKeptViewFollowsAnEditAfterARestart(t *testing.T) {
	lib := promptlib.Sample(3*dbread.BucketWidth, 1)
	mem := newMemLibrary(lib)
	v := newView(mem, nil, nil)
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	data := encodeView("lib.db", v.current())
	got := decodeView(bufio.NewReader(bytes.NewReader(data)), int64(len(data)), "lib.db")
	if got == nil {
		t.Fatal("the kept view did not decode")
	}
	restarted := newView(mem, nil, nil)
	restarted.snap.Store(got)
	mem.edit(func(lib *promptlib.Library) { lib.Prompts[10].Title = "Edited after the restart" })
	before := mem.read.Load()
	if err := restarted.read(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if n := mem.read.Load() - before; n == 0 || n >= int64(len(lib.Prompts)) {
		t.Errorf("an edit after a restart read %d of %d prompts", n, len(lib.Prompts))
	}
	if _, ok := restarted.current().prompt(promptlib.Slug("Edited after the restart")); !ok {
		t.Error("the edit was not followed")
	}
}

// A kept view cut short or damaged anywhere (a summary block included, which is not
// decompressed at start) is ignored, never served and never a panic.
func TestKeptViewDamaged(t *testing.T) {
	v := newView(newMemLibrary(promptFixture()), nil, nil)
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	data := encodeView("lib.db", v.current())
	decode := func(b []byte) *snapshot {
		return decodeView(bufio.NewReader(bytes.NewReader(b)), int64(len(b)), "lib.db")
	}
	if decode(data) == nil {
		t.Fatal("the whole view did not decode")
	}
	for n := range len(data) {
		if snap := decode(data[:n]); snap != nil {
			t.Fatalf("a view cut at %d of %d bytes was served", n, len(data))
		}
	}
	for i := range data {
		damaged := bytes.Clone(data)
		damaged[i] ^= 0xff
		if snap := decode(damaged); snap != nil {
			t.Fatalf("a view with byte %d of %d damaged was served", i, len(data))
		}
		// The same damage written with a CRC that fits it (a writer's bug, not the disk's):
		// the structural checks stand alone, and what they pass must be usable.
		if i < len(data)-4 {
			body := damaged[:len(damaged)-4]
			resealed := binary.LittleEndian.AppendUint32(bytes.Clone(body), crc32.Checksum(body, viewCRC))
			if snap := decode(resealed); snap != nil {
				viewListing(t, snap)
			}
		}
	}
}

func TestKeptViewNotAFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.Symlink(filepath.Join(dir, "elsewhere"), filepath.Join(dir, "link.view")); err != nil {
		t.Skip(err)
	}
	if snap, err := loadView(filepath.Join(dir, "link.view"), "lib.db"); snap != nil || err == nil {
		t.Errorf("a view through a link: %v, %v", snap, err)
	}
}

// A project's session restarted from its kept view serves the same documents as one that read
// the library, and the gate ranks them the same; a restart on an unchanged library reads nothing.
func TestKeptViewProject(t *testing.T) {
	work := gate.NoProject()
	work.Name, work.Folder = "work", "Work"
	mem := newMemLibrary(promptFixture())
	read := newView(mem, &work, nil)
	if err := read.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "view", "work.view")
	if err := saveView(path, "key", read.current()); err != nil {
		t.Fatal(err)
	}
	kept := newView(mem, &work, nil)
	kept.keep, kept.keepDB = path, "key"
	if !kept.restore() {
		t.Fatal("the kept view was not restored")
	}
	want, got := read.current(), kept.current()
	if len(got.docs) == 0 || !reflect.DeepEqual(got.docs, want.docs) {
		t.Errorf("restored documents:\n%+v\nwant\n%+v", got.docs, want.docs)
	}
	if !reflect.DeepEqual(viewListing(t, got), viewListing(t, want)) {
		t.Error("the restored project view serves other prompts")
	}
	tags := []string{"review"}
	if a, b := gate.NewIndex(got.docs, work), gate.NewIndex(want.docs, work); !reflect.DeepEqual(gate.NewSession(work).Begin(a, tags), gate.NewSession(work).Begin(b, tags)) {
		t.Error("the gate briefs differently from the restored documents")
	}
	before := mem.read.Load()
	if err := kept.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := mem.read.Load() - before; n != 0 {
		t.Errorf("a restarted project session read %d prompts of an unchanged library", n)
	}
	if !sameDocs(kept.current().docs, got.docs) {
		t.Error("an unchanged reread made new documents: the gate would rebuild its index")
	}
}

// TestViewOldestKeepsName: a slash command stays with the prompt that had it. A new prompt with
// the same title is suffixed whatever its random id (by id alone, one sorting first took the
// name), and the decision survives a restart from the kept view, which holds each prompt's
// creation time: a prompt created earlier than a restored one but served only after the restart
// still comes first.
func TestViewOldestKeepsName(t *testing.T) {
	at := func(minute int) promptlib.Time {
		return promptlib.Time{Time: time.Date(2025, 1, 1, 9, minute, 0, 0, time.UTC)}
	}
	prompt := func(id, title string, created promptlib.Time) promptlib.Prompt {
		return promptlib.Prompt{ID: id, Title: title, Content: title + ".", CreatedAt: created, UpdatedAt: created}
	}
	orig := prompt("FFFF0000-0000-4000-8000-000000000000", "Security Review", at(10))
	newcomer := prompt("00000000-0000-4000-8000-000000000000", "security review", at(20))
	older := prompt("00001111-0000-4000-8000-000000000000", "Security  review!", at(0))
	lib := promptFixture()
	lib.Prompts = append(lib.Prompts, orig)
	mem := newMemLibrary(lib)
	v := newView(mem, nil, nil)
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	mem.edit(func(lib *promptlib.Library) { lib.Prompts = append(lib.Prompts, newcomer) })
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	named := func(v *view, name, wantID string) {
		t.Helper()
		if sp, ok := v.current().prompt(name); !ok || sp.id != wantID {
			t.Errorf("%s opens %q (found %v), want %s", name, sp.id, ok, wantID)
		}
	}
	named(v, "security-review", orig.ID)
	named(v, "security-review-0000", newcomer.ID)

	data := encodeView("lib.db", v.current())
	restored := decodeView(bufio.NewReader(bytes.NewReader(data)), int64(len(data)), "lib.db")
	if restored == nil {
		t.Fatal("the kept view did not decode")
	}
	restarted := newView(mem, nil, nil)
	restarted.snap.Store(restored)
	named(restarted, "security-review", orig.ID)
	mem.edit(func(lib *promptlib.Library) { lib.Prompts = append(lib.Prompts, older) })
	if err := restarted.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	named(restarted, "security-review", older.ID)
	named(restarted, "security-review-ffff", orig.ID)
	named(restarted, "security-review-0000", newcomer.ID)
}

// encodeView is the kept view of snap as one slice, for tests and benchmarks.
func encodeView(db string, snap *snapshot) []byte {
	var buf bytes.Buffer
	writeView(&buf, db, snap) // a bytes.Buffer does not fail
	return buf.Bytes()
}

// byIDKey finds a prompt by its id, compared as promptlib.Key does.
func (t *promptTable) byIDKey(id string) (servedPrompt, bool) {
	i, ok := t.indexByID(id)
	if !ok {
		return servedPrompt{}, false
	}
	return t.at(i), true
}
