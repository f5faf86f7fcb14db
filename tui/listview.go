package tui

import "strings"

// listView is a cursor over n rows shown height at a time. Screens keep their rows themselves;
// listView only knows positions, so moving costs the same for ten rows or ten thousand.
type listView struct {
	n, cursor, offset, height int
}

// setLen changes the row count, keeping the cursor in range.
func (l *listView) setLen(n int) {
	l.n = n
	l.cursor = max(0, min(l.cursor, n-1))
	l.scroll()
}

func (l *listView) setHeight(h int) { l.height = max(1, h); l.scroll() }

func (l *listView) top() { l.cursor = 0; l.scroll() }

// scroll keeps the cursor inside the window.
func (l *listView) scroll() {
	if l.cursor < l.offset {
		l.offset = l.cursor
	}
	if l.cursor >= l.offset+l.height {
		l.offset = l.cursor - l.height + 1
	}
	l.offset = max(0, min(l.offset, l.n-l.height))
}

// render draws the visible rows: row(i) gives a row's text. The cursor's row is marked "▸" in
// the list that has the keys (and shown reversed in color), "·" in one that has not: without
// color (NO_COLOR) the marker is all that tells which list j and k move.
func (l *listView) render(st styles, w int, focused bool, row func(i int) string) string {
	var b strings.Builder
	end := min(l.n, l.offset+l.height)
	for i := l.offset; i < end; i++ {
		if i > l.offset {
			b.WriteByte('\n')
		}
		mark := "  "
		switch {
		case i == l.cursor && focused:
			mark = "▸ "
		case i == l.cursor:
			mark = "· "
		}
		line := cell(mark+row(i), w)
		if i == l.cursor && focused {
			line = st.sel.Render(line)
		}
		b.WriteString(line)
	}
	return b.String()
}
