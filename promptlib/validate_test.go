package promptlib

import (
	"strings"
	"testing"
)

func TestValidateEmoji(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"📝", true}, {"👨‍💻", true}, {"🇫🇷", true}, {"👍🏽", true}, {"⚙️", true}, {"#️⃣", true}, {"☕", true},
		{"a", false}, {"1", false}, {"#", false}, {"ab", false}, {"", false}, {"📝📝", false}, {"é", false},
		{"👍🏽x", false}, {" ", false},
		// Invisible or incomplete clusters (issue 14 item 10).
		{"\uFE0F", false}, {"\U0001F1EB", false}, {"\u200D", false}, {"\U0001F3FD", false}, {"\u20E3", false},
		{"\uFE0F\u20E3", false}, {"a\uFE0F", false}, {"\U0001F1EB\uFE0F", false}, {"\U000E0067", false},
		{"🏴󠁧󠁢󠁳󠁣󠁴󠁿", true}, {"©️", true}, {"☺️", true}, {"*️⃣", true}, {"🏳️‍🌈", true}, {"❤️‍🔥", true},
	} {
		err := ValidateEmoji(tc.in)
		if got := err == nil; got != tc.want {
			t.Errorf("ValidateEmoji(%q) = %v, want valid=%v", tc.in, err, tc.want)
		}
		if err != nil && CodeOf(err) != CodeInvalidEmoji {
			t.Errorf("ValidateEmoji(%q) code = %s, want %s", tc.in, CodeOf(err), CodeInvalidEmoji)
		}
	}
}

func TestValidateText(t *testing.T) {
	for _, tc := range []struct {
		name string
		fn   func(string) error
		in   string
		want Code // "" = valid
	}{
		{"title ok", ValidateTitle, "Security Review", ""},
		{"title non-ascii 255", ValidateTitle, strings.Repeat("é", 255), ""},
		{"title 256", ValidateTitle, strings.Repeat("a", 256), CodeInvalidInput},
		{"title blank", ValidateTitle, " \t\n", CodeInvalidInput},
		{"title empty", ValidateTitle, "", CodeInvalidInput},
		{"title bad utf8", ValidateTitle, "a\xffb", CodeInvalidInput},
		{"content 100000", ValidateContent, strings.Repeat("x", 100000), ""},
		{"content 100001", ValidateContent, strings.Repeat("x", 100001), CodePayloadTooLarge},
		{"content blank", ValidateContent, "   ", CodeInvalidInput},
		{"name ok", ValidateName, "Données", ""},
		// NUL characters (issue 14 item 9): SQLite and the app's C strings stop there.
		{"title with NUL", ValidateTitle, "Safe\x00hidden", CodeInvalidInput},
		{"content with NUL", ValidateContent, "body\x00", CodeInvalidInput},
		{"name with NUL", ValidateName, "\x00Folder", CodeInvalidInput},
		{"color ok", ValidateColor, "purple", ""},
		{"color hex", ValidateColor, "#A855F7", CodeInvalidColor},
		{"color case", ValidateColor, "Purple", CodeInvalidColor},
		{"url https", ValidateURL, "https://example.com/x?y=1", ""},
		{"url http", ValidateURL, "http://localhost:8080/", ""},
		{"url relative", ValidateURL, "/docs", CodeInvalidURL},
		{"url ftp", ValidateURL, "ftp://example.com", CodeInvalidURL},
		{"url javascript", ValidateURL, "javascript:alert(1)", CodeInvalidURL},
		{"url no host", ValidateURL, "https://", CodeInvalidURL},
		{"url too long", ValidateURL, "https://e.com/" + strings.Repeat("a", 2040), CodeInvalidURL},
	} {
		err := tc.fn(tc.in)
		var got Code
		if err != nil {
			got = CodeOf(err)
		}
		if got != tc.want {
			t.Errorf("%s: got %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}
}

func TestValidID(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"3f2a1b4c-0d5e-4f6a-8b7c-9d0e1f2a3b4c", true},
		{"3F2A1B4C-0D5E-4F6A-8B7C-9D0E1F2A3B4C", true},
		{"3f2a1b4c0d5e4f6a8b7c9d0e1f2a3b4c", false},
		{"3f2a1b4c-0d5e-4f6a-8b7c-9d0e1f2a3b4", false},
		{"../../etc/passwd", false},
		{"", false},
	} {
		if got := ValidID(tc.in); got != tc.want {
			t.Errorf("ValidID(%q) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestColors(t *testing.T) {
	for _, name := range ColorNames {
		hex, ok := ColorHex(name)
		if !ok {
			t.Fatalf("ColorHex(%q) unknown", name)
		}
		if got := ColorName(strings.ToLower(hex)); got == nil || *got != name {
			t.Errorf("ColorName(%q) = %v, want %q", hex, got, name)
		}
	}
	if got := ColorName("#123456"); got != nil {
		t.Errorf("ColorName of an unknown hex = %q, want nil", *got)
	}
	if got := StoredColor(Ptr("green")); got == nil || *got != "#22C55E" {
		t.Errorf("StoredColor(green) = %v, want #22C55E", got)
	}
}

func TestEveryCodeHasAHint(t *testing.T) {
	for code := range hints {
		if code.Hint() == "" {
			t.Errorf("%s has no hint", code)
		}
	}
	if got := Errorf(CodeFolderNotFound, "no folder %s", "x").Hint(); !strings.Contains(got, "list_folders") {
		t.Errorf("FOLDER_NOT_FOUND hint %q does not point to list_folders", got)
	}
}

// TestNULMessageNamesTheField: the refusal says which field holds the NUL.
func TestNULMessageNamesTheField(t *testing.T) {
	for field, fn := range map[string]func(string) error{"title": ValidateTitle, "content": ValidateContent, "name": ValidateName} {
		err := fn("ok\x00")
		if err == nil || !strings.HasPrefix(err.(*Error).Message, field+" contains a NUL") {
			t.Errorf("%s with a NUL: got %v, want a message naming %s and the NUL", field, err, field)
		}
	}
}

// FuzzValidateEmoji: whatever is accepted is one grapheme cluster holding something visible (not
// only modifiers), and a flag is exactly two regional indicators.
func FuzzValidateEmoji(f *testing.F) {
	for _, s := range []string{"📝", "👨‍💻", "🇫🇷", "👍🏽", "#️⃣", "\uFE0F", "\U0001F1EB", "a\uFE0F", "🏴󠁧󠁢󠁳󠁣󠁴󠁿", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if ValidateEmoji(s) != nil {
			return
		}
		visible, regional := false, 0
		for _, r := range s {
			switch {
			case isRegional(r):
				regional++
			case !isModifier(r):
				visible = true
			}
		}
		if regional != 0 && regional != 2 || regional == 0 && !visible || strings.ContainsRune(s, 0) {
			t.Errorf("ValidateEmoji accepted %+q", s)
		}
	})
}
