package pipeline

import (
	"context"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

const defaultPageBytes = 8000

// paginate is the paginate stage: it cuts its input into pages of at most pageBytes (default
// 8000), at a heading, paragraph, line or word boundary and never inside a UTF-8 sequence, and
// returns the first page with every page as a section. Pages are titled by their first heading.
// Content that fits one page passes through.
func paginate(ctx context.Context, c Content, env Env) (Result, error) {
	size := max(configInt(env.Config, "pageBytes", defaultPageBytes), 256)
	if len(c.Text) <= size {
		return Result{Text: c.Text}, nil
	}
	t := c.Text
	files := fileParts(t)
	starts := make([]int, len(files))
	for i, f := range files {
		starts[i] = f.start
	}
	cuts := cutPoints(t, 0, len(t), size, true, starts)
	pages := make([]Section, len(cuts))
	for i, start := range cuts {
		end := len(t)
		if i+1 < len(cuts) {
			end = cuts[i+1]
		}
		pages[i] = Section{Start: start, End: end, Title: "page " + strconv.Itoa(i+1) + " of " + strconv.Itoa(len(cuts)), Kind: KindPage}
	}
	if files != nil {
		titleFilePages(pages, files)
	} else {
		titlePages(t, pages)
	}
	if err := ctx.Err(); err != nil {
		return Result{}, err
	}
	return Result{Text: t[pages[0].Start:pages[0].End], Sections: pages, Metadata: map[string]any{"pages": len(pages)}}, nil
}

// titlePages adds to each page's title the first heading that starts in it. The headings are
// read from the whole text, not page by page: a page that starts inside fenced code would read
// its "# comment" lines as headings.
func titlePages(t string, pages []Section) {
	i := 0
	promptlib.Headings(t, func(h promptlib.Heading) bool {
		for i < len(pages) && h.Start >= pages[i].End {
			i++
		}
		if i == len(pages) {
			return false
		}
		if text := clip(strings.TrimSpace(strings.TrimLeft(h.Line, "#")), 60); text != "" && !strings.Contains(pages[i].Title, ": ") {
			pages[i].Title += ": " + text
		}
		return true
	})
}

// titleFilePages adds to each page's title the file it starts in, and how many more start in
// it: pages of several files are cut where files start (cutPoints), and a heading says less
// than which file a page is of.
func titleFilePages(pages []Section, files []filePart) {
	f := 0
	for i := range pages {
		for f+1 < len(files) && files[f+1].start <= pages[i].Start {
			f++
		}
		title := pathTitle(files[f].path)
		if files[f].start < pages[i].Start {
			title += " (continued)"
		}
		more := 0
		for g := f + 1; g < len(files) && files[g].start < pages[i].End; g++ {
			more++
		}
		if more > 0 {
			title += " + " + strconv.Itoa(more) + " more " + plural(more, "file", "files")
		}
		pages[i].Title += ": " + title
	}
}

// plainPages counts the pages at the start of ss that paginate titled by their number alone,
// having found no heading in them.
func plainPages(ss []Section) int {
	n := 0
	for n < len(ss) && ss[n].Kind == KindPage && len(ss[n].Children) == 0 && !strings.Contains(ss[n].Title, ": ") {
		n++
	}
	return n
}

// pagesLine is a table line for a run of plain pages: "- 2 to 199: 198 pages without a heading
// (1.6 MB, at most 8.0 KB each)". Listing them one by one said the same 198 times.
func pagesLine(pages []Section) string {
	first, last := pages[0], pages[len(pages)-1]
	largest := 0
	for _, p := range pages {
		largest = max(largest, p.Bytes())
	}
	return "- " + first.ID + " to " + last.ID + ": " + strconv.Itoa(len(pages)) + " pages without a heading (" +
		HumanBytes(last.End-first.Start) + ", at most " + HumanBytes(largest) + " each)"
}
