package mcpserver

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/promptlib"
)

// One full read of the library per change, with and without a project: the gate and the prompt
// surface are both built from the view's one pass.
func TestViewReadsOncePerChange(t *testing.T) {
	work := gate.NoProject()
	work.Name, work.Folder = "work", "Work"
	for _, project := range []*gate.Project{nil, &work} {
		t.Run(fmt.Sprintf("project=%v", project != nil), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				lib := newMemLibrary(promptFixture())
				c := &core{view: newView(lib, project, nil), srv: server.NewMCPServer("mcpctl", "test", server.WithToolCapabilities(true),
					server.WithPromptCapabilities(true), server.WithResourceCapabilities(false, true), server.WithHooks(&server.Hooks{}))}
				newPromptSurface(c.srv, c.view, nil)
				var g *gateComponent
				if project != nil {
					g = newGateComponent(c, *project, nil)
				}
				stop, err := c.view.start(t.Context(), project != nil)
				if err != nil {
					t.Fatal(err)
				}
				defer stop()
				synctest.Wait()
				if got := c.view.reads.Load(); got != 1 {
					t.Fatalf("start: %d reads, want 1", got)
				}
				lib.edit(func(l *promptlib.Library) { l.Prompts[0].Content = "Review this {{language}} code, briefly." })
				synctest.Wait()
				if got := c.view.reads.Load(); got != 2 {
					t.Errorf("after one change: %d reads, want 2", got)
				}
				if g != nil && g.current().ix.Len() != 1 {
					t.Errorf("the gate's index has %d prompts, want the project's 1", g.current().ix.Len())
				}
			})
		})
	}
}

// stop cancels the follower and waits for it: a read in progress is abandoned and has returned
// when stop returns.
func TestViewStopWaitsForTheFollower(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lib := newMemLibrary(promptlib.Library{})
		lib.hold = make(chan struct{}) // the first read blocks until its context ends
		v := newView(lib, nil, nil)
		var returned bool
		v.subscribe(func(_, _ *snapshot) { t.Error("a snapshot was published from a read that never finished") })
		stop, err := v.start(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		synctest.Wait() // the follower is inside its read
		go func() {
			<-v.ready
			returned = true
		}()
		stop()
		synctest.Wait()
		if !returned {
			t.Fatal("stop returned while the follower was still reading")
		}
		stop() // idempotent
	})
}

// A burst of edits while a read runs costs one more read, not one per edit: the change signal
// holds at most one pending value, and the read after it sees every edit.
func TestViewBurstCoalesces(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		lib := newMemLibrary(promptlib.Library{})
		v := newView(lib, nil, nil)
		srv := server.NewMCPServer("mcpctl", "test", server.WithPromptCapabilities(true), server.WithResourceCapabilities(false, true))
		newPromptSurface(srv, v, nil)
		notes := make(chan mcp.JSONRPCNotification, 1000)
		if err := srv.RegisterSession(context.Background(), &noteSession{ch: notes}); err != nil {
			t.Fatal(err)
		}
		stop, err := v.start(context.Background(), false)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		synctest.Wait() // loaded; the follower waits for a change
		hold := make(chan struct{})
		lib.mu.Lock()
		lib.hold = hold
		lib.mu.Unlock()
		const edits = 500
		for i := range edits {
			lib.edit(func(l *promptlib.Library) {
				l.Prompts = append(l.Prompts, promptlib.Prompt{ID: fmt.Sprintf("B0000000-0000-4000-8000-%012d", i), Title: fmt.Sprintf("Prompt %d", i), Content: "x"})
			})
			synctest.Wait() // the first edit's read is under way and held
		}
		if n := len(lib.changes); n != 1 {
			t.Fatalf("%d change signals pending after the burst, want exactly 1", n)
		}
		lib.mu.Lock()
		lib.hold = nil
		lib.mu.Unlock()
		close(hold)
		synctest.Wait()
		if got := v.reads.Load(); got != 3 {
			t.Errorf("%d reads for %d edits, want 3 (the start, the read under way, one for the burst)", got, edits)
		}
		if got := v.current().prompts.len(); got != edits {
			t.Errorf("the final snapshot has %d prompts, want %d", got, edits)
		}
		if n := drain(notes)[mcp.MethodNotificationPromptsListChanged]; n != 1 {
			t.Errorf("%d prompts/list_changed, want 1 (the read that saw the burst)", n)
		}
	})
}

// Reading an unchanged library builds nothing: the next snapshot shares the last one's table,
// so a restart that restored its view, or a change outside the session's scope, costs no copy
// of 100k prompts.
func TestViewUnchangedReloadSharesTable(t *testing.T) {
	lib := newMemLibrary(promptFixture())
	v := newView(lib, nil, nil)
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	first := v.current().prompts
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if again := v.current().prompts; &again.recs[0] != &first.recs[0] {
		t.Error("an unchanged library was built into a new table")
	}
	lib.mu.Lock()
	lib.lib.Prompts[0].Content = "Changed {{x}}."
	lib.mu.Unlock()
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	changed := v.current().prompts
	if &changed.recs[0] == &first.recs[0] {
		t.Fatal("a changed library kept the old table")
	}
	sp := listedNamed(&changed, "code-review")
	if sp.id != lib.lib.Prompts[0].ID || sp.summary != "Changed {{x}}." || len(sp.placeholders()) != 1 {
		t.Errorf("changed prompt: %+v", sp)
	}
}

// A change is followed by reading only the buckets of rowids it touched; a change of the
// session's folders reads everything again. What is served is the same either way.
func TestViewReadsChangedBucketsOnly(t *testing.T) {
	lib := newMemLibrary(promptlib.Sample(3*dbread.BucketWidth, 1))
	v := newView(lib, nil, nil)
	reload := func() int64 {
		t.Helper()
		before := lib.read.Load()
		if err := v.reload(t.Context()); err != nil {
			t.Fatal(err)
		}
		return lib.read.Load() - before
	}
	if n := reload(); n != int64(len(lib.lib.Prompts)) {
		t.Fatalf("first read: %d prompts, want all %d", n, len(lib.lib.Prompts))
	}
	if n := reload(); n != 0 {
		t.Errorf("unchanged library: %d prompts read, want 0", n)
	}
	// A signalled change no bucket's sums show (a second edit within the second of the last)
	// reads the buckets edited in that second again, not the whole library.
	before := lib.read.Load()
	if err := v.read(t.Context(), true); err != nil {
		t.Fatal(err)
	}
	if n := lib.read.Load() - before; n == 0 || n >= int64(len(lib.lib.Prompts)) {
		t.Errorf("a signalled change no bucket shows: %d prompts read, want the latest edited bucket", n)
	}
	edited := lib.lib.Prompts[dbread.BucketWidth+7]
	lib.edit(func(l *promptlib.Library) {
		l.Prompts[dbread.BucketWidth+7].Title = "Edited In Place"
		l.Prompts = append(l.Prompts[:1], l.Prompts[2:]...) // a delete in the first bucket
	})
	deleted := v.current().prompts.len()
	if n := reload(); n == 0 || n > 2*dbread.BucketWidth {
		t.Errorf("an edit and a delete in two buckets: %d prompts read", n)
	}
	snap := v.current()
	if snap.prompts.len() != deleted-1 {
		t.Errorf("%d prompts after a delete, want %d", snap.prompts.len(), deleted-1)
	}
	if sp, ok := snap.prompt("edited-in-place"); !ok || sp.id != edited.ID {
		t.Errorf("the edited prompt is not served by its new name: %+v", sp)
	}
	// What an incremental read serves is what a whole read serves.
	whole := newView(lib, nil, nil)
	if err := whole.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(viewListing(t, whole.current()), viewListing(t, snap)) {
		t.Error("the incremental read serves other prompts than a whole read")
	}
	// A folder renamed changes nothing a plain session serves; a project's documents carry
	// their folder's path, so its session reads everything again.
	work := gate.NoProject()
	work.Name = "all"
	proj := newView(lib, &work, nil)
	if err := proj.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	lib.edit(func(l *promptlib.Library) { l.Folders[0].Name = "Renamed" })
	if n := reload(); n != 0 {
		t.Errorf("a renamed folder: a plain session read %d prompts, want none", n)
	}
	before = lib.read.Load()
	if err := proj.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n := lib.read.Load() - before; n != int64(len(lib.lib.Prompts)) {
		t.Errorf("a renamed folder: a project session read %d prompts, want all %d", n, len(lib.lib.Prompts))
	}
}

// listedNamed is the prompt named name as a list shows it, summary included.
func listedNamed(t *promptTable, name string) servedPrompt {
	for i := range t.len() {
		if t.nameAt(i) == name {
			return t.listed(i)
		}
	}
	return servedPrompt{}
}

// A view that follows edits (named from its last table, followNames) serves what a whole read
// serves: the same names, in the same order, found by the same ids. Titles clash on purpose, and
// some read like another's suffixed name.
func TestViewFollowsEditsAsAWholeReadDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	titles := []string{"Review", "review", "Review abcd", "Deploy", "Deploy Checklist", "Tests", "Review ab"}
	lib := promptlib.Sample(dbread.BucketWidth+100, 1)
	for i := range lib.Prompts[:40] {
		lib.Prompts[i].Title = titles[i%len(titles)]
	}
	mem := newMemLibrary(lib)
	v := newView(mem, nil, nil)
	if err := v.reload(t.Context()); err != nil {
		t.Fatal(err)
	}
	next := 0
	title := func() string { // one in three clashes
		if next++; next%3 == 0 {
			return titles[rng.IntN(len(titles))]
		}
		return fmt.Sprint("Edited ", next)
	}
	for round := range 60 {
		mem.edit(func(l *promptlib.Library) {
			for range 1 + rng.IntN(4) {
				i := rng.IntN(len(l.Prompts))
				switch rng.IntN(5) {
				case 0:
					l.Prompts = slices.Delete(l.Prompts, i, i+1)
				case 1:
					p := l.Prompts[i]
					p.Title = title()
					p.ID = fmt.Sprintf("abcd%04d-0000-4000-8000-000000000000", next)
					l.Prompts = append(l.Prompts, p)
				case 2:
					l.Prompts[i].Content += " More."
				default:
					l.Prompts[i].Title = title()
				}
			}
		})
		if err := v.reload(t.Context()); err != nil {
			t.Fatal(err)
		}
		whole := newView(mem, nil, nil)
		if err := whole.reload(t.Context()); err != nil {
			t.Fatal(err)
		}
		got, want := v.current(), whole.current()
		if !reflect.DeepEqual(viewListing(t, got), viewListing(t, want)) {
			t.Fatalf("round %d: the view that follows serves other prompts than a whole read", round)
		}
		if !slices.IsSortedFunc(got.prompts.byID, func(a, b int32) int { return compareKeys(got.prompts.idAt(int(a)), got.prompts.idAt(int(b))) }) {
			t.Fatalf("round %d: the index by id is out of order", round)
		}
	}
	// Its summaries now lie in blocks of many sizes: kept and restored, it serves the same.
	path := filepath.Join(t.TempDir(), "lib.view")
	if err := saveView(path, "lib.db", v.current()); err != nil {
		t.Fatal(err)
	}
	if got, err := loadView(path, "lib.db"); err != nil || got == nil || !reflect.DeepEqual(viewListing(t, got), viewListing(t, v.current())) {
		t.Errorf("the kept view of a table that followed edits is not restored as it was (%v)", err)
	}
	t.Logf("%d of 60 builds named from the last table", v.followed.Load())
	if n := v.followed.Load(); n < 20 {
		t.Errorf("only %d of 60 builds were named from the last table", n)
	}
}
