package traffic

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

func line(tb testing.TB, e Event) string {
	tb.Helper()
	b, err := json.Marshal(e)
	if err != nil {
		tb.Fatal(err)
	}
	return string(b) + "\n"
}

func TestReadFileTolerates(t *testing.T) {
	a, b := line(t, sample(1)), line(t, sample(2))
	for _, tc := range []struct {
		name, text string
		ids        []string
	}{
		{"whole lines", a + b, []string{"1", "2"}},
		{"torn last line", a + b[:len(b)/2], []string{"1"}},
		{"last line without newline", a + b[:len(b)-1], []string{"1", "2"}},
		{"garbage between", a + "not json\n{\"ts\":\"bad\"}\n\n" + b, []string{"1", "2"}},
		{"empty", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "x.jsonl")
			if err := os.WriteFile(p, []byte(tc.text), 0o600); err != nil {
				t.Fatal(err)
			}
			evs, err := ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, e := range evs {
				ids = append(ids, e.ID)
			}
			if len(ids) != len(tc.ids) || (len(ids) > 0 && ids[len(ids)-1] != tc.ids[len(tc.ids)-1]) {
				t.Errorf("read ids %v, want %v", ids, tc.ids)
			}
		})
	}
}

func TestReadFileMissing(t *testing.T) {
	if _, err := ReadFile(filepath.Join(t.TempDir(), "none.jsonl")); err == nil {
		t.Error("ReadFile of a missing file succeeded, want an error")
	}
}
