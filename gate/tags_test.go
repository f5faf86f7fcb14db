package gate

import (
	"reflect"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestNormalizeTags(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want []string
	}{
		{"nil", nil, []string{}},
		{"lower and trimmed", []string{"  SQL ", "Error Handling"}, []string{"sql", "error handling"}},
		{"punctuation dropped", []string{"c++", "node.js", "what?!", "a/b"}, []string{"c", "nodejs", "what", "ab"}},
		{"kept characters", []string{"rate-limit", "snake_case", "v2"}, []string{"rate-limit", "snake_case", "v2"}},
		{"spaces collapsed", []string{"error \t\n  handling"}, []string{"error handling"}},
		{"empty dropped", []string{"", "   ", "!!!", "ok"}, []string{"ok"}},
		{"duplicates dropped, first kept", []string{"Go", "go", " GO ", "sql", "Go!"}, []string{"go", "sql"}},
		{"cut to 40", []string{strings.Repeat("ab", 30)}, []string{strings.Repeat("ab", 20)}},
		{"cut does not leave a trailing space", []string{strings.Repeat("x", 39) + " yz"}, []string{strings.Repeat("x", 39)}},
		{"non-ascii letters kept", []string{"Données", "日本語"}, []string{"données", "日本語"}},
		{"marks kept after a letter only", []string{"परीक्षण", "\u0301abc", "\u0301", "x \u0301y"}, []string{"परीक्षण", "abc", "x y"}},
		{"at most 10", strings.Split("a b c d e f g h i j k l", " "), strings.Split("a b c d e f g h i j", " ")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := NormalizeTags(tt.in); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("NormalizeTags(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// checkTags asserts what every normalised tag list guarantees.
func checkTags(t *testing.T, tags []string) {
	t.Helper()
	if len(tags) > MaxTags {
		t.Errorf("%d tags, want at most %d", len(tags), MaxTags)
	}
	seen := map[string]bool{}
	for _, tag := range tags {
		if n := utf8.RuneCountInString(tag); n < 1 || n > MaxTagLen {
			t.Errorf("tag %q has %d characters", tag, n)
		}
		if seen[tag] {
			t.Errorf("tag %q given twice", tag)
		}
		seen[tag] = true
		if tag != strings.TrimSpace(tag) || strings.Contains(tag, "  ") {
			t.Errorf("tag %q has stray spaces", tag)
		}
		for _, r := range tag {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_' || r == ' ') || r != unicode.ToLower(r) {
				t.Errorf("tag %q holds %q", tag, r)
			}
		}
	}
	if again := NormalizeTags(tags); len(tags) > 0 && !reflect.DeepEqual(again, tags) {
		t.Errorf("not idempotent: %q → %q", tags, again)
	}
}

func FuzzNormalizeTags(f *testing.F) {
	for _, s := range []string{"Go", "  Error Handling ", "c++,node.js", strings.Repeat("é", 50), "ǅ ß İ", "\xff\xfe"} {
		f.Add(s, "second")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		checkTags(t, NormalizeTags([]string{a, b, a + b, strings.ToUpper(a)}))
	})
}
