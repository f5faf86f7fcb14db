package pipeline

import (
	"context"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Several files in one text, each under its path and a "---" line between them, are what
// server-filesystem's read_multiple_files answers:
//
//	/repo/README.md:
//	# Title
//	…
//
//	---
//	/repo/main.go:
//	package main
//	…
//
// Split by its content alone, such a text had sections that ran from one file into the next
// and titles that never named a file. It is recognised by its shape only: its first line is a
// path and a colon, and so is every line after a "---" line that starts a file; a markdown
// rule is followed by anything but a path, and a markdown text does not start with one.

// fileSep is the line between two files, with the newline before it.
const fileSep = "\n---\n"

// fileErr is how a file that could not be read stands in the list: "/a/b.txt: Error - ENOENT…".
const fileErr = ": Error - "

// maxPathLine bounds a line read as a file's path.
const maxPathLine = 4096

// pathExt is a file name's extension, which a path without a slash ("README.md") has.
var pathExt = regexp.MustCompile(`\.[A-Za-z0-9_]{1,10}$`)

// filePart is one file of such a text: where its path line starts, and the path.
type filePart struct {
	start int
	path  string
}

// fileParts lists the files of a text that is several files (see above), or nil.
func fileParts(t string) []filePart {
	first, ok := pathLine(t, 0)
	if !ok {
		return nil
	}
	parts := []filePart{{0, first}}
	for i := 0; ; {
		j := strings.Index(t[i:], fileSep)
		if j < 0 {
			break
		}
		at := i + j + len(fileSep)
		if p, ok := pathLine(t, at); ok {
			parts = append(parts, filePart{at, p})
		}
		i = at - 1 // "\n---\n---\n": the second separator starts at the first one's newline
	}
	if len(parts) < 2 {
		return nil
	}
	return parts
}

// pathLine reads the line at t[at:] as a file's path line, "PATH:" or "PATH: Error - …", and
// returns the path. A path has a slash or an extension, no ": " (a "Note: see /docs:" line is
// prose), and does not start as markdown or YAML does.
func pathLine(t string, at int) (string, bool) {
	line := t[at:min(len(t), at+maxPathLine)]
	eol := strings.IndexByte(line, '\n')
	if eol < 0 {
		if len(t)-at > maxPathLine {
			return "", false
		}
		eol = len(line)
	}
	line = strings.TrimSuffix(line[:eol], "\r")
	var p string
	switch {
	case strings.HasSuffix(line, ":"):
		p = line[:len(line)-1]
	case strings.Contains(line, fileErr):
		p = line[:strings.Index(line, fileErr)]
	default:
		return "", false
	}
	if p == "" || p != strings.TrimSpace(p) || strings.Contains(p, ": ") || strings.ContainsAny(p, "\t") ||
		strings.ContainsAny(p[:1], "#>*`|-[{\"'") {
		return "", false
	}
	if !strings.ContainsAny(p, `/\`) && !pathExt.MatchString(p) {
		return "", false
	}
	if strings.Contains(p, " ") && !strings.ContainsAny(p[:1], `/~.\`) && !(len(p) > 2 && p[1] == ':') {
		// A path may hold spaces ("/Users/me/My Docs/a.md"), but a line of words ending in a
		// colon ("See docs/setup.md:") is no path: server-filesystem gives absolute ones.
		return "", false
	}
	return p, true
}

// splitFiles makes one section per file, titled by its path, each split further as its
// content is on its own: its format is its own, and a JSON file's closing bracket is not
// followed by the next file.
func (sp splitter) splitFiles(ctx context.Context, t string, parts []filePart) []Section {
	files := make([]Section, 0, len(parts))
	for i, p := range parts {
		end := len(t)
		if i+1 < len(parts) {
			end = parts[i+1].start - len(fileSep) + 1 // the separator's "---" line is not content
		}
		body := min(end, p.start+strings.IndexByte(t[p.start:], '\n')+1)
		if body <= p.start { // the last file's path line with nothing after it
			body = end
		}
		f := Section{Start: p.start, Title: pathTitle(p.path), Kind: KindFile}
		if end-body > sp.maxBytes { // a small file is read whole: its keys are no index
			_, sub := sp.split(ctx, t[body:end])
			f.Children = shiftSections(sub, body)
		}
		files = append(files, f)
		if ctx.Err() != nil {
			return nil
		}
	}
	if len(files) > sp.maxSections {
		// Ranges are named by their first and last file, without the directory all share, and
		// by a long name's end: clipped at 36 characters, every absolute path under one project
		// read the same ("/Users/alice/work/myproject/src/c… … /Users/alice/work/myproject/src/c…").
		dir := commonDir(parts)
		files = groupTitledBy(files, sp.maxSections, func(i int) string {
			name := strings.TrimPrefix(parts[i].path, dir)
			if n := utf8.RuneCountInString(name); n > 36 {
				name = "…" + string([]rune(name)[n-35:])
			}
			return name
		})
	}
	return files
}

// commonDir is the directory, with its final slash, that every part's path starts with; "" when
// there is none.
func commonDir(parts []filePart) string {
	dir := parts[0].path[:strings.LastIndexByte(parts[0].path, '/')+1]
	for _, p := range parts[1:] {
		for !strings.HasPrefix(p.path, dir) {
			dir = dir[:strings.LastIndexByte(dir[:len(dir)-1], '/')+1]
		}
	}
	return dir
}

// pathTitle is a path as a section's title: its end, where the file's name is, when it is long.
func pathTitle(p string) string {
	if len(p) <= 80 {
		return p
	}
	return "…" + p[runeStart(p, len(p)-77):]
}

// shiftSections moves sections made of t[by:] to their place in t.
func shiftSections(ss []Section, by int) []Section {
	for i := range ss {
		ss[i].Start += by
		ss[i].End += by
		if ss[i].ValueStart > 0 {
			ss[i].ValueStart += by
		}
		shiftSections(ss[i].Children, by)
	}
	return ss
}
