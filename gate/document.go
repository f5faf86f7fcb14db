package gate

import (
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/promptlib"
)

// The fields a prompt is ranked on, each with its own weight (see rank.go). The name is the
// slug of the title, so both are one field: the same words are not counted twice.
const (
	fieldTitle    = iota // name and title
	fieldChapters        // the markdown headings
	fieldSummary         // the first sentence, as promptlib.Summary gives it
	fieldFolder          // the folder path: a weak signal, every prompt of a folder shares it
	fieldBody            // the whole body
	numFields
)

// Doc is what the gate keeps of one prompt: computed once from the body, which it does not
// retain. A Doc holds no reference into the prompt's content, so a caller may cache Docs of
// unchanged prompts across library snapshots and drop the bodies.
type Doc struct {
	ID         string
	Name       string   // unique MCP prompt name (promptlib.Names over the visible prompts)
	Title      string   // as stored
	Summary    string   // promptlib.Summary of the content
	FolderPath string   // "A / B"; "" at the top level
	Chapters   []string // the content's markdown headings, in order, markup removed
	Bytes      int      // len(Content): what sending it in full costs
	Tokens     int      // promptlib.Tokens(Content): the same in a model's context
	// TOCBytes and TOCTokens are what sending it as a table of contents costs, when the content
	// pipeline in force makes one for it (DESIGN §9: a prompt over the model's minBytes); 0 when
	// it does not. The caller sets them (SetTOC): the gate does not run pipelines.
	TOCBytes  int
	TOCTokens int

	terms      []termCount      // sorted by term; words and, outside the body, adjacent pairs
	lens       [numFields]int32 // words per field, for length normalisation
	topicWords []topicWord      // title and heading words that may name a topic (Index.Topics)
}

// topicWord is one stem of a title or heading (as its term: topics are counted by stem, and a
// hash weighs less than the stem's string) with its most used spelling in this prompt.
type topicWord struct {
	stem     term
	spelling string
	n        int32
}

// termCount is one term of a document and how often it occurs in each field, packed in 64 bits:
// the term (termBits) in the high bits, so sorting termCounts sorts by term, then the body count
// (bodyBits) and the counts in title, headings, summary and folder path (fieldBits each). Counts
// saturate, at 1023 in the body and 7 elsewhere: with BM25's saturation (k1 = 3) more changes
// nothing that ranks, and 8 bytes a term instead of 16 is most of what a Doc weighs.
type termCount uint64

const (
	bodyBits   = 10
	fieldBits  = 3
	countsBits = bodyBits + fieldBody*fieldBits // the low bits: every count
	bodyMax    = 1<<bodyBits - 1
	fieldMax   = 1<<fieldBits - 1
)

// packCount packs a term and its counts, saturating them.
func packCount(t term, body int32, f *[fieldBody]int32) termCount {
	c := termCount(t)<<countsBits | termCount(min(body, bodyMax))<<(fieldBody*fieldBits)
	for i, n := range f {
		c |= termCount(min(n, fieldMax)) << (i * fieldBits)
	}
	return c
}

func (c termCount) term() term { return term(c >> countsBits) }

// counts is the low bits, every count, as a posting keeps them.
func (c termCount) counts() fieldCounts { return fieldCounts(c & (1<<countsBits - 1)) }

// fieldCounts is the counts part of a termCount.
type fieldCounts uint32

// topicalFields masks the counts of the fields that name a prompt's topics: title, headings
// and summary.
const topicalFields = fieldCounts(fieldMax<<(fieldTitle*fieldBits) | fieldMax<<(fieldChapters*fieldBits) | fieldMax<<(fieldSummary*fieldBits))

// in is the count in one field.
func (c fieldCounts) in(field int) int {
	if field == fieldBody {
		return int(c >> (fieldBody * fieldBits))
	}
	return int(c>>(field*fieldBits)) & fieldMax
}

// SetTOC records toc as d's table of contents, what sending it as its contents costs; "" when
// the pipeline makes none.
func (d *Doc) SetTOC(toc string) {
	d.TOCBytes, d.TOCTokens = len(toc), promptlib.Tokens(toc)
}

// NewDoc computes the gate's view of a prompt: name as given (promptlib.Names over the prompts
// the project sees), folderPath as FolderPaths gives it. It keeps copies, never a reference into
// p.Content. It is safe to call concurrently.
func NewDoc(p promptlib.Prompt, name, folderPath string) Doc {
	d := Doc{
		ID:         strings.Clone(p.ID),
		Name:       strings.Clone(name),
		Title:      strings.Clone(p.Title),
		Summary:    strings.Clone(promptlib.Summary(p.Content)),
		FolderPath: folderPath, // FolderPaths' own string, shared by the folder's prompts: not a slice of a row
		Bytes:      len(p.Content),
		Tokens:     promptlib.Tokens(p.Content),
	}
	for _, c := range Chapters(p.Content) {
		d.Chapters = append(d.Chapters, strings.Clone(c))
	}
	acc := map[term]*[numFields]int32{}
	get := func(t term) *[numFields]int32 {
		tf := acc[t]
		if tf == nil {
			tf = new([numFields]int32)
			acc[t] = tf
		}
		return tf
	}
	addField := func(field int, texts ...string) {
		for _, s := range texts {
			stems := stemsOf(s)
			d.lens[field] += int32(len(stems))
			for i, st := range stems {
				get(termOf(st))[field]++
				if i > 0 && field != fieldBody {
					get(pairOf(stems[i-1], st))[field]++
				}
			}
		}
	}
	// Name and title are one field; the name's words are added only when the title lacks them
	// (a name made unique with "-2", or a title with no letters).
	titleText := p.Title
	if promptlib.Slug(p.Title) != name {
		titleText += " " + name
	}
	addField(fieldTitle, titleText)
	addField(fieldChapters, d.Chapters...)
	addField(fieldSummary, d.Summary)
	addField(fieldFolder, folderPath)
	addField(fieldBody, p.Content)
	d.topicWords = topicWordsOf(append([]string{d.Title}, d.Chapters...))
	d.terms = make([]termCount, 0, len(acc))
	for t, n := range acc {
		d.terms = append(d.terms, packCount(t, n[fieldBody], (*[fieldBody]int32)(n[:fieldBody])))
	}
	slices.Sort(d.terms)
	return d
}

// Line is the document's index line, "- name: summary", at most MaxIndexLine characters: a long
// summary is cut at a word and marked with "…".
func (d *Doc) Line() string {
	head := "- " + d.Name
	if d.Summary == "" {
		return clip(head, MaxIndexLine)
	}
	room := MaxIndexLine - len([]rune(head)) - 2
	if room < 8 { // a name so long no useful summary fits
		return clip(head, MaxIndexLine)
	}
	return head + ": " + clip(d.Summary, room)
}

// topicWordsOf lists the distinct stems of texts that may name a topic: not stop words, not
// filler headings, three letters or more (two for a run of Chinese, Japanese …, kept whole).
func topicWordsOf(texts []string) []topicWord {
	var out []topicWord
	at := map[string]int{}
	for _, text := range texts {
		// A run of Chinese or Japanese is its own topic word, whole ("日本語のレビュー"): its
		// pairs of characters are what it is matched by, not what a model would ask for.
		runs(text, func(w string, lower, pairs bool) {
			if !lower {
				w = strings.ToLower(w)
			}
			if indexStop[w] || topicFiller[w] || utf8.RuneCountInString(w) < 3 && !pairs || utf8.RuneCountInString(w) < 2 || utf8.RuneCountInString(w) > MaxTagLen || !hasLetter(w) {
				return
			}
			s := stem(w)
			if k, ok := at[s]; ok {
				if out[k].spelling == w {
					out[k].n++
				}
				return
			}
			at[s] = len(out)
			out = append(out, topicWord{stem: termOf(s), spelling: w, n: 1}) // w is in texts, which the Doc keeps
		})
	}
	return out
}
