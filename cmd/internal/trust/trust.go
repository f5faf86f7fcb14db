// Package trust decides whether a project file that travels with a repository
// (REPO/.mcpctl/project.yaml) may start the commands it lists. Cloning a repository must never
// run its code: the user trusts one exact file with 'mcpctl trust', which records its sha256
// under $XDG_STATE_HOME/mcpctl/trust/, and any change to the file makes it untrusted again.
package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// The project file of a repository: REPO/.mcpctl/project.yaml.
const (
	ProjectDir  = ".mcpctl"
	ProjectFile = "project.yaml"
)

// maxFile bounds what is read of a project file or a record.
const maxFile = 1 << 20

// ErrNotFound means no directory from the start upwards holds .mcpctl/project.yaml.
var ErrNotFound = errors.New("trust: no .mcpctl/project.yaml here or in a parent directory")

// Find returns the absolute path of .mcpctl/project.yaml in dir or the nearest parent that has
// one, or ErrNotFound. A .mcpctl/project.yaml that is a directory or missing is skipped;
// one that is a symlink or another non-regular file is an error, since it would be refused
// anyway and a parent's file must not silently take its place.
func Find(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("trust: find the project file from %s: %w", dir, err)
	}
	for d := abs; ; d = filepath.Dir(d) {
		file := filepath.Join(d, ProjectDir, ProjectFile)
		fi, err := os.Lstat(file)
		switch {
		case err == nil && fi.Mode().IsRegular():
			return file, nil
		case err == nil && !fi.IsDir():
			return "", fmt.Errorf("trust: %s is not a regular file (a symlink or a device); make it a plain file", file)
		case err != nil && !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR):
			return "", fmt.Errorf("trust: find the project file: %w", err)
		}
		if filepath.Dir(d) == d {
			return "", ErrNotFound
		}
	}
}

// RepoDir is the repository a project file belongs to: the directory holding .mcpctl.
func RepoDir(file string) string { return filepath.Dir(filepath.Dir(file)) }

// Record is what trusting a file writes.
type Record struct {
	File      string    `json:"file"`   // the absolute path trusted
	SHA256    string    `json:"sha256"` // of the file's bytes when trusted
	TrustedAt time.Time `json:"trustedAt"`
}

// Store holds trust records in a directory, normally $XDG_STATE_HOME/mcpctl/trust.
type Store struct{ Dir string }

// ReadFile reads a project file the way trust sees it: a regular file, not through a symlink,
// at most 1 MB. Load a repository's project from these bytes, and check them with
// TrustedData, so the file cannot change between the check and its use.
func ReadFile(file string) ([]byte, error) {
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return nil, fmt.Errorf("trust: %s is a symlink; trust only a plain file", file)
		}
		return nil, fmt.Errorf("trust: read %s: %w", file, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", file, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("trust: %s is not a regular file", file)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxFile+1))
	if err != nil {
		return nil, fmt.Errorf("trust: read %s: %w", file, err)
	}
	if len(data) > maxFile {
		return nil, fmt.Errorf("trust: %s is over 1 MB; a project file is small", file)
	}
	return data, nil
}

// recordPath is where the record for file lives: one file per trusted path, named by the
// path's hash so any path fits.
func (s Store) recordPath(file string) string {
	sum := sha256.Sum256([]byte(file))
	return filepath.Join(s.Dir, hex.EncodeToString(sum[:])+".json")
}

// checkDir makes sure the store's directory is ours alone: a directory (not a symlink) owned by
// this user with mode 0700. With create, a missing one is made.
func (s Store) checkDir(create bool) error {
	fi, err := os.Lstat(s.Dir)
	if errors.Is(err, fs.ErrNotExist) && create {
		if err := os.MkdirAll(s.Dir, 0o700); err != nil {
			return fmt.Errorf("trust: create %s: %w", s.Dir, err)
		}
		fi, err = os.Lstat(s.Dir)
	}
	if err != nil {
		return fmt.Errorf("trust: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("trust: %s is not a directory (a symlink?); remove it and trust again", s.Dir)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("trust: %s has mode %v; others must not write trust records: chmod 700 it", s.Dir, fi.Mode().Perm())
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Getuid() {
		return fmt.Errorf("trust: %s belongs to another user; remove it and trust again", s.Dir)
	}
	return nil
}

// Trust records file's current content as trusted and returns the record. The file must be
// a regular file (a symlink is refused).
func (s Store) Trust(file string) (Record, error) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return Record{}, fmt.Errorf("trust: %w", err)
	}
	data, err := ReadFile(abs)
	if err != nil {
		return Record{}, err
	}
	sum := sha256.Sum256(data)
	rec := Record{File: abs, SHA256: hex.EncodeToString(sum[:]), TrustedAt: time.Now().UTC().Truncate(time.Second)}
	if err := s.checkDir(true); err != nil {
		return Record{}, err
	}
	body, _ := json.MarshalIndent(rec, "", "  ")
	tmp, err := os.CreateTemp(s.Dir, ".record-*")
	if err != nil {
		return Record{}, fmt.Errorf("trust: write the record: %w", err)
	}
	defer os.Remove(tmp.Name()) // gone after the rename; a half-written temp otherwise
	if _, err := tmp.Write(append(body, '\n')); err != nil {
		tmp.Close()
		return Record{}, fmt.Errorf("trust: write the record: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return Record{}, fmt.Errorf("trust: write the record: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return Record{}, fmt.Errorf("trust: write the record: %w", err)
	}
	if err := os.Rename(tmp.Name(), s.recordPath(abs)); err != nil {
		return Record{}, fmt.Errorf("trust: write the record: %w", err)
	}
	return rec, nil
}

// TrustedData is Trusted for data read from file (by ReadFile).
func (s Store) TrustedData(file string, data []byte) (ok bool, reason string) {
	abs, err := filepath.Abs(file)
	if err != nil {
		return false, err.Error()
	}
	how := "read it, then let it start its servers with: mcpctl trust " + ShellWord(RepoDir(abs))
	if err := s.checkDir(false); errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Sprintf("%s is not trusted: it can start commands; %s", abs, how)
	} else if err != nil {
		return false, err.Error()
	}
	rec, err := s.read(abs)
	if errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Sprintf("%s is not trusted: it can start commands; %s", abs, how)
	}
	if err != nil {
		return false, err.Error()
	}
	sum := sha256.Sum256(data)
	if rec.File != abs || rec.SHA256 != hex.EncodeToString(sum[:]) {
		return false, fmt.Sprintf("%s changed since it was trusted on %s; %s", abs, rec.TrustedAt.Format(time.DateOnly), how)
	}
	return true, fmt.Sprintf("%s trusted on %s", abs, rec.TrustedAt.Format(time.DateOnly))
}

func (s Store) read(abs string) (Record, error) {
	path := s.recordPath(abs)
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		if errors.Is(err, syscall.ELOOP) {
			return Record{}, fmt.Errorf("trust: record %s is a symlink; remove it and trust again", path)
		}
		return Record{}, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return Record{}, fmt.Errorf("trust: record %s is not a regular file; remove it and trust again", path)
	}
	var rec Record
	if err := json.NewDecoder(io.LimitReader(f, maxFile)).Decode(&rec); err != nil {
		return Record{}, fmt.Errorf("trust: record %s is damaged (%v); trust the file again", path, err)
	}
	return rec, nil
}

// ShellWord quotes a path for a POSIX shell when it needs it, so the command a message names
// can be pasted as it is ("/home/me/Shop Front" would otherwise be two arguments).
func ShellWord(s string) string {
	if s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '_' || r == '-' || r == '+' || r == ':' || r == '@' || r == ',' ||
			'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9')
	}) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
