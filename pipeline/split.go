package pipeline

import (
	"context"
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"unsafe"

	"github.com/mcpctl/mcpctl/promptlib"
	"gopkg.in/yaml.v3"
)

// Format is the structure section-split detected in a piece of content.
type Format string

// The formats section-split knows. Detection looks at the content itself, never a file name.
const (
	FormatJSON       Format = "json"
	FormatYAML       Format = "yaml"
	FormatMarkdown   Format = "markdown"
	FormatGo         Format = "go"
	FormatPython     Format = "python"
	FormatTypeScript Format = "typescript"
	FormatProse      Format = "prose"
	FormatText       Format = "text" // none of the above: split by lines
	// FormatFiles is several files, each under its path, as read_multiple_files gives them
	// (files.go): split by file, each file by its own format.
	FormatFiles Format = "files"
)

// Defaults of section-split's config.
const (
	defaultMaxBytes    = 4000
	defaultMaxSections = 12
)

// splitter holds section-split's config.
type splitter struct {
	maxBytes    int // a section larger than this is split further, where structure allows
	minBytes    int // prose and line sections are grouped up to at least this
	maxSections int // more siblings than this are grouped into ranges
}

func newSplitter(cfg map[string]any) splitter {
	sp := splitter{
		maxBytes:    max(configInt(cfg, "maxBytes", defaultMaxBytes), 64),
		minBytes:    max(configInt(cfg, "minBytes", 0), 0),
		maxSections: max(configInt(cfg, "maxSections", defaultMaxSections), 2),
	}
	sp.minBytes = min(sp.minBytes, sp.maxBytes)
	return sp
}

// sectionSplit is the section-split stage: it finds the structure of its input and returns the
// input unchanged with sections.
func sectionSplit(ctx context.Context, c Content, env Env) (Result, error) {
	sp := newSplitter(env.Config)
	f, sections := sp.split(ctx, c.Text)
	return Result{Text: c.Text, Sections: sections, Metadata: map[string]any{"format": string(f)}}, ctx.Err()
}

// split detects t's format and returns its section tree, normalized to tile t exactly.
func (sp splitter) split(ctx context.Context, t string) (Format, []Section) {
	d := detect(t)
	f := d.format
	var sections []Section
	switch f {
	case FormatFiles:
		sections = sp.splitFiles(ctx, t, d.files)
	case FormatJSON:
		sections = sp.jsonContainer(t, d.jsonAt, 0)
		if len(sections) > 0 && strings.TrimSpace(t[:d.jsonAt]) != "" {
			// The text in front stays one section, and the JSON's first section starts at its
			// bracket, which normalize would give to the text.
			sections[0].Start = d.jsonAt
			sections = append([]Section{{Start: 0, Title: "(before the JSON)", Kind: KindPreamble}}, sections...)
		}
	case FormatYAML:
		sections = sp.splitYAML(t, d.yaml)
	case FormatMarkdown:
		sections = sp.splitMarkdown(t)
	case FormatGo, FormatPython, FormatTypeScript:
		sections = sp.splitCode(t, f)
	case FormatProse:
		sections = sp.splitProse(t, 0, len(t))
	}
	if ctx.Err() != nil {
		return f, nil
	}
	if len(sections) == 0 && len(t) > 0 {
		f2 := f
		if f != FormatProse {
			f2 = FormatText
		}
		sections = sp.splitLines(t, 0, len(t))
		if len(sections) <= 1 {
			return f2, nil
		}
		if len(sections) > sp.maxSections {
			sections = sp.groupFlat(t, sections)
		}
		return f2, normalize(t, sections, 0, len(t))
	}
	if len(sections) > sp.maxSections && (f == FormatProse || f == FormatText) {
		sections = sp.groupFlat(t, sections)
	}
	sections = normalize(t, sections, 0, len(t))
	sp.splitBig(t, sections)
	if len(sections) == 1 && len(sections[0].Children) == 0 {
		return f, nil // one section is no structure
	}
	return f, sections
}

// groupFlat groups a long flat run of prose or line sections, which tile t, into ranges titled
// by the lines they span.
func (sp splitter) groupFlat(t string, sections []Section) []Section {
	// The line each section starts on, and (last) the line at the end of t, counted in one pass:
	// counting from the start of t for each title, as grouping tries several sizes, took a
	// 64 MB log from 71 ms to 2 s.
	lines := make([]int, len(sections)+1)
	n, at := 1, 0
	for i, s := range sections {
		n += strings.Count(t[at:s.Start], "\n")
		lines[i], at = n, s.Start
	}
	lines[len(sections)] = n + strings.Count(t[at:], "\n")
	return sp.groupBySize(sections, len(t), func(a, b int) string {
		start, end := sections[a].Start, endOf(sections, b, len(t))
		last := lines[b+1]
		if end > start && t[end-1] == '\n' {
			last-- // the line a trailing newline ends is the range's last
		}
		return linesTitle(lines[a], last, start, end)
	})
}

// endOf is where sections[i] ends when each ends where the next starts and the last at end.
func endOf(sections []Section, i, end int) int {
	if i+1 < len(sections) {
		return sections[i+1].Start
	}
	return end
}

// linesTitle titles the bytes [start, end) on lines first to last by those lines, "lines
// 12–40", or, within one long line (minified JSON, a one-line log), by its bytes, which tell
// its parts apart.
func linesTitle(first, last, start, end int) string {
	if last == first {
		return "line " + strconv.Itoa(first) + ", bytes " + strconv.Itoa(start) + "–" + strconv.Itoa(end-1)
	}
	return "lines " + strconv.Itoa(first) + "–" + strconv.Itoa(last)
}

// splitBig splits leaves much larger than maxBytes into parts at paragraph, line or word
// boundaries, so no drill-down is ever one huge piece; many parts are grouped into ranges, so
// no table is a long list either.
func (sp splitter) splitBig(t string, sections []Section) {
	for i := range sections {
		s := &sections[i]
		if len(s.Children) > 0 {
			sp.splitBig(t, s.Children)
			continue
		}
		if s.Bytes() <= 2*sp.maxBytes {
			continue
		}
		cuts := cutPoints(t, s.Start, s.End, sp.maxBytes, false, nil)
		if len(cuts) < 2 {
			continue
		}
		parts := make([]Section, len(cuts))
		for n, c := range cuts {
			parts[n] = Section{Start: c, Kind: s.Kind, Title: s.Title + " (part " + strconv.Itoa(n+1) + " of " + strconv.Itoa(len(cuts)) + ")"}
		}
		if len(parts) > sp.maxSections {
			parts = sp.groupBySize(parts, s.End, func(a, b int) string {
				return s.Title + " (parts " + strconv.Itoa(a+1) + "–" + strconv.Itoa(b+1) + " of " + strconv.Itoa(len(cuts)) + ")"
			})
		}
		s.Children = normalize(t, parts, s.Start, s.End)
	}
}

var (
	goPackage = regexp.MustCompile(`^package [A-Za-z_]\w*\s*(//.*)?$`)
	goDecl    = regexp.MustCompile(`^(func|type|var|const|import)\b`)
	pyDecl    = regexp.MustCompile(`^((async\s+)?def \w+\s*\(|class \w+\s*(\(.*\))?\s*:|import [\w.]+(\s+as\s+\w+)?\s*$|from [\w.]+ import |if __name__ ==)`)
	tsDecl    = regexp.MustCompile(`^(import .+ from ['"]|import ['"]|export (default |declare )?(async )?(const|let|var|function|class|interface|type|enum|abstract|namespace)\b|(async )?function\s*\*?\s*\w*\s*[<(]|interface \w+|(abstract )?class \w+|(const|let) \w+\s*(:[^=]+)?=|type \w+\s*(<.*>)?\s*=|enum \w+)`)
	// mdHeading is an ATX heading with text, "# Release notes"; "#" alone is no evidence.
	mdHeading = regexp.MustCompile(`^ {0,3}#{1,6}[ \t]+\S`)
	yamlKey   = regexp.MustCompile(`^(- |-$|[\w"'$./-][^:#]*:(\s|$)|#|---|\.\.\.)`)
	// mdInline is markdown inside a line: a link to somewhere, or a bold phrase ("__bold__" set
	// off by spaces: "__init__.py" is a Python file's name).
	mdInline = regexp.MustCompile(`\[[^\]\n]+\]\((https?://|/|\.|#)[^)\s]*\)|\*\*\w[^*\n]*\*\*|(^|\s)__\w[^_\n]*__([.,;:!?]?(\s|$))`)
)

// Detect returns the format of t, judged from its content.
func Detect(t string) Format {
	return detect(t).format
}

// detection is a format with what detect found on the way that splitting needs, so it is
// found once: finding the files of 32 MB of them takes 15 ms, parsing a YAML document longer.
type detection struct {
	format Format
	files  []filePart // FormatFiles: the files (fileParts)
	jsonAt int        // FormatJSON: where the JSON starts (jsonStart)
	yaml   *yaml.Node // FormatYAML: the parsed document
}

// detect is Detect, with what split needs besides the format.
func detect(t string) detection {
	if files := fileParts(t); files != nil {
		return detection{format: FormatFiles, files: files}
	}
	if s := jsonStart(t); s >= 0 {
		return detection{format: FormatJSON, jsonAt: s}
	}
	var goPkg bool
	var goN, pyN, tsN, headings, lines, yamlish, yamlKeys, letters, sentenceEnds int
	// Status reports of "Owner: bob" lines under headings parsed as YAML and were split by key,
	// and so did logs of "line 12: token=…". What tells them apart: markdown YAML would not
	// have (mdOnly: a fence, a setext heading, a link or bold text; mdHeadings: headings set off
	// by blank lines), YAML markdown would not have (yamlOnly: keys nested under a key with no
	// value, comments after a value), and keys that are phrases (spacedKeys), which YAML files'
	// keys are not.
	var mdOnly, mdHeadings, yamlOnly, spacedKeys int
	// opened: the last line that was not blank, a comment or code was a key with no value
	// ("spec:", "- env:"), indented by openedAt; a key line indented further is nested in it.
	opened, openedAt := false, 0
	var code promptlib.Fence
	prevBlank, prevPara, prevKey := true, false, false
	// atx: the last line was an ATX heading after a blank line (or the start), which a blank
	// next line makes a heading set off: a YAML comment mostly sits on the keys it is about.
	atx := false
	eachLine(t, func(start, end int) bool {
		line := strings.TrimRight(t[start:end], "\r\n")
		trimmed := strings.TrimSpace(line)
		if inCode := code.InCode(); code.Code(trimmed) {
			if !inCode {
				headings++ // a fence is markdown evidence
				if line[0] != ' ' && line[0] != '\t' {
					mdOnly++ // an indented one may be in a YAML block scalar
				}
			}
			prevPara, prevKey, atx = false, false, false
			return true
		}
		if trimmed == "" {
			if atx {
				mdHeadings++
			}
			prevBlank, prevPara, prevKey, atx = true, false, false, false
			return true
		}
		if prevPara && promptlib.SetextLevel(trimmed) > 0 {
			headings++ // "Title" over "===" or "---"
			if trimmed[0] == '=' || !prevKey {
				mdOnly++ // "---" under "key: value" is YAML's next document
			}
		}
		atx = prevBlank && line[0] == '#' && mdHeading.MatchString(line)
		prevBlank = false
		prevPara = promptlib.ParagraphLine(trimmed)
		lines++
		// Every declaration keyword is lower case and every heading starts with '#': one byte
		// rules most lines out before any regular expression runs.
		if c := line[0]; c >= 'a' && c <= 'z' {
			switch {
			case goPackage.MatchString(line):
				goPkg = true
			case goDecl.MatchString(line):
				goN++
			}
			if pyDecl.MatchString(line) {
				pyN++
			}
			if tsDecl.MatchString(line) {
				tsN++
			}
		} else if c == '#' && promptlib.ATXHeading(line) && !strings.HasPrefix(line, "#!") {
			headings++
		}
		indent := len(line) - len(strings.TrimLeft(line, " \t"))
		prevKey = false
		opens := false
		if yamlKey.MatchString(trimmed) {
			yamlish++
			if strings.Contains(trimmed, ":") && !strings.HasPrefix(trimmed, "#") {
				yamlKeys++
				key, value, _ := strings.Cut(trimmed, ":")
				value = strings.TrimSpace(value)
				// A phrase ending in a colon ("1. **Pick a template** for it:") opens nothing: a
				// list item's paragraph under it is no nested key.
				opens = (value == "" || value[0] == '#') && !strings.ContainsAny(strings.TrimPrefix(key, "- "), " \t")
				if !strings.HasPrefix(trimmed, "-") {
					prevKey = true
					if strings.ContainsAny(key, " \t") {
						spacedKeys++
					}
					// "  replicas: 3" under "spec:", or "ko_fi: # a username". A key indented
					// under anything else says nothing: a markdown list item's next line ("- Status:
					// green" over "  Owner: bob") is indented as a YAML list item's next key is
					// ("- name: api" over "  image: nginx"), which YAML keeps under "containers:".
					if opened && indent > openedAt || strings.Contains(" "+value+" ", " # ") {
						yamlOnly++
					}
				}
			}
		}
		if trimmed[0] != '#' {
			opened, openedAt = opens, indent
		}
		if trimmed[0] != '#' && (strings.Contains(trimmed, "](") || strings.Contains(trimmed, "**") || strings.Contains(trimmed, "__")) && mdInline.MatchString(trimmed) {
			mdOnly++ // in a comment it says nothing: YAML comments are often markdown
		}
		for _, r := range trimmed {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127 {
				letters++
			}
		}
		if strings.HasSuffix(trimmed, ".") || strings.Contains(trimmed, ". ") {
			sentenceEnds++
		}
		return lines < 20000 // enough evidence; do not scan megabytes
	})
	switch {
	case goPkg && goN >= 1:
		return detection{format: FormatGo}
	case pyN >= 2 && pyN >= tsN:
		return detection{format: FormatPython}
	case tsN >= 2:
		return detection{format: FormatTypeScript}
	}
	if atx {
		mdHeadings++ // a heading on the last line
	}
	// YAML nests: keys nested under keys are YAML whatever the comments look like ("# Deployment
	// for the api" is an ATX heading too). Flat "key: value" lines are YAML only without
	// markdown around them: one comment set off at the top (FUNDING.yml's) is not enough to say
	// so, two headings are.
	isYAML := lines >= 2 && yamlish*10 >= lines*6 && yamlKeys >= 1
	if isYAML && yamlOnly == 0 && (mdOnly > 0 || mdHeadings >= 2 || spacedKeys*2 > yamlKeys) {
		isYAML = false
	}
	if isYAML {
		if root := parseYAML(t); root != nil && len(root.Content) >= 2 {
			return detection{format: FormatYAML, yaml: root}
		}
	}
	switch {
	case headings >= 1 && lines > 0:
		return detection{format: FormatMarkdown}
	case lines > 0 && sentenceEnds > 0 && letters*10 >= len(t)*6:
		return detection{format: FormatProse}
	}
	return detection{format: FormatText}
}

// maxPreamble bounds the text in front of a JSON document that still makes it JSON: a tool's
// summary beside its data ("Found 5000 rows; next cursor: abc"), not a report with a JSON
// appendix.
const maxPreamble = 4 << 10

// jsonStart is where the JSON object or array that t holds starts, or -1. It starts t (after
// white space), or a line after a short text in front of it: a tool's one-line summary joined
// to the JSON of its structuredContent, or "Results:" above what a tool printed, was split by
// lines and bytes, where the same JSON alone was split by its elements and keys.
func jsonStart(t string) int {
	valid := func(s int) bool {
		return json.Valid(unsafe.Slice(unsafe.StringData(t[s:]), len(t)-s))
	}
	if s := skipWS(t, 0); s < len(t) && (t[s] == '{' || t[s] == '[') {
		if valid(s) {
			return s
		}
	}
	// A few lines opening with a bracket are tried, each only as far as it stays valid JSON: a
	// log's "[INFO]" fails at its second byte.
	tries := 0
	for i := strings.IndexByte(t, '\n'); i >= 0 && i < maxPreamble && tries < 4; {
		s := i + 1
		if s < len(t) && (t[s] == '{' || t[s] == '[') {
			tries++
			// The JSON is the bulk: a report ending in a small JSON example is a report.
			if len(t)-s >= s && valid(s) {
				return s
			}
		}
		next := strings.IndexByte(t[s:], '\n')
		if next < 0 {
			break
		}
		i = s + next
	}
	return -1
}

// eachLine calls fn with the byte range of each line, its newline included, until fn returns
// false.
func eachLine(t string, fn func(start, end int) bool) {
	for start := 0; start < len(t); {
		end := strings.IndexByte(t[start:], '\n')
		if end < 0 {
			end = len(t)
		} else {
			end += start + 1
		}
		if !fn(start, end) {
			return
		}
		start = end
	}
}

// splitMarkdown makes one section per heading (outside code fences), nested by level; text
// before the first heading and between a heading and its first subheading are intro sections.
func (sp splitter) splitMarkdown(t string) []Section {
	type heading struct {
		level, start int
		title        string
	}
	var hs []heading
	promptlib.Headings(t, func(h promptlib.Heading) bool {
		hs = append(hs, heading{level: h.Level, start: h.Start, title: clip(h.Line, 80)})
		return true
	})
	// build nests headings[i:] deeper than level; it returns the sections and how many it used.
	var build func(i, level int) ([]Section, int)
	build = func(i, level int) ([]Section, int) {
		var out []Section
		j := i
		for j < len(hs) && hs[j].level > level {
			h := hs[j]
			sec := Section{Start: h.start, Title: h.title, Kind: KindHeading}
			children, n := build(j+1, h.level)
			if len(children) > 0 {
				sec.Children = append([]Section{{Start: h.start, Title: h.title + " (intro)", Kind: KindIntro}}, children...)
			}
			out = append(out, sec)
			j += 1 + n
		}
		return out, j - i
	}
	sections, _ := build(0, 0)
	if len(sections) == 1 && len(sections[0].Children) > 0 {
		// One title heading over everything: its parts are the document's top level.
		sections = sections[0].Children
	}
	if len(hs) > 0 && strings.TrimSpace(t[:hs[0].start]) != "" {
		sections = append([]Section{{Start: 0, Title: "(before the first heading)", Kind: KindIntro}}, sections...)
	}
	return sp.groupHeadings(sections)
}

// groupHeadings groups more than maxSections siblings, at every level of a heading tree, into
// ranges, as JSON, YAML and code are grouped: a file of 40 "##" sections is otherwise a table
// of 40 lines whatever the budget.
func (sp splitter) groupHeadings(ss []Section) []Section {
	for i := range ss {
		if len(ss[i].Children) > 0 {
			ss[i].Children = sp.groupHeadings(ss[i].Children)
		}
	}
	if len(ss) > sp.maxSections {
		ss = groupTitled(ss, sp.maxSections)
	}
	return ss
}

// splitCode makes one section per top-level declaration, with the comments, decorators and
// blank lines above it; what comes before the first is the preamble.
func (sp splitter) splitCode(t string, f Format) []Section {
	decl := map[Format]*regexp.Regexp{FormatGo: goDecl, FormatPython: pyDecl, FormatTypeScript: tsDecl}[f]
	var sections []Section
	lastDecl := -1      // start of the previous declaration's line
	leadStart := -1     // start of the run of comment lines just above the current line
	prevImport := false // imports are grouped with the preamble
	eachLine(t, func(start, end int) bool {
		line := strings.TrimRight(t[start:end], "\r\n")
		trimmed := strings.TrimSpace(line)
		isComment := line != "" && line[0] != ' ' && line[0] != '\t' &&
			(strings.HasPrefix(trimmed, "//") || strings.HasPrefix(trimmed, "#") || strings.HasPrefix(trimmed, "/*") || strings.HasPrefix(trimmed, "*") || strings.HasPrefix(trimmed, "@"))
		if isComment {
			if leadStart < 0 {
				leadStart = start
			}
			return true
		}
		if decl.MatchString(line) {
			isImport := strings.HasPrefix(line, "import") || strings.HasPrefix(line, "from ")
			if !(isImport && (prevImport || lastDecl < 0)) {
				s := start
				if leadStart >= 0 {
					s = leadStart
				}
				sections = append(sections, Section{Start: s, Title: clip(line, 80), Kind: KindCode})
			}
			prevImport = isImport
			lastDecl = start
		}
		if trimmed != "" {
			leadStart = -1
		}
		return true
	})
	if len(sections) > 0 && strings.TrimSpace(t[:sections[0].Start]) != "" {
		sections = append([]Section{{Start: 0, Title: "(preamble)", Kind: KindIntro}}, sections...)
	}
	// A declaration's line names what it holds, where a heading or a JSON key often says less,
	// and a model drills into a code file by name: so code keeps its declarations listed up to
	// four times maxSections (48 lines of a table of contents by default) before grouping.
	if len(sections) > sp.maxSections*4 {
		sections = groupTitled(sections, sp.maxSections)
	}
	return sections
}

// splitProse groups paragraphs into sections of about maxBytes, titled by their first sentence.
func (sp splitter) splitProse(t string, lo, hi int) []Section {
	target := max(sp.minBytes, sp.maxBytes/2)
	var sections []Section
	para := 1
	for start := lo; start < hi; {
		end, first := start, para
		for end < hi && end-start < target {
			next := strings.Index(t[end:hi], "\n\n")
			if next < 0 {
				end = hi
				break
			}
			end += next + 2
			for end < hi && (t[end] == '\n' || t[end] == '\r') {
				end++
			}
			para++
		}
		if end == hi && strings.TrimSpace(t[start:end]) != "" && !strings.HasSuffix(t[:end], "\n\n") {
			para++
		}
		title := "paragraph " + strconv.Itoa(first)
		if para-1 > first {
			title = "paragraphs " + strconv.Itoa(first) + "–" + strconv.Itoa(para-1)
		}
		sections = append(sections, Section{Start: start, Title: title, Kind: KindProse})
		start = end
	}
	return sections
}

// splitLines cuts text with no structure we know into runs of lines of about maxBytes.
func (sp splitter) splitLines(t string, lo, hi int) []Section {
	cuts := cutPoints(t, lo, hi, sp.maxBytes, false, nil)
	sections := make([]Section, 0, len(cuts))
	line := 1 + strings.Count(t[:lo], "\n")
	for i, c := range cuts {
		end := hi
		if i+1 < len(cuts) {
			end = cuts[i+1]
		}
		n := strings.Count(t[c:end], "\n")
		last := line + n
		if n > 0 && t[end-1] == '\n' {
			last--
		}
		title := "lines " + strconv.Itoa(line) + "–" + strconv.Itoa(last)
		if last <= line {
			title = "line " + strconv.Itoa(line) + ", bytes " + strconv.Itoa(c) + "–" + strconv.Itoa(end-1)
		}
		sections = append(sections, Section{Start: c, Title: title, Kind: KindLines})
		line += n
	}
	return sections
}

// cutPoints cuts [lo, hi) into pieces of at most size bytes (a piece may be shorter, never
// longer unless a single UTF-8 sequence is), returning each piece's start. Each cut is the best
// boundary in the window: the last of prefer (sorted offsets: where files start) past its first
// quarter, so a page starts where a file does at the cost of a shorter one before it; else, in
// its second half, before a markdown heading when headings is set, after a blank line, a line,
// a space, and at worst between two UTF-8 sequences.
func cutPoints(t string, lo, hi, size int, headings bool, prefer []int) []int {
	cuts := []int{lo}
	for start := lo; hi-start > size; {
		limit := start + size
		win := t[start+size/2 : limit]
		cut := -1
		// Pages only move forward, so neither does the search of prefer: from the first page,
		// each page's search read every file start before it, 4,000 pages of 166,000 files
		// 250 ms.
		for len(prefer) > 0 && prefer[0] <= start {
			prefer = prefer[1:]
		}
		for _, p := range prefer {
			if p > limit {
				break
			}
			if p >= start+size/4 {
				cut = p
			}
		}
		if headings && cut < 0 {
			if i := strings.LastIndex(win, "\n#"); i >= 0 {
				cut = start + size/2 + i + 1
			}
		}
		for _, sep := range []string{"\n\n", "\n", " "} {
			if cut >= 0 {
				break
			}
			if i := strings.LastIndex(win, sep); i >= 0 {
				cut = start + size/2 + i + len(sep)
			}
		}
		if cut < 0 || cut <= start {
			cut = runeStart(t, limit)
			if cut <= start {
				cut = limit
			}
		}
		cuts = append(cuts, cut)
		start = cut
	}
	return cuts
}

// firstSentence returns the first sentence of text, skipping headings, rules, code, HTML
// comments and blank lines, clipped to n bytes.
func firstSentence(text string, n int) string {
	var s, pending string // pending: a line that is the text unless a setext underline follows
	var code promptlib.Fence
	comment := false // within an HTML comment: "<!-- introduced_in=v0.10.0 -->" says nothing
	eachLine(text, func(start, end int) bool {
		line := strings.TrimSpace(text[start:end])
		if pending != "" {
			if promptlib.SetextLevel(line) > 0 {
				pending = "" // a heading's text
				return true
			}
			s = pending
			return false
		}
		switch {
		case comment:
			comment = !strings.Contains(line, "-->")
		case strings.HasPrefix(line, "<!--"):
			comment = !strings.Contains(line, "-->")
		case code.Code(line), line == "", promptlib.ATXHeading(line), promptlib.SetextLevel(line) > 0:
		default:
			pending = line
		}
		return true
	})
	if s == "" {
		s = pending // the text's last line
	}
	if s == "" {
		return clip(text, n)
	}
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			s = s[:i+1]
			break
		}
	}
	return clip(s, n)
}
