package promptlib

import (
	"strings"
	"testing"
)

// Names and titles show as one line in lists and command pickers: what cannot be seen there is
// refused, with the character and where it is; what does visible work (an emoji's joiner, a
// Persian word's non-joiner, a flag's tags) is kept (found by a user walkthrough).
func TestVisibleNamesAndTitles(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want string // in the error; "" = valid, as a name and as a title
	}{
		{"plain", "Personal", ""},
		{"composed letters", "Données & Analyse", ""},
		{"decomposed letters", "Donne\u0301es", ""},
		{"emoji with joiners", "👨‍💻 Dev", ""},
		{"emoji with a selector and a joiner", "❤️‍🔥 Favourites", ""},
		{"flag with tags", "🏴󠁧󠁢󠁳󠁣󠁴󠁿 Scotland", ""},
		{"keycap", "#️⃣ Numbers", ""},
		{"Persian non-joiner", "می\u200Cخواهم", ""},
		{"Devanagari joiner", "क्\u200Dष", ""},
		{"zero width space", "Personal\u200B", "U+200B, at character 9"},
		{"zero width space inside", "Per\u200Bsonal", "zero width space"},
		{"joiner at the end", "Personal\u200D", "zero width joiner) that joins nothing visible"},
		{"joiner in a Latin word", "Per\u200Dsonal", "U+200D, at character 4"},
		{"non-joiner in a Latin word", "Per\u200Csonal", "non-joiner) that separates nothing visible"},
		{"non-joiner before a space", "می\u200C خواهم", "U+200C"},
		{"word joiner", "Per\u2060sonal", "U+2060"},
		{"byte order mark", "\uFEFFPersonal", "U+FEFF, at character 1"},
		{"right-to-left override", "Invoice \u202Efdp.exe", "right-to-left override"},
		{"left-to-right isolate", "Notes \u2066x\u2069", "U+2066"},
		{"right-to-left mark", "Notes\u200F", "U+200F"},
		{"soft hyphen", "Per\u00ADsonal", "soft hyphen"},
		{"Hangul filler", "\u3164", "Hangul filler"},
		{"tab", "Per\tsonal", "a control character, a tab, U+0009"},
		{"line break", "Personal\nNotes", "a line break"},
		{"line separator", "Personal\u2028Notes", "a line separator, U+2028"},
		{"escape", "\x1b[31mRed", "U+001B"},
		{"C1 control", "Per\u0085sonal", "U+0085"},
		{"selector on nothing", "\uFE0FPersonal", "variation selector"},
		{"selector on a Latin letter", "A\uFE0F", "variation selector) that changes nothing visible"},
		{"selectors in a run", "☺\uFE0F\uFE0F", "U+FE0F, at character 3"},
		{"keycap", "1\uFE0F\u20E3 First", ""},
		{"tags outside a flag", "Personal\U000E0041\U000E0042", "tag"},
	} {
		for field, validate := range map[string]func(string) error{"name": ValidateName, "title": ValidateTitle} {
			err := validate(tc.in)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("%s %s %q: %v, want it valid", tc.name, field, tc.in, err)
			case tc.want != "" && (CodeOf(err) != CodeInvalidInput || !strings.Contains(err.Error(), tc.want) ||
				!strings.Contains(err.Error(), "remove it") || !strings.HasPrefix(err.(*Error).Message, field+" contains")):
				t.Errorf("%s %s %q: %v; want INVALID_INPUT saying %q and to remove it", tc.name, field, tc.in, err, tc.want)
			}
		}
	}
}

// A folder name is also refused a "/" (a path's separator, with or without spaces around it)
// and surrounding spaces; a title keeps both.
func TestFolderNameShape(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want string // in the name's error
	}{
		{"Engineering / Reviews", `contains "/", which separates the folders of a path`},
		{"CI/CD", "create it with parentId"},
		{"/", `contains "/"`},
		{"  Personal", "starts or ends with a space: remove it"},
		{"Personal ", "starts or ends with a space"},
		{"Personal\u00A0", "starts or ends with a space"},
		{"\u3000Personal", "starts or ends with a space"},
	} {
		if err := ValidateName(tc.in); CodeOf(err) != CodeInvalidInput || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ValidateName(%q) = %v; want INVALID_INPUT saying %q", tc.in, err, tc.want)
		}
		if err := ValidateTitle(tc.in); err != nil {
			t.Errorf("ValidateTitle(%q) = %v; want it valid", tc.in, err)
		}
	}
	for _, ok := range []string{"Q&A", "Personal Notes", "A\u00A0B", "Über"} {
		if err := ValidateName(ok); err != nil {
			t.Errorf("ValidateName(%q) = %v; want it valid", ok, err)
		}
	}
}

// Sibling names are the same when they look the same: case, Unicode composition, the joiners
// the rules let through and spaces do not tell them apart; letters do.
func TestSameName(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"Personal", "PERSONAL", true},
		{"Données", "Donne\u0301es", true},
		{"DONNÉES", "donne\u0301es", true},
		{"Personal", "Personal ", true}, // a name the app stored with a space
		{"Personal", "  Personal", true},
		{"Personal Notes", "Personal  Notes", true},
		{"Personal Notes", "Personal\u00A0Notes", true},
		// As another program may have stored them: what the rules refuse does not count.
		{"Personal", "Per\u200Dsonal", true},
		{"Personal", "Personal\u200B", true},
		{"Personal", "\u202APersonal\u202C", true},
		{"Personal", "Personal\uFE0F", true},
		// Joiners and selectors that show: 👨‍💻 is one emoji, 👨💻 two; ❤️ is red, ❤ black.
		{"\U0001F468\u200D\U0001F4BB", "\U0001F468\U0001F4BB", false},
		{"\u2764\uFE0F Love", "\u2764 Love", false},
		{"می\u200Cخواهم", "میخواهم", false},
		{"Personal", "Personnel", false},
		{"Personal", "Personal 2", false},
		{"Straße", "Strasse", false},
		{"\U0001F3F4\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "\U0001F3F4", false}, // the flag of Scotland, a black flag
	} {
		if got := sameName(tc.a, tc.b); got != tc.same {
			t.Errorf("sameName(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
	}
}
