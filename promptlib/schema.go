package promptlib

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
)

// SchemaSQL creates the Prompteka tables (idempotent).
//
//go:embed schema.sql
var SchemaSQL string

// StandaloneSQL creates what a standalone library adds to the Prompteka schema (idempotent).
//
//go:embed standalone.sql
var StandaloneSQL string

// Create writes the schema, the standalone additions and lib into db in one transaction. db is
// opened read-write by the caller, who chooses the driver.
func Create(ctx context.Context, db *sql.DB, lib Library) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("promptlib: create library: %w", err)
	}
	defer tx.Rollback() //nolint:errcheck // a no-op after Commit
	for _, stmt := range []string{SchemaSQL, StandaloneSQL} {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			return fmt.Errorf("promptlib: create schema: %w", err)
		}
	}
	if err := Insert(ctx, tx, lib); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("promptlib: create library: %w", err)
	}
	return nil
}

// Insert stores folders and prompts in their stored form (Unix seconds, hex colors, icon).
// Parents must come before their children in lib.Folders.
func Insert(ctx context.Context, tx *sql.Tx, lib Library) error {
	fstmt, err := tx.PrepareContext(ctx,
		`INSERT INTO folders (id, name, parent_id, position, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("promptlib: insert folders: %w", err)
	}
	defer fstmt.Close()
	for _, f := range lib.Folders {
		if _, err := fstmt.ExecContext(ctx, f.ID, f.Name, f.ParentID, f.Position, f.CreatedAt.Unix(), f.UpdatedAt.Unix()); err != nil {
			return fmt.Errorf("promptlib: insert folder %s: %w", f.ID, err)
		}
	}
	pstmt, err := tx.PrepareContext(ctx,
		`INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`)
	if err != nil {
		return fmt.Errorf("promptlib: insert prompts: %w", err)
	}
	defer pstmt.Close()
	for _, p := range lib.Prompts {
		if _, err := pstmt.ExecContext(ctx, p.ID, p.Title, p.Content, p.FolderID, p.Emoji, StoredColor(p.Color), p.URL,
			p.CreatedAt.Unix(), p.UpdatedAt.Unix()); err != nil {
			return fmt.Errorf("promptlib: insert prompt %s: %w", p.ID, err)
		}
	}
	return nil
}

// StoredColor maps an API color name to its stored hex form; nil and unknown names store NULL.
func StoredColor(name *string) *string {
	if name == nil {
		return nil
	}
	if h, ok := ColorHex(*name); ok {
		return &h
	}
	return nil
}
