package promptlib

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// The visible-text rules of names and titles. A folder name and a prompt title are shown as one
// line in lists, trees and clients' command pickers, so two that look the same there must not
// be told apart by something nobody sees: a control character, a zero-width space, a bidi
// override, an invisible filler. Such characters are refused where they are written, and
// sibling folder names are compared without them (NameKey), as a library written by another
// program may hold them.
//
// Two joiners and the variation selectors are kept where they do visible work, as refusing them
// would refuse ordinary text: the zero-width joiner in an emoji sequence (👨‍💻 is 👨 U+200D 💻,
// not 👨💻) or an Indic word, the zero-width non-joiner in a Persian word, a selector after an
// emoji or a CJK ideograph. Beside inert characters (ASCII, Latin, Greek, Cyrillic), which
// neither join nor vary, they change nothing one can see, so "Per\u200Dsonal" is refused, as is
// a joiner at either end or beside a space. Tag characters are kept only in an emoji flag (the
// flag of Scotland is 🏴 and tags): a run of them, or of selectors, can carry hidden text.

// invisibleNames names the characters refused anywhere, for the error message.
var invisibleNames = map[rune]string{
	0x00AD:  "soft hyphen",
	0x034F:  "combining grapheme joiner",
	0x061C:  "Arabic letter mark",
	0x115F:  "Hangul choseong filler",
	0x1160:  "Hangul jungseong filler",
	0x17B4:  "Khmer vowel inherent aq",
	0x17B5:  "Khmer vowel inherent aa",
	0x180E:  "Mongolian vowel separator",
	0x200B:  "zero width space",
	0x200E:  "left-to-right mark",
	0x200F:  "right-to-left mark",
	0x202A:  "left-to-right embedding",
	0x202B:  "right-to-left embedding",
	0x202C:  "pop directional formatting",
	0x202D:  "left-to-right override",
	0x202E:  "right-to-left override",
	0x2060:  "word joiner",
	0x2061:  "function application",
	0x2062:  "invisible times",
	0x2063:  "invisible separator",
	0x2064:  "invisible plus",
	0x2066:  "left-to-right isolate",
	0x2067:  "right-to-left isolate",
	0x2068:  "first strong isolate",
	0x2069:  "pop directional isolate",
	0x206A:  "inhibit symmetric swapping",
	0x206B:  "activate symmetric swapping",
	0x206C:  "inhibit Arabic form shaping",
	0x206D:  "activate Arabic form shaping",
	0x206E:  "national digit shapes",
	0x206F:  "nominal digit shapes",
	0x3164:  "Hangul filler",
	0xFEFF:  "zero width no-break space (byte order mark)",
	0xFFA0:  "halfwidth Hangul filler",
	0xFFF9:  "interlinear annotation anchor",
	0xFFFA:  "interlinear annotation separator",
	0xFFFB:  "interlinear annotation terminator",
	0xE0001: "language tag",
}

const (
	zwnj = 0x200C // zero width non-joiner
	zwj  = 0x200D // zero width joiner
)

func isInvisible(r rune) bool {
	_, ok := invisibleNames[r]
	return ok || r >= 0x1D173 && r <= 0x1D17A // musical symbol format controls
}

func isVariationSelector(r rune) bool {
	return r >= 0xFE00 && r <= 0xFE0F || r >= 0xE0100 && r <= 0xE01EF
}

func isTag(r rune) bool { return r >= 0xE0020 && r <= 0xE007F }

// visible reports whether r shows on its own: a joiner, a selector or a tag may stand next to it.
func visible(r rune) bool {
	return r >= 0 && !unicode.IsSpace(r) && !unicode.IsControl(r) && !isInvisible(r) && r != zwj && r != zwnj &&
		!isVariationSelector(r) && !isTag(r)
}

// inert reports a character that neither joins its neighbours nor has variants: a joiner or a
// selector beside it shows nothing.
func inert(r rune) bool {
	return r > 0x20 && r < 0x7F || unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic)
}

// refused says what rs[i] is when the visible-text rules refuse it there; "" when they do not.
func refused(rs []rune, i int) string {
	r, prev, next := rs[i], rune(-1), rune(-1)
	if i > 0 {
		prev = rs[i-1]
	}
	if i+1 < len(rs) {
		next = rs[i+1]
	}
	switch {
	case unicode.IsControl(r), r == 0x2028, r == 0x2029: // the two separators break lines as \n does
		return "a control character" + controlName(r)
	case isInvisible(r):
		name := invisibleNames[r]
		if name == "" {
			name = "musical symbol format control"
		}
		return "an invisible character (" + name + ")"
	case r == zwj || r == zwnj:
		// ❤️‍🔥 joins after a selector: ❤ U+FE0F U+200D 🔥.
		if !(visible(prev) || isVariationSelector(prev)) || !visible(next) || inert(prev) && inert(next) {
			if r == zwj {
				return "an invisible character (zero width joiner) that joins nothing visible"
			}
			return "an invisible character (zero width non-joiner) that separates nothing visible"
		}
	case isVariationSelector(r):
		// A keycap is an ASCII digit, # or *, a selector and U+20E3: #️⃣.
		if !visible(prev) || inert(prev) && next != 0x20E3 {
			return "an invisible character (variation selector) that changes nothing visible"
		}
	case isTag(r):
		if prev != 0x1F3F4 && !isTag(prev) {
			return "an invisible character (tag) outside an emoji flag"
		}
	}
	return ""
}

// unseen finds the first character of s that the visible-text rules refuse, with its position
// in characters (1-based) and what it is; ok is false when there is none.
func unseen(s string) (r rune, pos int, what string, ok bool) {
	rs := []rune(s)
	for i := range rs {
		if what := refused(rs, i); what != "" {
			return rs[i], i + 1, what, true
		}
	}
	return 0, 0, "", false
}

func controlName(r rune) string {
	switch r {
	case '\t':
		return ", a tab"
	case '\n':
		return ", a line break"
	case '\r':
		return ", a carriage return"
	case 0x1B:
		return ", an escape"
	case 0x2028:
		return ", a line separator"
	case 0x2029:
		return ", a paragraph separator"
	}
	return ""
}

// checkVisible refuses a field holding a character its readers cannot see (unseen).
func checkVisible(field, s string) error {
	if r, pos, what, ok := unseen(s); ok {
		return Errorf(CodeInvalidInput, "%s contains %s, U+%04X, at character %d: remove it. A %s is one line of visible text, "+
			"and one that differs from another only by such a character looks the same in every list", field, what, r, pos, field)
	}
	return nil
}

// checkFolderName applies what a folder name needs beyond a title's rules: no surrounding
// space, no slash.
//
// Surrounding spaces are refused rather than trimmed: the write rules are checks that the MCP
// side, the queue processor and 'mcpctl validate' share, never rewrites, so the stored name is
// the one the model passed and was told about; and the Prompteka app, which applies the writes
// to its own library, would not trim it.
//
// Any "/" is refused, not only " / ": a project's folder: setting and list_folders' path join
// names with " / ", and a path is read with or without the spaces ("A/B" is "A / B"), so a folder
// named "CI/CD" would read as a folder CD inside CI, and "Engineering / Reviews" at the top level
// made the project path "Engineering / Reviews" match two folders.
func checkFolderName(s string) error {
	if first, _ := utf8.DecodeRuneInString(s); unicode.IsSpace(first) || lastIsSpace(s) {
		return Errorf(CodeInvalidInput, "name %q starts or ends with a space: remove it (a name that differs from another only "+
			"by surrounding spaces looks the same in every list)", truncate(s, 80))
	}
	if strings.Contains(s, "/") {
		return Errorf(CodeInvalidInput, "name %q contains \"/\", which separates the folders of a path (list_folders' path, a project's "+
			"folder setting), so the name would read as one folder inside another. To put a folder inside another, create it with "+
			"parentId; otherwise write the name without \"/\" (\"CI-CD\" or \"CI and CD\" for \"CI/CD\")", truncate(s, 80))
	}
	return nil
}

func lastIsSpace(s string) bool {
	last, _ := utf8.DecodeLastRuneInString(s)
	return unicode.IsSpace(last)
}

// NameKey is what a folder name is compared by, with its siblings' and with a project's folder:
// what it looks like. It is the
// name in Unicode NFC (so a letter composed and decomposed is one spelling), without what the
// visible-text rules refuse, with each run of spaces as one space and none around. Case is left
// to the comparison (sameName).
func NameKey(s string) string {
	if plainASCII(s) {
		return s // most names: nothing to normalise, nothing to allocate
	}
	rs := []rune(norm.NFC.String(s))
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i, r := range rs {
		switch {
		case unicode.IsSpace(r):
			space = b.Len() > 0
		case refused(rs, i) != "":
		default:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteRune(r)
		}
	}
	return b.String()
}

// plainASCII reports a name of printable ASCII with single spaces between words and none
// around: its own NameKey.
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x21 || c > 0x7E {
			if c != ' ' || i == 0 || i == len(s)-1 || s[i+1] == ' ' {
				return false
			}
		}
	}
	return true
}
