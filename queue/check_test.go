package queue

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// TestCheckDirAgreesWithWriter: for every kind of queue directory, CheckDir's state (what
// health_check reports) is DirWritable exactly when the Writer accepts a write there, and its
// error is the one the Writer returns.
func TestCheckDirAgreesWithWriter(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, q string) string // returns the queue path to use
		state   string
		pending int
	}{
		{"a private queue with two pending", func(t *testing.T, q string) string {
			for _, n := range []string{"a.json", "b.json", ".response-x.json", "c.txt"} {
				os.WriteFile(filepath.Join(q, n), nil, 0o600)
			}
			return q
		}, DirWritable, 2},
		{"others may read", func(t *testing.T, q string) string { os.Chmod(q, 0o755); return q }, DirWritable, 0},
		{"missing", func(t *testing.T, q string) string { return filepath.Join(q, "nope") }, DirMissing, 0},
		{"symlink", func(t *testing.T, q string) string {
			link := filepath.Join(t.TempDir(), "link")
			os.Symlink(q, link)
			return link
		}, DirSymlink, 0},
		{"a file", func(t *testing.T, q string) string {
			f := filepath.Join(t.TempDir(), "file")
			os.WriteFile(f, nil, 0o600)
			return f
		}, DirNotDir, 0},
		{"mode 0770", func(t *testing.T, q string) string { os.Chmod(q, 0o770); return q }, DirInsecure, 0},
		{"mode 0777", func(t *testing.T, q string) string { os.Chmod(q, 0o777); return q }, DirInsecure, 0},
		{"mode 0702", func(t *testing.T, q string) string { os.Chmod(q, 0o702); return q }, DirInsecure, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := newLib(t, 1)
			q := tt.setup(t, l.Queue)
			state, pending, err := CheckDir(q)
			if state != tt.state || pending != tt.pending || (err == nil) != (state == DirWritable) {
				t.Errorf("CheckDir = %q, %d, %v; want %q, %d", state, pending, err, tt.state, tt.pending)
			}
			if err != nil && promptlib.CodeOf(err) != promptlib.CodePermissionDenied {
				t.Errorf("CheckDir error code %s, want PERMISSION_DENIED", promptlib.CodeOf(err))
			}
			// Where owner and mode are not the fault, the advice says what is: how to make a
			// missing or misplaced queue, which directory to give instead of a link.
			want := map[string]string{DirMissing: "mkdir -m 700 " + q, DirNotDir: "mkdir -m 700 " + q, DirSymlink: "serve --queue " + l.Queue}[state]
			if pe, ok := err.(*promptlib.Error); want != "" && (!ok || !strings.Contains(pe.Hint(), want)) {
				t.Errorf("%s queue: %#v, want a hint with %q", state, err, want)
			}
			// The writer refuses exactly where CheckDir does, with the same reason. (A
			// processor-less writer on an accepted queue withdraws: its error is another.)
			_, werr := fastWriter(t, q).Submit(context.Background(), promptlib.OpCreatePrompt, createPrompt("x"))
			pe := asError(t, werr)
			refused := pe.Code == promptlib.CodePermissionDenied
			if refused != (state != DirWritable) {
				t.Errorf("writer %s %q, CheckDir %q: they disagree", pe.Code, pe.Message, state)
			}
			if err != nil && pe.Message != err.(*promptlib.Error).Message+" (operation "+pe.OperationID+" was not applied)" {
				t.Errorf("writer says %q, CheckDir %q: want the same reason", pe.Message, err)
			}
		})
	}
}
