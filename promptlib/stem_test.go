package promptlib

import (
	"slices"
	"strings"
	"testing"
)

func TestStem(t *testing.T) {
	for _, pair := range [][2]string{
		{"permissions", "permission"}, {"alerting", "alert"}, {"migrate", "migration"},
		{"anonymisation", "anonymization"}, {"behaviour", "behavior"},
	} {
		if a, b := Stem(pair[0]), Stem(pair[1]); a != b {
			t.Errorf("Stem(%q) = %q, Stem(%q) = %q; want one stem", pair[0], a, pair[1], b)
		}
	}
	for _, w := range []string{"s3", "oauth2", "données", "Review"} {
		if got := Stem(w); got != w {
			t.Errorf("Stem(%q) = %q, want it kept", w, got)
		}
	}
}

func TestInflections(t *testing.T) {
	for w, want := range map[string][]string{
		"migrations": {"migration"},
		"migration":  {"migrations"},
		"queries":    {"query"},
		"policy":     {"policies"},
		"cookies":    {"cookie"},
		"indexes":    {"index"},
		"databases":  {"database"},
		"optimises":  {"optimizes", "optimise", "optimize"},
		"colors":     {"colours", "color", "colour"},
	} {
		got := Inflections(w)
		if got[0] != w {
			t.Errorf("Inflections(%q) = %q, want %q first", w, got, w)
		}
		for _, f := range want {
			if !slices.Contains(got, f) {
				t.Errorf("Inflections(%q) = %q, want %q among them", w, got, f)
			}
		}
		for _, f := range got {
			if Stem(f) != Stem(w) {
				t.Errorf("Inflections(%q) gives %q, of another stem (%q, not %q)", w, f, Stem(f), Stem(w))
			}
		}
	}
	// Other words: look-alikes, short bases, verb forms and the stemmer's derivations.
	for w, not := range map[string]string{
		"news": "new", "ios": "io", "its": "it", "ops": "op", "setting": "set", "heading": "head",
		"customer": "custom", "engineer": "engine", "status": "statu", "organisation": "organ",
	} {
		if got := Inflections(w); slices.Contains(got, not) {
			t.Errorf("Inflections(%q) = %q, want no %q", w, got, not)
		}
	}
	for _, w := range []string{"s3", strings.Repeat("ab", maxInflected)} {
		if got := Inflections(w); !slices.Equal(got, []string{w}) {
			t.Errorf("Inflections(%q) = %q, want only itself", w, got)
		}
	}
}
