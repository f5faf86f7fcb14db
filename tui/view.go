package tui

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

// styles are the console's looks. Without color (NO_COLOR, or a terminal without it) the
// renderer drops them all, so nothing may depend on them: the selected row also carries a
// marker, and a prompt's color also a letter.
type styles struct {
	color                     bool
	tab, tabActive, title     lipgloss.Style
	dim, sel, bad, good, warn lipgloss.Style
	italic                    lipgloss.Style
	placeholder               lipgloss.Style
}

func newStyles(color bool) styles {
	s := styles{color: color,
		tab:         lipgloss.NewStyle().Foreground(lipgloss.Color("245")),
		tabActive:   lipgloss.NewStyle().Bold(true).Reverse(true),
		title:       lipgloss.NewStyle().Bold(true),
		italic:      lipgloss.NewStyle().Italic(true),
		dim:         lipgloss.NewStyle().Foreground(lipgloss.Color("243")),
		sel:         lipgloss.NewStyle().Reverse(true),
		bad:         lipgloss.NewStyle().Foreground(lipgloss.Color("#EF4444")),
		good:        lipgloss.NewStyle().Foreground(lipgloss.Color("#22C55E")),
		warn:        lipgloss.NewStyle().Foreground(lipgloss.Color("#EAB308")),
		placeholder: lipgloss.NewStyle().Foreground(lipgloss.Color("#000000")).Background(lipgloss.Color("#EAB308")),
	}
	return s
}

// colorMark is a prompt's color: a colored dot, or the color's initial without color.
func (s styles) colorMark(name *string) string {
	if name == nil {
		return " "
	}
	if !s.color {
		for _, r := range *name { // the first character: a name is the library's text
			return string(r)
		}
		return " "
	}
	hex := map[string]string{"red": "#EF4444", "orange": "#F97316", "yellow": "#EAB308", "green": "#22C55E", "blue": "#3B82F6", "purple": "#A855F7"}[*name]
	return lipgloss.NewStyle().Foreground(lipgloss.Color(hex)).Render("●")
}

// fit makes s exactly w columns wide and h lines high: longer lines are cut (escape sequences
// kept intact), missing lines are blank. Every screen's view goes through it, so no view can
// push the header off a small terminal.
func fit(s string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		lines[i] = padRight(l, w)
	}
	return strings.Join(lines, "\n")
}

// padRight cuts or pads one line to w columns.
func padRight(l string, w int) string {
	if ansi.StringWidth(l) > w {
		l = ansi.Truncate(l, w, "…")
	}
	if n := w - ansi.StringWidth(l); n > 0 {
		l += strings.Repeat(" ", n)
	}
	return l
}

// cell is s cut to w columns and padded, for a table column.
func cell(s string, w int) string {
	if w <= 0 {
		return ""
	}
	s = strings.ReplaceAll(s, "\n", " ")
	return padRight(s, w)
}

// shareWidths divides avail columns among columns that need need[i] each: every column that
// fits in an equal share gets all it needs, and the others split what is left equally (the
// widest are cut, the narrow ones never). Whatever is left over goes to the last column.
func shareWidths(need []int, avail int) []int {
	if len(need) == 0 {
		return nil
	}
	got := make([]int, len(need))
	avail = max(0, avail)
	left := map[int]bool{}
	for i := range need {
		left[i] = true
	}
	for len(left) > 0 {
		share := avail / len(left)
		fitted := false
		for i := range left {
			if need[i] <= share {
				got[i], avail, fitted = need[i], avail-need[i], true
				delete(left, i)
			}
		}
		if fitted {
			continue
		}
		// None fits its share: the rest are cut to it, the remainder to the first of them.
		extra := avail - share*len(left)
		for i := range need {
			if left[i] {
				got[i], extra = share+extra, 0
			}
		}
		return got
	}
	got[len(got)-1] += avail
	return got
}

// sideBySide joins two blocks of lines with a separator column.
func sideBySide(left string, lw int, right string, rw, h int) string {
	l := strings.Split(fit(left, lw, h), "\n")
	r := strings.Split(fit(right, rw, h), "\n")
	var b strings.Builder
	for i := range h {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(l[i])
		b.WriteString("│")
		b.WriteString(r[i])
	}
	return b.String()
}

// wrap breaks text into lines of at most w columns, at spaces where it can.
func wrap(text string, w int) string {
	if w <= 0 {
		return text
	}
	return ansi.Wrap(text, w, " ")
}

// wrappedLines is a text wrapped to a width and split into lines, kept until either changes: a
// screen that shows a long text draws it again on every key, and wrapping a file near the
// Pipeline screen's 8 MB limit takes a sixth of a second.
type wrappedLines struct {
	text  string
	width int
	lines []string
}

// of is text wrapped to w, as lines; comparing the kept text is cheap when it is the same string.
func (c *wrappedLines) of(text string, w int) []string {
	if c.lines == nil || c.width != w || c.text != text {
		c.text, c.width, c.lines = text, w, strings.Split(wrap(text, w), "\n")
	}
	return c.lines
}

// age is how long ago t was, in one unit: "12s", "5m", "3h", "2d".
func age(now, t time.Time) string {
	if t.IsZero() {
		return "-"
	}
	d := now.Sub(t)
	switch {
	case d < 0:
		return "future"
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}

// size is a byte count for people: "812B", "4.1k", "2.0M".
func size(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%dB", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	default:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
}

// bar is a budget bar of w cells filled to used/total.
func bar(used, total, w int) string {
	if total <= 0 || w <= 0 {
		return ""
	}
	n := min(w, used*w/total)
	return strings.Repeat("█", n) + strings.Repeat("░", w-n)
}

// sparkline draws values as one line of block characters scaled to the largest.
func sparkline(values []float64) string {
	const ticks = "▁▂▃▄▅▆▇█"
	runes := []rune(ticks)
	var hi float64
	for _, v := range values {
		hi = max(hi, v)
	}
	var b strings.Builder
	for _, v := range values {
		i := 0
		if hi > 0 {
			i = int(v / hi * float64(len(runes)-1))
		}
		b.WriteRune(runes[i])
	}
	return b.String()
}

// displayWidth is how many columns s takes on a terminal.
func displayWidth(s string) int { return ansi.StringWidth(s) }

// withHint is an error as the console shows it: what happened, then what to do, in the words
// the command line prints on its "hint:" line. An error that knows its fix carries it (UserHint:
// a project's missing folder, a library that cannot be opened), and the console adds none of
// its own words beside it.
func withHint(err error) string {
	if h := userHint(err); h != "" {
		return err.Error() + "\n\nhint: " + h
	}
	return err.Error()
}

// userHint is the fix an error carries, "" when it carries none.
func userHint(err error) string {
	var h interface{ UserHint() string }
	if errors.As(err, &h) {
		return h.UserHint()
	}
	return ""
}
