package dbread

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/mcpctl/mcpctl/promptlib"
)

// maxSearchWords bounds the work one query can ask for; words past it are ignored.
const maxSearchWords = 16

// searchWords splits a user's query into words: maximal runs of letters, digits and combining
// marks, the characters SQLite's unicode61 tokenizer keeps. Everything else (punctuation,
// quotes, operators, emoji) separates words and is never interpreted, so `a OR b*` is the three
// words "a", "OR", "b".
func searchWords(query string) []string {
	var words []string
	query = strings.ToValidUTF8(query, " ")
	for f := range strings.FieldsFuncSeq(query, func(r rune) bool { return !isWordRune(r) }) {
		if len(words) == maxSearchWords {
			break
		}
		words = append(words, f)
	}
	return words
}

func isWordRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.Is(unicode.M, r)
}

// unspaced reports whether w holds a letter of a script written without spaces between words
// (Chinese, Japanese, Thai, Lao, Khmer, Burmese). unicode61 cannot segment such text: a whole
// run of it up to punctuation is one term ("日本語での説明も歓迎します"), and a word of it
// inside the run is no term at all, so a query holding one is a scan (SearchIn).
// Korean is written with spaces, but a word carries its particles ("데이터베이스를", the
// database as an object), so a Korean word is looked for inside the text too.
func unspaced(w string) bool {
	return strings.ContainsFunc(w, func(r rune) bool { return promptlib.Unspaced(r) || unicode.Is(unicode.Hangul, r) })
}

// matchExpr builds an FTS5 MATCH expression that requires every word, in any of its forms
// (forms): each form is an FTS5 string ("..." with inner quotes doubled), so no word is ever read
// as query syntax; a word with several forms is ("a" OR "b" …), and the words are joined with
// AND. It returns "" for no words; the caller must not run an empty expression.
func matchExpr(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 {
			b.WriteString(" AND ")
		}
		spell, others := forms(w)
		all := slices.Concat(spell, others)
		if len(all) > 1 {
			b.WriteByte('(')
		}
		for j, f := range all {
			if j > 0 {
				b.WriteString(" OR ")
			}
			b.WriteByte('"')
			b.WriteString(strings.ReplaceAll(f, `"`, `""`))
			b.WriteByte('"')
		}
		if len(all) > 1 {
			b.WriteByte(')')
		}
	}
	return b.String()
}

// forms is what a query word is looked for as, so that a search finds what its words say in
// either number and spelling: spell is w and its spelling on the other side of the Atlantic
// ("optimise", "optimize"), others its singular or plural ("migrations": "migration"), as
// promptlib.Inflections gives them (by the stems the gate's ranking counts words with).
func forms(w string) (spell, others []string) {
	lw := strings.ToLower(w)
	all := promptlib.Inflections(lw) // lw, its other spelling if any, the other inflections
	all[0] = w
	n := 1
	if promptlib.OtherSpelling(lw) != "" {
		n = 2
	}
	return all[:n], all[n:]
}

// likeForms are the forms of w (forms) a substring scan needs. A form under four letters would
// match inside unrelated words ("doc" of "docs" in every "docker"), so only w itself may be that
// short; and a form that holds another is matched by it already ("migration" finds
// "migrations").
func likeForms(w string) []string {
	spell, others := forms(w)
	var cands []string
	for i, f := range slices.Concat(spell, others) {
		if i == 0 || len(f) >= 4 {
			cands = append(cands, strings.ToLower(f))
		}
	}
	var keep []string
	for _, f := range cands {
		if !slices.ContainsFunc(cands, func(g string) bool { return g != f && strings.Contains(f, g) }) {
			keep = append(keep, f)
		}
	}
	return keep
}

// likePattern is a LIKE pattern (ESCAPE '\') matching w anywhere: %, _ and \ in w match
// themselves.
func likePattern(w string) string {
	r := strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)
	return "%" + r.Replace(w) + "%"
}

// Search returns prompts holding every word of query (plain text, never query syntax), each in
// its singular or plural and British or American spelling (forms), ranked by relevance then
// newest, and the total number of matches. Words are runs of letters and digits (at most 16),
// matched whole wherever they stand, so their order changes neither the matches nor the total;
// only a query holding a word in a script written without spaces (unspaced) is answered by a
// LIKE scan, every word a substring, as the index cannot find such a word inside a run of text.
// A query with no words (only punctuation or emoji, say) matches nothing. limit 0 or less
// means DefaultLimit.
//
// Relevance is bm25 over the sidecar's full-text index with the title weighted over the body,
// ties broken by created_at DESC then id. If the library changed since the sidecar last caught
// up, Search first waits (bounded, ~0.5 s) for the incremental sync, so a prompt the app just
// added is found by the next call; while the index is building, unavailable or late, Search
// answers through a LIKE scan of the app's database (every word as a substring of title or
// body, titles hits first, then newest). Sidecar trouble is logged and never fails a search.
func (db *DB) Search(ctx context.Context, query string, limit, offset int) ([]Listed, int, error) {
	return db.SearchIn(ctx, query, SearchOptions{Limit: limit, Offset: offset})
}

// SearchOptions narrow and page a search.
type SearchOptions struct {
	// InFolders, when not nil, keeps only prompts in one of these folders (ids as stored): a
	// project's scope. An empty non-nil slice keeps nothing.
	InFolders     []string
	Limit, Offset int // Limit 0 or less means DefaultLimit
	// Brief leaves the bodies out (Content is ""; Summary and ContentBytes still describe it).
	Brief bool
}

// SearchIn is Search with options: a project's scope, and brief results.
func (db *DB) SearchIn(ctx context.Context, query string, opts SearchOptions) ([]Listed, int, error) {
	const op = "search"
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	opts.Offset = max(opts.Offset, 0)
	words := searchWords(query)
	if len(words) == 0 {
		if db.isClosed() {
			return nil, 0, db.wrap(op, ErrClosed)
		}
		return []Listed{}, 0, nil
	}
	if slices.ContainsFunc(words, unspaced) {
		// The index cannot find a word inside a run of such text ("説明" in "日本語での説明も
		// 歓迎します"), only at its start: a query holding one is a scan, every word a substring.
		ps, total, err := db.searchLike(ctx, words, opts.InFolders, opts.Limit, opts.Offset)
		return listedOf(ps, opts.Brief), total, db.wrap(op, err)
	}
	current, err := db.side.current(ctx)
	if err != nil {
		return nil, 0, db.wrap(op, err)
	}
	if current {
		refs, total, err := db.side.search(ctx, matchExpr(words), opts.InFolders, opts.Limit, opts.Offset)
		if err == nil {
			var ls []Listed
			// A page read from the app's database fails as a scan of it would, and so does an
			// unreadable row however it is read; anything else from the sidecar is sidecar
			// trouble, which the scan still answers.
			if ls, err = db.page(ctx, refs, opts.Brief); err == nil || !opts.Brief || errors.Is(err, errTimestamp) {
				return ls, total, db.wrap(op, err)
			}
		}
		db.log.Warn("sidecar search failed; scanning the library", "err", err)
	}
	db.fallbacks.Add(1)
	ps, total, err := db.searchLike(ctx, words, opts.InFolders, opts.Limit, opts.Offset)
	return listedOf(ps, opts.Brief), total, db.wrap(op, err)
}

// searchLike scans the app's database: every word, in any of its forms (likeForms), must be a
// substring of the title or the body (LIKE is case-insensitive for ASCII only). Order: more
// words in the title first, then newest.
func (db *DB) searchLike(ctx context.Context, words []string, inFolders []string, limit, offset int) ([]promptlib.Prompt, int, error) {
	var where, score []string
	var args []any
	for _, w := range words {
		var in, inTitle []string
		for _, a := range likeForms(w) {
			args = append(args, likePattern(a))
			n := "?" + strconv.Itoa(len(args))
			in = append(in, "title LIKE "+n+" ESCAPE '\\' OR body LIKE "+n+" ESCAPE '\\'")
			inTitle = append(inTitle, "title LIKE "+n+" ESCAPE '\\'")
		}
		where = append(where, "("+strings.Join(in, " OR ")+")")
		score = append(score, "("+strings.Join(inTitle, " OR ")+")")
	}
	if inFolders != nil {
		args = append(args, jsonList(inFolders))
		where = append(where, "lower(folder_id) IN (SELECT value FROM json_each(?"+strconv.Itoa(len(args))+"))")
	}
	cond := strings.Join(where, " AND ")
	pool, release, err := db.acquire()
	if err != nil {
		return nil, 0, err
	}
	defer release()
	np := len(args)
	rows, err := pool.QueryContext(ctx, "SELECT count(*) OVER (), "+promptColumns+" FROM prompts WHERE "+cond+
		" ORDER BY "+strings.Join(score, " + ")+" DESC, created_at DESC, id LIMIT ?"+strconv.Itoa(np+1)+" OFFSET ?"+strconv.Itoa(np+2),
		append(args, limit, offset)...)
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	ps := []promptlib.Prompt{}
	total := -1
	sc := newPromptScanner(&total)
	for rows.Next() {
		p, err := sc.scan(rows)
		if err != nil {
			return nil, 0, err
		}
		ps = append(ps, p)
	}
	if err := rows.Err(); err != nil {
		return nil, 0, err
	}
	rows.Close()
	if total < 0 { // an empty page says nothing about the total
		total = 0
		if offset > 0 {
			err = pool.QueryRowContext(ctx, "SELECT count(*) FROM prompts WHERE "+cond, args...).Scan(&total)
		}
	}
	return ps, total, err
}
