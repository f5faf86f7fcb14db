package tui

import (
	"strings"
	"testing"
)

func TestRenderMarkdown(t *testing.T) {
	src := "# Review\n\nCheck **this** code, *carefully*, see [the guide](https://example.com/g) and `go vet`.\n\n" +
		"- first point\n- second point that is long enough to wrap onto a second line here\n  - nested\n\n" +
		"3. three\n4. four\n\n```go\nfunc main() {}\n```\n\n> quoted\n\n---\n\nLine one  \nline two {{name}}\n"
	got := renderMarkdown(src, 40, newStyles(false))
	want := strings.Join([]string{
		"  # Review",
		"",
		"  Check this code, carefully, see the",
		"  guide (https://example.com/g) and",
		"  `go vet`.",
		"",
		"  • first point",
		"  • second point that is long enough",
		"    to wrap onto a second line here",
		"    • nested",
		"",
		"  3. three",
		"  4. four",
		"",
		"    func main() {}",
		"",
		"  │ quoted",
		"",
		"  ───────────────────────────────────",
		"",
		"  Line one",
		"  line two {{name}}",
	}, "\n")
	if got != want {
		t.Errorf("rendered:\n%s\n\nwant:\n%s", got, want)
	}
	// Nothing is lost from a prompt a preview cannot parse as anything but text.
	if got := renderMarkdown("{{a}} <b>x</b> & y", 40, newStyles(false)); got != "  {{a}} <b>x</b> & y" {
		t.Errorf("plain text rendered as %q", got)
	}
}
