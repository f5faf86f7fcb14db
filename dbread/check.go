package dbread

import (
	"context"
	"fmt"
	"io"
	"os"
	"syscall"
)

// Check reports whether the library is usable now, for health checks: the file at the path is
// the one being read (a replacement that cannot be opened — random bytes, say — is an error,
// not a quiet read of the deleted file), and its schema still has every table and column the
// reader uses (ErrSchema names what is missing). It reads no rows, unless a read has found the
// file damaged: then SQLite's quick_check says whether it still is (ErrDamaged).
func (db *DB) Check(ctx context.Context) error {
	now, err := statIdent(db.path)
	if err != nil {
		return db.wrap("check", err)
	}
	// SQLite can read a replaced file's pages out of the old file's write-ahead log, so a file
	// of garbage can look like the old library: its header says what it is.
	if err := checkHeader(db.path); err != nil {
		return db.wrap("check", err)
	}
	db.pollMu.Lock() // lock order: pollMu before mu
	db.mu.RLock()
	closed, open := db.closed, db.lib.ident
	db.mu.RUnlock()
	if !closed && now != open {
		err = db.reopen(ctx)
	}
	db.pollMu.Unlock()
	if err != nil {
		return db.wrap("check", fmt.Errorf("the library file was replaced and the new one cannot be read: %w", err))
	}
	pool, release, err := db.acquire()
	if err != nil {
		return db.wrap("check", err)
	}
	defer release()
	conn, err := pool.Conn(ctx)
	if err != nil {
		return db.wrap("check", err)
	}
	defer conn.Close()
	if err := checkSchema(ctx, conn); err != nil {
		return db.wrap("check", err)
	}
	if db.damaged.Load() {
		var verdict string
		if err := conn.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&verdict); err != nil {
			return db.wrap("check", err)
		}
		if verdict != "ok" {
			return db.wrap("check", because(ErrDamaged, verdict))
		}
		db.damaged.Store(false)
	}
	return nil
}

// sqliteHeader opens every SQLite database file.
const sqliteHeader = "SQLite format 3\x00"

// checkHeader reads a database file's first bytes without following a link or blocking.
func checkHeader(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	head := make([]byte, len(sqliteHeader))
	if _, err := io.ReadFull(f, head); err != nil || string(head) != sqliteHeader {
		return because(ErrSchema, "the library file was replaced by one that is not an SQLite database")
	}
	return nil
}
