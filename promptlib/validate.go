package promptlib

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// Field limits, counted in characters (code points), as the app counts them.
const (
	MaxTitle   = 255
	MaxContent = 100000
	MaxName    = 255
	MaxURL     = 2048
)

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)

// ValidID reports whether s is a UUID, in either case: the app writes upper-case ids.
func ValidID(s string) bool { return uuidRE.MatchString(s) }

// ValidateID checks an id field.
func ValidateID(field, s string) error {
	if !ValidID(s) {
		return Errorf(CodeInvalidUUID, "%s %q is not a UUID", field, truncate(s, 60))
	}
	return nil
}

// ValidateTitle checks a prompt title: 1–255 characters, not blank, all of them visible
// (visible.go): clients show titles in their command pickers.
func ValidateTitle(s string) error {
	return firstError(validateText("title", s, MaxTitle), checkVisible("title", s))
}

// ValidateName checks a folder name: 1–255 characters, not blank, all of them visible, no
// space around it and no "/" (visible.go).
func ValidateName(s string) error {
	return firstError(validateText("name", s, MaxName), checkVisible("name", s), checkFolderName(s))
}

// ValidateContent checks a prompt body: 1–100000 characters, not blank.
func ValidateContent(s string) error {
	if n := utf8.RuneCountInString(s); n > MaxContent {
		return Errorf(CodePayloadTooLarge, "content has %d characters; the limit is %d", n, MaxContent)
	}
	return validateText("content", s, MaxContent)
}

func validateText(field, s string, max int) error {
	if !utf8.ValidString(s) {
		return Errorf(CodeInvalidInput, "%s is not valid UTF-8", field)
	}
	if strings.TrimSpace(s) == "" {
		return Errorf(CodeInvalidInput, "%s must not be empty or blank", field)
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		// SQLite's string functions and the app's C-string reads stop at a NUL: they would
		// see another value than mcpctl shows.
		return Errorf(CodeInvalidInput, "%s contains a NUL character (U+0000) at byte %d; remove it", field, i)
	}
	if n := utf8.RuneCountInString(s); n > max {
		return Errorf(CodeInvalidInput, "%s has %d characters; the limit is %d", field, n, max)
	}
	return nil
}

// ValidateColor checks a color name.
func ValidateColor(s string) error {
	if _, ok := ColorHex(s); !ok {
		return Errorf(CodeInvalidColor, "color %q is not one of %s", truncate(s, 40), strings.Join(ColorNames, ", "))
	}
	return nil
}

// ValidateURL checks a prompt's reference URL: absolute http(s) with a host, at most 2048 characters.
func ValidateURL(s string) error {
	if utf8.RuneCountInString(s) > MaxURL {
		return Errorf(CodeInvalidURL, "url is longer than %d characters", MaxURL)
	}
	u, err := url.Parse(s)
	if err != nil || !u.IsAbs() || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return Errorf(CodeInvalidURL, "url %q is not an absolute http or https URL", truncate(s, 80))
	}
	return nil
}

// ValidateEmoji checks that s is exactly one grapheme cluster and that the cluster is a visible
// emoji, so multi-code-point emoji (👨‍💻, 🇫🇷, 👍🏽, #️⃣) pass while letters, digits, symbols
// such as #, and invisible or incomplete clusters (a lone U+FE0F, a lone regional indicator)
// fail.
func ValidateEmoji(s string) error {
	if s == "" || uniseg.GraphemeClusterCount(s) != 1 || !isEmojiCluster(s) {
		return Errorf(CodeInvalidEmoji, "emoji %q is not exactly one emoji", truncate(s, 20))
	}
	return nil
}

// isRegional reports a regional indicator: two make a flag, one is not an emoji.
func isRegional(r rune) bool { return r >= 0x1F1E6 && r <= 0x1F1FF }

// isModifier reports a code point that only modifies the emoji before it and is never one on
// its own: variation selectors, the zero-width joiner, skin tones, the keycap mark and tags.
func isModifier(r rune) bool {
	switch {
	case r >= 0xFE00 && r <= 0xFE0F, r == 0x200D, r == 0x20E3:
		return true
	case r >= 0x1F3FB && r <= 0x1F3FF, r >= 0xE0020 && r <= 0xE007F:
		return true
	}
	return false
}

// isEmojiCluster decides from the cluster's code points. A flag is exactly two regional
// indicators. Otherwise the cluster needs a visible base (a code point that is not a modifier)
// that is pictographic, or a keycap base (0–9, #, *) with U+20E3, or a symbol made an emoji by
// the presentation selector U+FE0F (☺️, ©️).
func isEmojiCluster(s string) bool {
	var base []rune
	regional, keycap, presentation := 0, false, false
	for _, r := range s {
		switch {
		case isRegional(r):
			regional++
		case r == 0x20E3:
			keycap = true
		case r == 0xFE0F:
			presentation = true
		case isModifier(r):
		default:
			base = append(base, r)
		}
	}
	if regional > 0 {
		return regional == 2 && len(base) == 0 && !keycap
	}
	if len(base) == 0 {
		return false
	}
	if keycap {
		b := base[0]
		return len(base) == 1 && (b >= '0' && b <= '9' || b == '#' || b == '*')
	}
	for _, r := range base {
		switch {
		case r >= 0x1F000 && r <= 0x1FAFF: // pictographs, emoticons, transport, symbols
			return true
		case r >= 0x2600 && r <= 0x27BF: // miscellaneous symbols and dingbats
			return true
		case r >= 0x2300 && r <= 0x23FF, r >= 0x2B00 && r <= 0x2BFF:
			if unicode.IsSymbol(r) {
				return true
			}
		}
	}
	return presentation && unicode.IsSymbol(base[0])
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// Count is n with the noun in the number it takes: "1 prompt", "3 prompts", "0 subfolders".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
