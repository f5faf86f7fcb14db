package dbread

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// DefaultLimit is the page size when ListOptions.Limit or Search's limit is 0 or less.
const DefaultLimit = 100

// promptColumns are named explicitly in every query: a reordered or extended table still reads
// into the right fields.
const promptColumns = "id, title, body, folder_id, icon, color, url, created_at, updated_at"

// unixTime scans a stored timestamp, which the app writes as integer or real Unix seconds.
// lenient reads one that is not as the zero time instead of failing the row.
type unixTime struct {
	t       promptlib.Time
	lenient bool
}

// errTimestamp is a stored timestamp that is not Unix seconds: the row is unreadable wherever
// it is read from (the sidecar copies timestamps verbatim), so it is never sidecar trouble.
var errTimestamp = errors.New("dbread: timestamp is not Unix seconds")

func (u *unixTime) Scan(v any) error {
	err := u.scan(v)
	if err != nil && u.lenient {
		u.t = promptlib.Time{}
		return nil
	}
	return err
}

func (u *unixTime) scan(v any) error {
	switch x := v.(type) {
	case nil:
		u.t = promptlib.Time{}
	case int64:
		u.t = promptlib.FromUnix(float64(x))
	case float64:
		u.t = promptlib.FromUnix(x)
	case []byte:
		return u.scan(string(x))
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(x), 64)
		if err != nil {
			return fmt.Errorf("%w: %q", errTimestamp, x)
		}
		u.t = promptlib.FromUnix(f)
	default:
		return fmt.Errorf("%w: a value of type %T", errTimestamp, v)
	}
	return nil
}

// promptScanner reads promptColumns, preceded by extra destinations (such as rowid), row after
// row into the same destinations: a page of rows costs its strings, not a set of destinations
// per row (a tenth of the allocations of a list).
type promptScanner struct {
	p promptlib.Prompt
	storedFields
	dest []any
}

func newPromptScanner(extra ...any) *promptScanner {
	s := &promptScanner{}
	s.dest = append(append(extra, &s.p.ID, &s.p.Title, &s.p.Content), s.storedFields.dest()...)
	return s
}

// newWalkScanner is newPromptScanner for the walks over the whole library (EachPromptRow,
// EachPromptInBucket): a timestamp that is not Unix seconds reads as the zero time. Their
// callers (the server's view of prompts and resources, the gate) use no timestamps, and one
// unreadable row must not hide the library: it emptied prompts/list. A page that shows the
// row still fails, saying why (errTimestamp).
func newWalkScanner(extra ...any) *promptScanner {
	s := newPromptScanner(extra...)
	s.created.lenient, s.updated.lenient = true, true
	return s
}

func (s *promptScanner) scan(rows *sql.Rows) (promptlib.Prompt, error) {
	if err := rows.Scan(s.dest...); err != nil {
		return promptlib.Prompt{}, err
	}
	p := s.p
	s.fill(&p)
	return p, nil
}

// storedFields are the columns folder_id, icon, color, url, created_at, updated_at as stored
// (by the app, or copied verbatim into the sidecar), read into a prompt the same way wherever
// they come from.
type storedFields struct {
	folder, icon, color, url sql.NullString
	created, updated         unixTime
}

func (f *storedFields) dest() []any {
	return []any{&f.folder, &f.icon, &f.color, &f.url, &f.created, &f.updated}
}

func (f *storedFields) fill(p *promptlib.Prompt) {
	p.FolderID = nullable(f.folder)
	p.Emoji = nullable(f.icon)
	p.Color = nil
	if f.color.Valid {
		p.Color = promptlib.ColorName(f.color.String)
	}
	p.URL = nullable(f.url)
	p.CreatedAt, p.UpdatedAt = f.created.t, f.updated.t
}

// nullable maps NULL and "" to nil: the app writes either for "unset".
func nullable(s sql.NullString) *string {
	if !s.Valid || s.String == "" {
		return nil
	}
	return &s.String
}

// idSpellings are the spellings an id may be stored in: as given, lower- and upper-case. The
// app writes upper-case UUIDs, mcpctl lower-case; `id IN (...)` keeps the primary-key index in
// use where COLLATE NOCASE would scan the table.
func idSpellings(id string) []any {
	return []any{id, strings.ToLower(id), strings.ToUpper(id)}
}

// Prompt returns one prompt by id (either case). ErrNotFound if absent.
func (db *DB) Prompt(ctx context.Context, id string) (promptlib.Prompt, error) {
	const op = "get prompt"
	pool, release, err := db.acquire()
	if err != nil {
		return promptlib.Prompt{}, db.wrap(op, err)
	}
	defer release()
	rows, err := pool.QueryContext(ctx, "SELECT "+promptColumns+" FROM prompts WHERE id IN (?, ?, ?)", idSpellings(id)...)
	if err != nil {
		return promptlib.Prompt{}, db.wrap(op, err)
	}
	defer rows.Close()
	var found []promptlib.Prompt
	sc := newPromptScanner()
	for rows.Next() {
		p, err := sc.scan(rows)
		if err != nil {
			return promptlib.Prompt{}, db.wrap(op, err)
		}
		found = append(found, p)
	}
	if err := rows.Err(); err != nil {
		return promptlib.Prompt{}, db.wrap(op, err)
	}
	if len(found) == 0 {
		return promptlib.Prompt{}, db.wrap(op, because(ErrNotFound, "no prompt "+id))
	}
	// Two rows differing only in case: prefer the exact spelling.
	for _, p := range found {
		if p.ID == id {
			return p, nil
		}
	}
	return found[0], nil
}

// ListOptions select a page of prompts, newest first (created_at, then id).
type ListOptions struct {
	FolderID string // only prompts directly in this folder ("" = no folder filter)
	Root     bool   // only prompts at the top level (FolderID must be "")
	Limit    int    // page size; 0 or less means DefaultLimit
	Offset   int
	// InFolders, when not nil, keeps only prompts in one of these folders (ids as stored): a
	// project's scope. An empty non-nil slice keeps nothing.
	InFolders []string
	// Brief leaves the bodies out (Content is ""; Summary and ContentBytes still describe it).
	Brief bool
}

// ListPrompts returns a page and the total number of prompts matching the filter, newest first
// (created_at DESC, id DESC). FolderID matches either case.
//
// When the sidecar is ready and current, the page's order comes from its index (the app's
// database has no index on created_at), and the rows from its own copy when the page is Brief,
// else from the app's database by rowid; otherwise the app's database answers directly. A
// prompt deleted between the two reads is left out of the page. The first Brief page of all
// prompts is kept in memory until the next change (head.go): its pointers are shared with later
// calls, so nobody may write through them.
func (db *DB) ListPrompts(ctx context.Context, opts ListOptions) ([]Listed, int, error) {
	const op = "list prompts"
	if opts.Root && opts.FolderID != "" {
		return nil, 0, db.wrap(op, errors.New("dbread: Root and FolderID exclude each other"))
	}
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	opts.Offset = max(opts.Offset, 0)
	current, err := db.side.current(ctx)
	if err != nil {
		return nil, 0, db.wrap(op, err)
	}
	switch {
	case current && opts.Brief:
		ls, total, err := db.side.listBriefs(ctx, opts)
		if err == nil || errors.Is(err, errTimestamp) {
			return ls, total, db.wrap(op, err)
		}
		db.log.Warn("sidecar list failed; answering from the library", "err", err)
	case current:
		refs, total, err := db.side.list(ctx, opts)
		if err == nil {
			ls, err := db.page(ctx, refs, false)
			return ls, total, db.wrap(op, err)
		}
		db.log.Warn("sidecar list failed; answering from the library", "err", err)
	}
	db.fallbacks.Add(1)
	ps, total, err := db.listDirect(ctx, opts)
	return listedOf(ps, opts.Brief), total, db.wrap(op, err)
}

// listDirect pages through the app's database: a sort of the filtered rows (the whole table
// without a filter).
func (db *DB) listDirect(ctx context.Context, opts ListOptions) ([]promptlib.Prompt, int, error) {
	var conds []string
	var args []any
	switch {
	case opts.FolderID != "":
		conds, args = append(conds, "folder_id IN (?, ?, ?)"), idSpellings(opts.FolderID)
	case opts.Root:
		conds = append(conds, "(folder_id IS NULL OR folder_id = '')")
	}
	if opts.InFolders != nil {
		conds = append(conds, "lower(folder_id) IN (SELECT value FROM json_each(?))")
		args = append(args, jsonList(opts.InFolders))
	}
	where := whereClause(conds)
	pool, release, err := db.acquire()
	if err != nil {
		return nil, 0, err
	}
	defer release()
	var total int
	if err := pool.QueryRowContext(ctx, "SELECT count(*) FROM prompts"+where, args...).Scan(&total); err != nil {
		return nil, 0, err
	}
	rows, err := pool.QueryContext(ctx, "SELECT "+promptColumns+" FROM prompts"+where+
		" ORDER BY created_at DESC, id DESC LIMIT ? OFFSET ?", append(args, opts.Limit, opts.Offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	ps := []promptlib.Prompt{}
	sc := newPromptScanner()
	for rows.Next() {
		p, err := sc.scan(rows)
		if err != nil {
			return nil, 0, err
		}
		ps = append(ps, p)
	}
	return ps, total, rows.Err()
}

// docRef names a prompt by the app's rowid and its id, as the sidecar recorded them.
type docRef struct {
	rowid int64
	id    string
}

// promptsByRowid reads refs from the app's database in refs' order. A row whose id no longer
// matches (deleted, its rowid reused) is left out.
func (db *DB) promptsByRowid(ctx context.Context, refs []docRef) ([]promptlib.Prompt, error) {
	pool, release, err := db.acquire()
	if err != nil {
		return nil, err
	}
	defer release()
	var rowid int64
	sc := newPromptScanner(&rowid)
	return byRowid(ctx, pool, "SELECT rowid, "+promptColumns+" FROM prompts", refs, func(rows *sql.Rows) (int64, string, promptlib.Prompt, error) {
		p, err := sc.scan(rows)
		return rowid, p.ID, p, err
	})
}

// byRowid reads refs by rowid with query (a SELECT without a WHERE) and returns them in refs'
// order. scan reads one row: its rowid, its id and the value. A row whose id is not its ref's
// (deleted, its rowid reused since the refs were read) is left out.
func byRowid[T any](ctx context.Context, db *sql.DB, query string, refs []docRef, scan func(*sql.Rows) (int64, string, T, error)) ([]T, error) {
	if len(refs) == 0 {
		return []T{}, nil
	}
	// The rowids go as one JSON array: binding a hundred arguments cost more than reading it.
	list := make([]byte, 0, 8*len(refs)+2)
	list = append(list, '[')
	for i, r := range refs {
		if i > 0 {
			list = append(list, ',')
		}
		list = strconv.AppendInt(list, r.rowid, 10)
	}
	list = append(list, ']')
	rows, err := db.QueryContext(ctx, query+" WHERE rowid IN (SELECT value FROM json_each(?))", string(list))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	// Rows come in rowid order; each goes straight to its place in refs' order.
	at := make(map[int64]int, len(refs))
	for i, r := range refs {
		at[r.rowid] = i
	}
	placed := make([]T, len(refs))
	found := make([]bool, len(refs))
	for rows.Next() {
		rowid, id, v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		if i, ok := at[rowid]; ok && id == refs[i].id {
			placed[i], found[i] = v, true
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	out := placed[:0] // compacted in place: a row gone since the index listed it is left out
	for i, v := range placed {
		if found[i] {
			out = append(out, v)
		}
	}
	return out, nil
}

// whereClause joins conditions into a WHERE clause, or "" when there are none.
func whereClause(conds []string) string {
	if len(conds) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(conds, " AND ")
}

// jsonList encodes ids as a JSON array, one bound parameter however many folders a scope has
// (read back with json_each), lower-cased: folder ids are compared case-insensitively, since
// the app may spell a folder's id differently in a prompt's folder_id.
func jsonList(ids []string) string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strings.ToLower(id)
	}
	b, _ := json.Marshal(out)
	return string(b)
}

// AllPrompts returns every prompt with its content, newest first, for the prompt index and MCP
// prompts. It reads in short chunks by rowid, so no read transaction is held for the whole
// table; a prompt the app changes meanwhile may appear in its old or new form. It holds every
// body in memory: callers that need one page use ListPrompts. A timestamp that is not Unix
// seconds reads as the zero time (newWalkScanner).
func (db *DB) AllPrompts(ctx context.Context) ([]promptlib.Prompt, error) {
	var all []promptlib.Prompt
	if err := db.EachPrompt(ctx, func(p promptlib.Prompt) error {
		all = append(all, p)
		return nil
	}); err != nil {
		return nil, err
	}
	slices.SortFunc(all, func(a, b promptlib.Prompt) int {
		if c := b.CreatedAt.Compare(a.CreatedAt.Time); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	if all == nil {
		all = []promptlib.Prompt{}
	}
	return all, nil
}

// EachPrompt calls fn with every prompt, in no particular order, reading in short chunks by
// rowid as AllPrompts does, but holding one chunk at a time: callers that keep only what they
// derive from each body (summaries, arguments) never have the whole library in memory. An
// error from fn stops the walk and is returned.
func (db *DB) EachPrompt(ctx context.Context, fn func(promptlib.Prompt) error) error {
	return db.EachPromptRow(ctx, func(_ int64, p promptlib.Prompt) error { return fn(p) })
}

// EachPromptRow is EachPrompt in rowid order, with each prompt's rowid: what a reader that
// follows the library by its Fingerprint files each prompt under.
func (db *DB) EachPromptRow(ctx context.Context, fn func(rowid int64, p promptlib.Prompt) error) error {
	const op = "all prompts"
	const chunk = 1000
	last := int64(-1 << 63)
	for {
		var ferr error
		n, err := db.allChunk(ctx, last, chunk, func(rowid int64, p promptlib.Prompt) {
			last = rowid
			if ferr == nil {
				ferr = fn(rowid, p)
			}
		})
		switch {
		case err != nil:
			return db.wrap(op, err)
		case ferr != nil:
			return ferr
		case n < chunk:
			return nil
		}
	}
}

func (db *DB) allChunk(ctx context.Context, after int64, limit int, add func(int64, promptlib.Prompt)) (int, error) {
	pool, release, err := db.acquire()
	if err != nil {
		return 0, err
	}
	defer release()
	rows, err := pool.QueryContext(ctx, "SELECT rowid, "+promptColumns+" FROM prompts WHERE rowid > ? ORDER BY rowid LIMIT ?", after, limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	var rowid int64
	sc := newWalkScanner(&rowid)
	for rows.Next() {
		p, err := sc.scan(rows)
		if err != nil {
			return 0, err
		}
		add(rowid, p)
		n++
	}
	return n, rows.Err()
}

// Counts returns how many prompts and folders the library holds.
func (db *DB) Counts(ctx context.Context) (prompts, folders int, err error) {
	pool, release, err := db.acquire()
	if err != nil {
		return 0, 0, db.wrap("count", err)
	}
	defer release()
	err = pool.QueryRowContext(ctx, "SELECT (SELECT count(*) FROM prompts), (SELECT count(*) FROM folders)").Scan(&prompts, &folders)
	return prompts, folders, db.wrap("count", err)
}
