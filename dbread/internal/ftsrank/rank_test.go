package ftsrank_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"
	"github.com/mcpctl/mcpctl/dbread/internal/ftsrank"
)

// words has a few common and many rare words, so queries match many rows or few.
var words = strings.Fields("review refactor cache caching cached go rust sql index query plan test " +
	"deploy rollback secret token auth audit log trace metric alert page budget schema table column")

func newIndex(t *testing.T, rows int) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite3", "file::memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1) // one connection: mcpctl_matches reads the connection's count
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec("CREATE VIRTUAL TABLE fts USING fts5(title, body, tokenize='unicode61 remove_diacritics 2')"); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(7, 11))
	text := func(n int) string {
		var b strings.Builder
		for range n {
			// Skewed: the first words are far more common than the last.
			b.WriteString(words[int(float64(len(words))*r.Float64()*r.Float64())])
			b.WriteByte(' ')
		}
		return b.String()
	}
	tx, _ := db.Begin()
	for range rows {
		if _, err := tx.Exec("INSERT INTO fts(title, body) VALUES (?, ?)", text(1+r.IntN(5)), text(5+r.IntN(60))); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestRankIsBM25 holds mcpctl_rank to FTS5's own bm25, score for score, and mcpctl_matches to
// the number of matches, over queries of one to three words, prefixes and column filters.
func TestRankIsBM25(t *testing.T) {
	db := newIndex(t, 3000)
	queries := []string{`"review"`, `"caching"*`, `"refactor" AND "cach"*`, `"sql" AND "index" AND "plan"`,
		`{title} : ("audit")`, `"nomatch"`, `"column" AND "review"`}
	for _, q := range queries {
		rows, err := db.Query(`SELECT rowid, bm25(fts, 5.0, 1.0), mcpctl_rank(fts, 0, 0, 5.0, 1.0) FROM fts WHERE fts MATCH ?`, q)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for rows.Next() {
			var id int64
			var want, got float64
			if err := rows.Scan(&id, &want, &got); err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("%s row %d: mcpctl_rank %v, bm25 %v", q, id, got, want)
			}
			n++
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		var count int
		if err := db.QueryRow("SELECT count(*) FROM fts WHERE fts MATCH ?", q).Scan(&count); err != nil {
			t.Fatal(err)
		}
		if n != count {
			t.Fatalf("%s: read %d rows, count(*) says %d", q, n, count)
		}
		if count == 0 {
			continue // no row was ranked: mcpctl_matches still holds the previous query's
		}
		var ranked int
		if err := db.QueryRow("SELECT mcpctl_matches()").Scan(&ranked); err != nil {
			t.Fatal(err)
		}
		if ranked != count {
			t.Errorf("%s: mcpctl_matches %d, count(*) %d", q, ranked, count)
		}
	}
}

// TestRankAndTotal: for an AND of phrases, the IDF pass's intersection is the number of
// matches, for any mix of common, rare, prefix and absent words.
func TestRankAndTotal(t *testing.T) {
	db := newIndex(t, 3000)
	r := rand.New(rand.NewPCG(3, 5))
	for range 200 {
		var phrases []string
		for range 1 + r.IntN(3) {
			w := words[r.IntN(len(words))]
			switch r.IntN(6) {
			case 0:
				w = w[:1+r.IntN(len(w))] + `"*`
			case 1:
				w = "absent" + `"`
			default:
				w += `"`
			}
			phrases = append(phrases, `"`+w)
		}
		q := strings.Join(phrases, " AND ")
		var count int
		if err := db.QueryRow("SELECT count(*) FROM fts WHERE fts MATCH ?", q).Scan(&count); err != nil {
			t.Fatal(err)
		}
		_, err := db.Exec(`SELECT rowid, mcpctl_rank(fts, 1, 1, 5.0, 1.0) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT 10`, q)
		n, broad := ftsrank.Broad(err)
		switch {
		case count > 1 && (!broad || n != count):
			t.Errorf("%s: %v (%d), want broad with %d", q, err, n, count)
		case count <= 1 && err != nil:
			t.Errorf("%s matches %d rows: %v", q, count, err)
		}
	}
}

// TestRankTopAndBroad is the sidecar's use: the best rows by rank with the total in the same
// statement, and a broad query stopped.
func TestRankTopAndBroad(t *testing.T) {
	db := newIndex(t, 3000)
	for _, q := range []string{`"refactor" AND "cach"*`, `"sql" AND "index"`, `"trace"`} {
		var count int
		if err := db.QueryRow("SELECT count(*) FROM fts WHERE fts MATCH ?", q).Scan(&count); err != nil {
			t.Fatal(err)
		}
		if count <= 10 {
			t.Fatalf("%s matches %d rows; the test needs more than a page", q, count)
		}
		rows, err := db.Query(`WITH top AS MATERIALIZED (SELECT rowid AS rid, mcpctl_rank(fts, ?, 1, 5.0, 1.0) AS score
  FROM fts WHERE fts MATCH ? ORDER BY score LIMIT 10)
SELECT rid, score, mcpctl_matches() FROM top ORDER BY score`, count, q)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for rows.Next() {
			var rid int64
			var score float64
			var total int
			if err := rows.Scan(&rid, &score, &total); err != nil {
				t.Fatal(err)
			}
			if total != count {
				t.Errorf("%s: total %d in the ranking statement, count(*) %d", q, total, count)
			}
			got = append(got, fmt.Sprint(rid, score))
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		rows.Close()
		var want []string
		rows, _ = db.Query("SELECT rowid, bm25(fts, 5.0, 1.0) AS s FROM fts WHERE fts MATCH ? ORDER BY s LIMIT 10", q)
		for rows.Next() {
			var rid int64
			var score float64
			rows.Scan(&rid, &score)
			want = append(want, fmt.Sprint(rid, score))
		}
		rows.Close()
		if strings.Join(got, ",") != strings.Join(want, ",") {
			t.Errorf("%s: top 10\n got %v\nwant %v", q, got, want)
		}

		// An AND query learns its matches before ranking; told it is not one, it stops counting.
		for and, want := range []int{-1, count} {
			_, err = db.Exec(`SELECT rowid, mcpctl_rank(fts, ?, ?, 5.0, 1.0) AS score FROM fts WHERE fts MATCH ? ORDER BY score LIMIT 10`, count-1, and, q)
			if n, broad := ftsrank.Broad(err); !broad || n != want {
				t.Errorf("%s with broadAt %d of %d matches, and %d: %v (%d, %v), want broad with %d", q, count-1, count, and, err, n, broad, want)
			}
		}
	}
}
