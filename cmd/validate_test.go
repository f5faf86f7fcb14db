package cmd

import (
	"bufio"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

var queueTestdata = filepath.Join("..", "testdata", "queue")

func TestValidateAcceptsValidFiles(t *testing.T) {
	code, out, errOut := run(t, nil, "validate", filepath.Join(queueTestdata, "valid"))
	if code != 0 || out != "" {
		t.Errorf("exit %d, stdout %q (stderr %q); want 0 and no problems", code, out, errOut)
	}
}

// Every invalid example is rejected, at the JSON pointer testdata/queue/invalid/want.txt names.
func TestValidateRejectsInvalidFiles(t *testing.T) {
	dir := filepath.Join(queueTestdata, "invalid")
	code, out, _ := run(t, nil, "validate", dir)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	want, err := os.Open(filepath.Join(dir, "want.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer want.Close()
	lines := strings.Split(strings.TrimSpace(out), "\n")
	sc := bufio.NewScanner(want)
	n := 0
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		file, ptr, _ := strings.Cut(sc.Text(), ": ")
		prefix := filepath.Join(dir, file) + ": " + ptr
		found := false
		for _, l := range lines {
			found = found || strings.HasPrefix(l, prefix)
		}
		if !found {
			t.Errorf("no problem reported at %s; output:\n%s", prefix, out)
		}
		n++
	}
	entries, _ := os.ReadDir(dir)
	if len(entries)-1 != n {
		t.Errorf("want.txt lists %d files, the directory holds %d", n, len(entries)-1)
	}
}

func TestValidateUsage(t *testing.T) {
	op := filepath.Join(queueTestdata, "valid", "0a000001-0000-4000-8000-000000000001.json")
	// The same operation under a name the processor would fail: by its name it is no queue
	// file; with --kind its content alone is checked.
	data, err := os.ReadFile(op)
	if err != nil {
		t.Fatal(err)
	}
	fixture := filepath.Join(t.TempDir(), "create-folder.json")
	if err := os.WriteFile(fixture, data, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		code int
	}{
		{[]string{"validate"}, 2},
		{[]string{"validate", "--kind", "banana", op}, 2},
		{[]string{"validate", filepath.Join(t.TempDir(), "missing.json")}, 2},
		{[]string{"validate", op}, 0},
		{[]string{"validate", "--kind", "operation", op}, 0},
		{[]string{"validate", "--kind", "response", op}, 1}, // an operation is not a response
		{[]string{"validate", fixture}, 1},
		{[]string{"validate", "--kind", "operation", fixture}, 0},
	}
	for _, tt := range tests {
		if code, out, errOut := run(t, nil, tt.args...); code != tt.code {
			t.Errorf("mcpctl %v: exit %d, want %d\n%s%s", tt.args, code, tt.code, out, errOut)
		}
	}
	// A path that is not there says so in words; a directory without queue files passes (an
	// empty queue is valid), saying nothing was checked.
	missing := filepath.Join(t.TempDir(), "missing.json")
	if code, _, errOut := run(t, nil, "validate", missing); code != 2 || !strings.Contains(errOut, "validate: "+missing+" does not exist") {
		t.Errorf("validate a missing path: exit %d\n%s", code, errOut)
	}
	empty := t.TempDir()
	if code, _, errOut := run(t, nil, "validate", empty); code != 0 || !strings.Contains(errOut, "no *.json files under "+empty+": nothing was checked") {
		t.Errorf("validate an empty directory: exit %d\n%s", code, errOut)
	}
	// A dot-file is not failed by the processor but never taken: the line says which.
	dot := filepath.Join(filepath.Dir(fixture), ".create-folder.json")
	if err := os.Rename(fixture, dot); err != nil {
		t.Fatal(err)
	}
	if code, out, _ := run(t, nil, "validate", dot); code != 1 || !strings.Contains(out, "never takes .create-folder.json") {
		t.Errorf("validate %s: exit %d\n%s", dot, code, out)
	}
}

// Every operation the writer can produce is accepted: absent and null fields, upper- and
// lower-case ids, multi-code-point emoji.
func TestValidateAcceptsWriterOutput(t *testing.T) {
	dir := t.TempDir()
	ops := []struct {
		kind promptlib.OpKind
		data string
	}{
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","folderId":"AAAAAAAA-0000-4000-8000-000000000001","emoji":"🇫🇷","color":"green","url":"http://x.example"}`},
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","folderId":null,"emoji":null,"color":null,"url":null}`},
		{promptlib.OpUpdatePrompt, `{"id":"aaaaaaaa-0000-4000-8000-000000000001","emoji":"👍🏽","folderId":null}`},
		{promptlib.OpDeletePrompt, `{"id":"aaaaaaaa-0000-4000-8000-000000000001"}`},
		{promptlib.OpCreateFolder, `{"name":"n","parentId":null}`},
		{promptlib.OpUpdateFolder, `{"id":"aaaaaaaa-0000-4000-8000-000000000001","name":"m","parentId":"AAAAAAAA-0000-4000-8000-000000000002"}`},
		{promptlib.OpDeleteFolder, `{"id":"aaaaaaaa-0000-4000-8000-000000000001","recursive":false}`},
	}
	for _, o := range ops {
		op, err := promptlib.NewOperation(o.kind, json.RawMessage(o.data))
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(op)
		os.WriteFile(filepath.Join(dir, op.ID+".json"), b, 0o600)
	}
	if code, out, _ := run(t, nil, "validate", dir); code != 0 {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// Fault: a FIFO, a socket or a symlink named *.json is reported as "not a regular file" and never
// opened for reading: a FIFO's open would block validate forever (issue 14 item 5).
func TestValidateNonRegularFiles(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "0a000001-0000-4000-8000-000000000001.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "0a000001-0000-4000-8000-000000000002.json")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	link := filepath.Join(dir, "0a000001-0000-4000-8000-000000000003.json")
	target, err := filepath.Abs(filepath.Join(queueTestdata, "valid", "0a000001-0000-4000-8000-000000000001.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		args []string
		want []string // each a problem line that must appear
	}{
		{"a FIFO given by name", []string{"validate", fifo}, []string{fifo + ": /: not a regular file (a FIFO)"}},
		{"a socket given by name", []string{"validate", sock}, []string{sock + ": /: not a regular file (a socket)"}},
		{"a symlink given by name", []string{"validate", link}, []string{link + ": /: not a regular file (a symlink)"}},
		{"the directory holding them", []string{"validate", dir}, []string{fifo + ": /: not a regular file", sock + ": /: not a regular file", link + ": /: not a regular file"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				code     int
				out, err string
			}
			done := make(chan result, 1)
			go func() {
				code, out, errOut := run(t, nil, tt.args...)
				done <- result{code, out, errOut}
			}()
			var got result
			select {
			case got = <-done:
			case <-time.After(10 * time.Second):
				// Unblock the hung open so the goroutine ends, then fail.
				if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
					w.Close()
				}
				<-done
				t.Fatalf("mcpctl %v did not return: it blocked opening a FIFO", tt.args)
			}
			if got.code != 1 {
				t.Errorf("exit %d, want 1 (stderr %q)", got.code, got.err)
			}
			for _, w := range tt.want {
				if !strings.Contains(got.out, w) {
					t.Errorf("output lacks %q:\n%s", w, got.out)
				}
			}
		})
	}
}

// NUL characters, invisible or incomplete emoji, and names and titles a list would not show as
// they are are refused by `mcpctl validate` at their field, as the processor and the MCP
// pre-check refuse them (issue 14 items 9 and 10; a user walkthrough).
func TestValidateRefusesNULAndInvisibleEmoji(t *testing.T) {
	tests := []struct {
		kind promptlib.OpKind
		data string
		want string // the problem's pointer and the start of its message
	}{
		{promptlib.OpCreatePrompt, `{"title":"a\u0000b","content":"c"}`, "/data/title: title contains a NUL"},
		{promptlib.OpUpdatePrompt, `{"id":"aaaaaaaa-0000-4000-8000-000000000001","content":"\u0000"}`, "/data/content: content contains a NUL"},
		{promptlib.OpCreateFolder, `{"name":"Work\u0000"}`, "/data/name: name contains a NUL"},
		{promptlib.OpCreateFolder, `{"name":"Work\u200b"}`, "/data/name: name contains an invisible character (zero width space)"},
		{promptlib.OpCreateFolder, `{"name":"Work / Notes"}`, `/data/name: name "Work / Notes" contains "/"`},
		{promptlib.OpUpdateFolder, `{"id":"aaaaaaaa-0000-4000-8000-000000000001","name":"Work "}`, `/data/name: name "Work " starts or ends with a space`},
		{promptlib.OpCreatePrompt, `{"title":"a\u202eb","content":"c"}`, "/data/title: title contains an invisible character (right-to-left override)"},
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","emoji":"\ufe0f"}`, "/data/emoji: emoji"},
		{promptlib.OpCreatePrompt, `{"title":"t","content":"c","emoji":"\ud83c\uddeb"}`, "/data/emoji: emoji"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			op, err := promptlib.NewOperation(tt.kind, json.RawMessage(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(op)
			path := filepath.Join(t.TempDir(), op.ID+".json")
			if err := os.WriteFile(path, b, 0o600); err != nil {
				t.Fatal(err)
			}
			code, out, _ := run(t, nil, "validate", path)
			if code != 1 || !strings.Contains(out, path+": "+tt.want) {
				t.Errorf("exit %d, output %q; want 1 and %q", code, out, path+": "+tt.want)
			}
		})
	}
}
