package tui

import (
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// renderMarkdown renders a prompt's markdown for the preview pane, w columns wide: a margin of
// two, headings as their #-marks and text in bold, paragraphs and list items wrapped, code as
// written and dim, quotes behind a bar. It is ours rather than glamour's: a package's init runs
// in every process of a binary, and glamour's (chroma's lexers and styles, an HTML sanitizer,
// emoji tables) cost each mcpctl process — the MCP server included — 12 MB of resident memory
// for this one pane. goldmark, which glamour parses with, costs under one.
func renderMarkdown(src string, w int, st styles) string {
	source := []byte(src)
	doc := goldmark.DefaultParser().Parse(text.NewReader(source))
	r := mdRenderer{src: source, st: st}
	r.blocks(doc, "  ", max(w-3, 10), false) // glamour's measure: a margin of two on the left, one on the right
	return strings.TrimRight(r.out.String(), "\n ")
}

type mdRenderer struct {
	src []byte
	st  styles
	out strings.Builder
}

// blocks renders the block children of n, each line behind indent, in width columns (indent
// included), a blank line between blocks unless tight (the items of a tight list).
func (r *mdRenderer) blocks(n ast.Node, indent string, width int, tight bool) {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		if c != n.FirstChild() && !tight {
			r.out.WriteString(strings.TrimRight(indent, " ") + "\n")
		}
		r.block(c, indent, width)
	}
}

func (r *mdRenderer) block(n ast.Node, indent string, width int) {
	switch n := n.(type) {
	case *ast.Heading:
		r.lines(indent, width, r.st.title.Render(strings.Repeat("#", n.Level)+" "+r.inline(n)))
	case *ast.Paragraph, *ast.TextBlock:
		r.lines(indent, width, r.inline(n))
	case *ast.List:
		number := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			mark := "• "
			if n.IsOrdered() {
				mark = strconv.Itoa(number) + ". "
				number++
			}
			// The first line carries the mark; the item's other lines align under its text.
			var sub mdRenderer
			sub.src, sub.st = r.src, r.st
			sub.blocks(item, "", width-ansi.StringWidth(indent+mark), n.IsTight)
			for i, line := range strings.Split(strings.TrimRight(sub.out.String(), "\n"), "\n") {
				lead := indent + strings.Repeat(" ", ansi.StringWidth(mark))
				if i == 0 {
					lead = indent + mark
				}
				r.out.WriteString(strings.TrimRight(lead+line, " ") + "\n")
			}
		}
	case *ast.FencedCodeBlock, *ast.CodeBlock:
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			// A tab is zero columns to the width rules but up to eight on a terminal.
			line := expandTabs(strings.TrimRight(string(seg.Value(r.src)), "\n"))
			r.out.WriteString(indent + "  " + r.st.dim.Render(line) + "\n")
		}
	case *ast.Blockquote:
		r.blocks(n, indent+"│ ", width, false)
	case *ast.ThematicBreak:
		r.out.WriteString(indent + r.st.dim.Render(strings.Repeat("─", max(width-len(indent), 3))) + "\n")
	case *ast.HTMLBlock:
		lines := n.Lines()
		for i := range lines.Len() {
			seg := lines.At(i)
			r.out.WriteString(indent + expandTabs(strings.TrimRight(string(seg.Value(r.src)), "\n")) + "\n")
		}
	default:
		r.blocks(n, indent, width, false)
	}
}

// lines writes text wrapped to width, each line behind indent.
func (r *mdRenderer) lines(indent string, width int, s string) {
	for _, line := range strings.Split(ansi.Wrap(s, max(width-ansi.StringWidth(indent), 10), " "), "\n") {
		r.out.WriteString(indent + strings.TrimRight(line, " ") + "\n")
	}
}

// inline renders n's inline children as one styled string; a hard line break stays a break.
func (r *mdRenderer) inline(n ast.Node) string {
	var b strings.Builder
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			// Text is wrapped after, so a tab's column is not known here: it becomes a space.
			b.WriteString(strings.ReplaceAll(string(c.Segment.Value(r.src)), "\t", " "))
			switch {
			case c.HardLineBreak():
				b.WriteString("\n")
			case c.SoftLineBreak():
				b.WriteString(" ")
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			b.WriteString(r.st.dim.Render("`" + r.inline(c) + "`"))
		case *ast.Emphasis:
			if c.Level >= 2 {
				b.WriteString(r.st.title.Render(r.inline(c)))
			} else {
				b.WriteString(r.st.italic.Render(r.inline(c)))
			}
		case *ast.Link:
			b.WriteString(r.inline(c))
			if dest := string(c.Destination); dest != "" {
				b.WriteString(" " + r.st.dim.Render("("+dest+")"))
			}
		case *ast.AutoLink:
			b.Write(c.URL(r.src))
		case *ast.Image:
			b.WriteString("[image: " + r.inline(c) + "]")
		case *ast.RawHTML:
			for i := range c.Segments.Len() {
				seg := c.Segments.At(i)
				b.Write(seg.Value(r.src))
			}
		default:
			b.WriteString(r.inline(c))
		}
	}
	return b.String()
}
