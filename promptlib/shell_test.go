package promptlib

import "testing"

func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{
		"/src/shop-front_2.0": "/src/shop-front_2.0",
		"/a b":                "'/a b'",
		"/$HOME":              "'/$HOME'",
		"/Shop Front's":       `'/Shop Front'\''s'`,
		"":                    "''",
		"/Users/me/Library/Application Support/prompteka": "'/Users/me/Library/Application Support/prompteka'",
	} {
		if got := ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestQuoted(t *testing.T) {
	for cmd, want := range map[string]string{
		"mcpctl serve --library /a":     "'mcpctl serve --library /a'",
		"mcpctl serve --library '/a b'": "`mcpctl serve --library '/a b'`",
	} {
		if got := Quoted(cmd); got != want {
			t.Errorf("Quoted(%q) = %s, want %s", cmd, got, want)
		}
	}
}
