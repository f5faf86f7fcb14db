package dbread

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// smallLibrary is a hand-made library whose every field is known.
func smallLibrary() promptlib.Library {
	at := func(s string) promptlib.Time {
		t, err := time.Parse(time.RFC3339, s)
		if err != nil {
			panic(err)
		}
		return promptlib.Time{Time: t}
	}
	eng := "0B7C8C5E-1A2B-4C3D-8E9F-000000000001"
	sec := "0B7C8C5E-1A2B-4C3D-8E9F-000000000002"
	sub := "0B7C8C5E-1A2B-4C3D-8E9F-000000000003"
	return promptlib.Library{
		Folders: []promptlib.Folder{
			{ID: eng, Name: "Engineering", Position: 1, CreatedAt: at("2024-01-01T00:00:00Z"), UpdatedAt: at("2024-01-01T00:00:00Z")},
			{ID: sec, Name: "Security", Position: 0, CreatedAt: at("2024-01-01T00:00:00Z"), UpdatedAt: at("2024-01-01T00:00:00Z")},
			{ID: sub, Name: "Go", ParentID: promptlib.Ptr(eng), CreatedAt: at("2024-01-02T00:00:00Z"), UpdatedAt: at("2024-01-02T00:00:00Z")},
		},
		Prompts: []promptlib.Prompt{
			{ID: "A0000000-0000-4000-8000-000000000001", Title: "Security Review", Content: "Audit the login flow for injection.",
				FolderID: promptlib.Ptr(sec), Emoji: promptlib.Ptr("🔒"), Color: promptlib.Ptr("red"), URL: promptlib.Ptr("https://example.com/sec"),
				CreatedAt: at("2024-03-01T10:00:00Z"), UpdatedAt: at("2024-03-02T10:00:00Z")},
			{ID: "A0000000-0000-4000-8000-000000000002", Title: "Go error handling", Content: "Wrap errors with context. Review the goroutines.",
				FolderID: promptlib.Ptr(sub), Emoji: promptlib.Ptr("👨‍💻"), Color: promptlib.Ptr("blue"),
				CreatedAt: at("2024-03-05T10:00:00Z"), UpdatedAt: at("2024-03-05T10:00:00Z")},
			{ID: "A0000000-0000-4000-8000-000000000003", Title: "Daily notes", Content: "日本語での説明も歓迎します。 데이터베이스를 매일 백업합니다. Données & analyse, 100% sûr.",
				CreatedAt: at("2024-02-01T10:00:00Z"), UpdatedAt: at("2024-02-01T10:00:00Z")},
			{ID: "A0000000-0000-4000-8000-000000000004", Title: "Release notes", Content: "Summarize the release for users; review the changelog.",
				FolderID: promptlib.Ptr(eng), CreatedAt: at("2024-04-01T10:00:00Z"), UpdatedAt: at("2024-04-01T10:00:00Z")},
		},
	}
}

func TestPromptFields(t *testing.T) {
	lib := librarytest.FromLibrary(t, smallLibrary())
	// What the app may also write: a color it added later, lower-case hex, REAL timestamps.
	lib.Exec(t, "UPDATE prompts SET color = '#123456' WHERE id = 'A0000000-0000-4000-8000-000000000002'")
	lib.Exec(t, "UPDATE prompts SET color = '#ef4444', created_at = 1709287200.25, updated_at = 1709373600.5 WHERE id = 'A0000000-0000-4000-8000-000000000001'")
	db := open(t, lib.DB, Options{})
	ctx := context.Background()

	p, err := db.Prompt(ctx, "a0000000-0000-4000-8000-000000000001")
	if err != nil {
		t.Fatal(err)
	}
	want := lib.Data.Prompts[0]
	if p.ID != want.ID || p.Title != want.Title || p.Content != want.Content {
		t.Errorf("Prompt = %q %q %q, want %q %q %q (stored id spelling)", p.ID, p.Title, p.Content, want.ID, want.Title, want.Content)
	}
	if p.Emoji == nil || *p.Emoji != "🔒" || p.URL == nil || *p.URL != "https://example.com/sec" || *p.FolderID != *want.FolderID {
		t.Errorf("Prompt emoji/url/folder = %v %v %v, want 🔒, the url, the folder", p.Emoji, p.URL, p.FolderID)
	}
	if p.Color == nil || *p.Color != "red" {
		t.Errorf("Prompt color (stored #ef4444) = %v, want red", p.Color)
	}
	if got, want := p.CreatedAt.String(), "2024-03-01T10:00:00.250Z"; got != want {
		t.Errorf("CreatedAt (REAL) = %s, want %s", got, want)
	}
	if got, want := p.UpdatedAt.String(), "2024-03-02T10:00:00.500Z"; got != want {
		t.Errorf("UpdatedAt (REAL) = %s, want %s", got, want)
	}

	p2, err := db.Prompt(ctx, "A0000000-0000-4000-8000-000000000002")
	if err != nil {
		t.Fatal(err)
	}
	if p2.Color != nil {
		t.Errorf("unknown hex color read as %q, want nil", *p2.Color)
	}
	if got, want := p2.CreatedAt.String(), "2024-03-05T10:00:00.000Z"; got != want {
		t.Errorf("CreatedAt (INTEGER) = %s, want %s", got, want)
	}
	p3, err := db.Prompt(ctx, "A0000000-0000-4000-8000-000000000003")
	if err != nil {
		t.Fatal(err)
	}
	if p3.FolderID != nil || p3.Emoji != nil || p3.Color != nil || p3.URL != nil {
		t.Errorf("unset fields = %v %v %v %v, want all nil", p3.FolderID, p3.Emoji, p3.Color, p3.URL)
	}
}

func TestPromptByID(t *testing.T) {
	lib := librarytest.New(t, 30)
	db := open(t, lib.DB, Options{})
	ctx := context.Background()
	stored := lib.Data.Prompts[7].ID // upper-case, as the app writes
	for _, id := range []string{stored, strings.ToLower(stored), strings.ToUpper(stored)} {
		p, err := db.Prompt(ctx, id)
		if err != nil {
			t.Errorf("Prompt(%s): %v", id, err)
			continue
		}
		if p.ID != stored {
			t.Errorf("Prompt(%s).ID = %s, want the stored spelling %s", id, p.ID, stored)
		}
	}
	for _, id := range []string{"00000000-0000-4000-8000-000000000000", "", "' OR 1=1 --"} {
		if _, err := db.Prompt(ctx, id); !errors.Is(err, ErrNotFound) {
			t.Errorf("Prompt(%q) = %v, want ErrNotFound", id, err)
		}
	}
}

// TestPromptLookupUsesIndex: the either-case lookup must search the primary key, not scan.
func TestPromptLookupUsesIndex(t *testing.T) {
	lib := librarytest.New(t, 10)
	db := open(t, lib.DB, Options{})
	for _, q := range []string{
		"SELECT " + promptColumns + " FROM prompts WHERE id IN (?, ?, ?)",
		"SELECT " + folderColumns + " FROM folders WHERE id IN (?, ?, ?)",
	} {
		plan := queryPlan(t, db, q, idSpellings("a")...)
		if !strings.Contains(plan, "USING INDEX sqlite_autoindex") || strings.Contains(plan, "SCAN") {
			t.Errorf("plan for %q = %q, want a search of the primary-key index", q, plan)
		}
	}
}

func queryPlan(tb testing.TB, db *DB, query string, args ...any) string {
	tb.Helper()
	pool, release, err := db.acquire()
	if err != nil {
		tb.Fatal(err)
	}
	defer release()
	rows, err := pool.Query("EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var details []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			tb.Fatal(err)
		}
		details = append(details, detail)
	}
	return strings.Join(details, "; ")
}

// newestFirst is ListPrompts' order, computed from the written library.
func newestFirst(ps []promptlib.Prompt, keep func(promptlib.Prompt) bool) []string {
	var sel []promptlib.Prompt
	for _, p := range ps {
		if keep(p) {
			sel = append(sel, p)
		}
	}
	slices.SortFunc(sel, func(a, b promptlib.Prompt) int {
		if c := b.CreatedAt.Compare(a.CreatedAt.Time); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	ids := make([]string, len(sel))
	for i, p := range sel {
		ids[i] = p.ID
	}
	return ids
}

func ids(ls []Listed) []string {
	ps := make([]promptlib.Prompt, len(ls))
	for i, l := range ls {
		ps[i] = l.Prompt
	}
	return promptIDs(ps)
}

func promptIDs(ps []promptlib.Prompt) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.ID
	}
	return out
}

func TestListPrompts(t *testing.T) {
	lib := librarytest.New(t, 300)
	var folder string
	for _, p := range lib.Data.Prompts {
		if p.FolderID != nil {
			folder = *p.FolderID
			break
		}
	}
	all := func(promptlib.Prompt) bool { return true }
	inFolder := func(p promptlib.Prompt) bool { return p.FolderID != nil && *p.FolderID == folder }
	atRoot := func(p promptlib.Prompt) bool { return p.FolderID == nil }
	tests := []struct {
		name string
		opts ListOptions
		keep func(promptlib.Prompt) bool
	}{
		{"first page", ListOptions{Limit: 20}, all},
		{"later page", ListOptions{Limit: 20, Offset: 40}, all},
		{"default limit", ListOptions{}, all},
		{"past the end", ListOptions{Limit: 10, Offset: 1000}, all},
		{"folder, other case", ListOptions{FolderID: strings.ToLower(folder), Limit: 5}, inFolder},
		{"folder, stored case", ListOptions{FolderID: folder, Limit: 100}, inFolder},
		{"root", ListOptions{Root: true, Limit: 7, Offset: 2}, atRoot},
		{"unknown folder", ListOptions{FolderID: "no-such-folder"}, func(promptlib.Prompt) bool { return false }},
	}
	modes := map[string]*DB{
		"sidecar":    openReady(t, lib.DB),
		"no sidecar": open(t, lib.DB, Options{}),
	}
	if ok, err := modes["sidecar"].side.current(context.Background()); !ok || err != nil {
		t.Fatal("sidecar ready but not current: the sidecar mode would test the direct path")
	}
	for mode, db := range modes {
		for _, tt := range tests {
			t.Run(mode+"/"+tt.name, func(t *testing.T) {
				got, total, err := db.ListPrompts(context.Background(), tt.opts)
				if err != nil {
					t.Fatal(err)
				}
				want := newestFirst(lib.Data.Prompts, tt.keep)
				if total != len(want) {
					t.Errorf("total = %d, want %d", total, len(want))
				}
				limit := cmp.Or(tt.opts.Limit, DefaultLimit)
				want = want[min(tt.opts.Offset, len(want)):]
				want = want[:min(limit, len(want))]
				if !slices.Equal(ids(got), want) {
					t.Errorf("page = %v\nwant   %v", ids(got), want)
				}
				for _, p := range got {
					if p.Content == "" {
						t.Errorf("prompt %s listed without content", p.ID)
						break
					}
				}
			})
		}
	}
	if n := modes["sidecar"].fallbacks.Load(); n != 0 {
		t.Errorf("sidecar mode: %d lists answered directly, want 0", n)
	}
	if _, _, err := modes["sidecar"].ListPrompts(context.Background(), ListOptions{Root: true, FolderID: folder}); err == nil {
		t.Errorf("ListPrompts(Root and FolderID) = nil error, want one")
	}
}

func TestAllPromptsAndCounts(t *testing.T) {
	lib := librarytest.New(t, 1200) // more than one chunk
	db := open(t, lib.DB, Options{})
	ctx := context.Background()
	all, err := db.AllPrompts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := newestFirst(lib.Data.Prompts, func(promptlib.Prompt) bool { return true })
	if !slices.Equal(promptIDs(all), want) {
		t.Errorf("AllPrompts returned %d prompts, not the library newest first (%d)", len(all), len(want))
	}
	np, nf, err := db.Counts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if np != len(lib.Data.Prompts) || nf != len(lib.Data.Folders) {
		t.Errorf("Counts = %d, %d, want %d, %d", np, nf, len(lib.Data.Prompts), len(lib.Data.Folders))
	}
}

func TestUnixTimeScan(t *testing.T) {
	tests := []struct {
		in      any
		want    string
		wantErr bool
	}{
		{int64(1700000000), "2023-11-14T22:13:20.000Z", false},
		{float64(1700000000.25), "2023-11-14T22:13:20.250Z", false},
		{"1700000000.5", "2023-11-14T22:13:20.500Z", false},
		{[]byte("1700000000"), "2023-11-14T22:13:20.000Z", false},
		{nil, "0001-01-01T00:00:00.000Z", false},
		{"yesterday", "", true},
		{true, "", true},
	}
	for _, tt := range tests {
		var u unixTime
		err := u.Scan(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("Scan(%#v) error = %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if err == nil && u.t.String() != tt.want {
			t.Errorf("Scan(%#v) = %s, want %s", tt.in, u.t, tt.want)
		}
	}
}
