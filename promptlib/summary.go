package promptlib

import (
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/rivo/uniseg"
)

// MaxSummary is the longest summary, in characters.
const MaxSummary = 160

var (
	mdLink   = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	mdMarks  = regexp.MustCompile("[*_`~]+")
	mdPrefix = regexp.MustCompile(`^\s*(#{1,6}\s+|>\s*|[-*+]\s+|\d+[.)]\s+)`)
)

// Summary is a one-line description of a prompt body: its first sentence with markdown removed,
// at most 160 characters (cut at a word, with an ellipsis). Headings are skipped: they name a
// section rather than say what the prompt does, unless nothing else is there.
func Summary(body string) string {
	var lines []string
	var heading string
	for _, line := range strings.Split(body, "\n") {
		t := strings.TrimSpace(line)
		if t == "" || strings.HasPrefix(t, "```") || strings.HasPrefix(t, "---") {
			if len(lines) > 0 {
				break
			}
			continue
		}
		if strings.HasPrefix(t, "#") {
			if heading == "" {
				heading = plain(t)
			}
			if len(lines) > 0 {
				break
			}
			continue
		}
		lines = append(lines, plain(t))
	}
	text := strings.Join(lines, " ")
	if text == "" {
		text = heading
	}
	sentence, _, _ := uniseg.FirstSentenceInString(text, -1)
	return clip(strings.TrimSpace(sentence), MaxSummary)
}

func plain(line string) string {
	line = mdPrefix.ReplaceAllString(line, "")
	line = mdLink.ReplaceAllString(line, "$1")
	line = mdMarks.ReplaceAllString(line, "")
	return strings.Join(strings.Fields(line), " ")
}

// clip cuts s to at most n characters at a word boundary, marking the cut with "…".
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)[:n-1]
	cut := string(r)
	if i := strings.LastIndexByte(cut, ' '); i > n/2 {
		cut = cut[:i]
	}
	return strings.TrimRight(cut, " ,;:") + "…"
}
