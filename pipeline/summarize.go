package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mcpctl/mcpctl/promptlib"
)

const (
	defaultSummaryBudget = 1500 // bytes of table a summarize-tree result aims for
	maxLLMSections       = 16   // sections summarized by the LLM per request
	llmInputBytes        = 6000 // bytes of a section sent to the LLM
	llmParallel          = 4
	// llmSummaryBudget bounds the time one request spends on LLM summaries; what is not done
	// by then keeps its structural summary.
	llmSummaryBudget = 20 * time.Second
)

// summarizeTree is the summarize-tree stage: it replaces its input with a table of contents of
// the sections earlier stages found (or, when none did, that it finds itself as section-split
// would), one line per section with its id, title, size and a structural summary — keys, types,
// counts and a sample for data, the first sentence for prose — as deep as fits budgetBytes
// (default 1500). With an LLM, prose sections get the model's one-line summary and untitled
// pages its title, each cached by content hash; any LLM failure falls back to the structural
// summary.
func summarizeTree(ctx context.Context, c Content, env Env) (Result, error) {
	t := env.Base
	sections := env.Sections
	if len(sections) == 0 {
		t = c.Text
		_, sections = newSplitter(env.Config).split(ctx, t)
		if len(sections) == 0 {
			return Result{Text: c.Text}, nil
		}
	}
	sections = cloneSections(sections)
	assignIDs(sections, "")
	summaries := map[string]string{}
	provisional := false
	if env.LLM != nil {
		provisional = llmSummaries(ctx, t, sections, env, summaries)
	}
	budget := max(configInt(env.Config, "budgetBytes", defaultSummaryBudget), 200)
	head := header(t, sections)
	var text string
	for depth := 1; depth <= maxDepth; depth++ {
		if depth > 1 && countTo(sections, depth)*24 > budget {
			break // cannot fit: do not render thousands of lines to find out
		}
		var b strings.Builder
		b.WriteString(head)
		deeper := renderTree(&b, t, sections, summaries, depth, 0)
		if depth > 1 && b.Len() > budget {
			break
		}
		text = b.String()
		if !deeper {
			break
		}
	}
	return Result{Text: text, Sections: sections, Base: t, Provisional: provisional}, ctx.Err()
}

// countTo counts the sections down to depth levels.
func countTo(ss []Section, depth int) int {
	n := len(ss)
	if depth > 1 {
		for _, s := range ss {
			n += countTo(s.Children, depth-1)
		}
	}
	return n
}

func cloneSections(ss []Section) []Section {
	out := make([]Section, len(ss))
	for i, s := range ss {
		out[i] = s
		out[i].Children = cloneSections(s.Children)
	}
	return out
}

// header is the table's first line: what the content is, its size and how it is cut.
func header(t string, sections []Section) string {
	what := "Content"
	switch firstKind(sections) {
	case KindHeading, KindIntro:
		what = "Markdown"
	case KindCode:
		what = "Source code"
	case KindYAML:
		what = "YAML"
	case KindProse:
		what = "Prose"
	case KindLines:
		what = "Text"
	case KindFile:
		what = "Files"
	}
	i, data := skipWS(t, 0), sections
	if len(data) > 1 && data[0].Kind == KindPreamble {
		i, data = skipWS(t, data[0].End), data[1:] // a summary in front of the JSON
	}
	if i < len(t) && (t[i] == '[' || t[i] == '{') && len(data) > 0 && isJSONKind(firstLeaf(data).Kind) {
		if t[i] == '[' {
			n := len(jsonItems(t, i))
			what = "JSON array of " + strconv.Itoa(n) + " " + plural(n, "element", "elements")
		} else {
			what = "JSON object"
		}
	}
	return fmt.Sprintf("%s, %s, in %d %s:\n", what, HumanBytes(len(t)), len(sections), plural(len(sections), "section", "sections"))
}

// firstKind is the kind of the first section that is not an intro, which names the format.
func firstKind(ss []Section) string {
	for _, s := range ss {
		if s.Kind == KindIntro || s.Kind == KindPreamble {
			continue
		}
		if len(s.Children) > 0 && s.Kind == KindRange {
			if k := firstKind(s.Children); k != "" {
				return k
			}
			continue
		}
		return s.Kind
	}
	return ""
}

func firstLeaf(ss []Section) Section {
	for len(ss[0].Children) > 0 {
		ss = ss[0].Children
	}
	return ss[0]
}

func isJSONKind(k string) bool { return k == KindJSONElement || k == KindJSONMember }

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// renderTree writes one line per section down to depth levels; it reports whether there was
// more below.
func renderTree(b *strings.Builder, t string, ss []Section, summaries map[string]string, depth, level int) bool {
	deeper := false
	for _, s := range ss {
		b.WriteString(strings.Repeat("  ", level))
		fmt.Fprintf(b, "- %s %s (%s", s.ID, s.Title, HumanBytes(s.Bytes()))
		if len(s.Children) > 0 && depth == 1 {
			fmt.Fprintf(b, ", %d parts", len(s.Children))
		}
		b.WriteString(")")
		sum := summaries[s.ID]
		if sum == "" {
			sum = summarize(t, s)
		}
		if sum != "" {
			b.WriteString(": ")
			b.WriteString(sum)
		}
		b.WriteByte('\n')
		if len(s.Children) > 0 {
			if depth > 1 {
				if renderTree(b, t, s.Children, summaries, depth-1, level+1) {
					deeper = true
				}
			} else {
				deeper = true
			}
		}
	}
	return deeper
}

// summarize is a section's structural summary.
func summarize(t string, s Section) string {
	switch s.Kind {
	case KindRange:
		if items := itemSections(s.Children); len(items) > 0 && isJSONKind(items[0].Kind) {
			return clip(jsonRangeFacts(t, items), 120)
		}
		// A range of a log's lines or of paragraphs starts as its first part does: a log's
		// first timestamp says where to drill for a time.
		if first := firstLeaf(s.Children); first.Kind == KindLines || first.Kind == KindProse {
			return summarize(t, first)
		}
		return ""
	case KindJSONElement, KindJSONMember:
		return clip(jsonValueFacts(t, s.ValueStart), 100)
	case KindCode:
		text := s.Text(t)
		if strings.HasPrefix(strings.TrimSpace(text), "//") || strings.HasPrefix(strings.TrimSpace(text), "#") || strings.HasPrefix(strings.TrimSpace(text), "/*") {
			return clip(strings.TrimLeft(strings.TrimSpace(text), "/#* "), 100)
		}
		return ""
	case KindYAML:
		if len(s.Children) > 0 {
			return strconv.Itoa(len(itemSections(s.Children))) + " entries" // not the ranges they are grouped in
		}
		line := s.Text(t)
		if i := strings.Index(line, ":"); i >= 0 {
			line = line[i+1:]
		}
		return clip(line, 80)
	case KindLines:
		return clip(s.Text(t), 80)
	case KindFile:
		// The title is the path, which the text's first line repeats: the file's own first
		// sentence, or why it could not be read, says what it is.
		line, rest, _ := strings.Cut(s.Text(t), "\n")
		if i := strings.Index(line, fileErr); i >= 0 {
			return clip(line[i+2:], 100)
		}
		return firstSentence(firstBody(rest), 100)
	case KindPreamble:
		// What a tool says beside its data (how many rows, the cursor for the next page) is
		// shown whole, up to a few lines' worth: its first sentence may not be the part that
		// matters.
		return clip(strings.Join(strings.Fields(s.Text(t)), " "), preambleSummary)
	default: // headings, intros, prose, pages
		return firstSentence(firstBody(s.Text(t)), 100)
	}
}

// preambleSummary bounds the summary of the text in front of a JSON document.
const preambleSummary = 300

// firstBody drops a leading heading, so a heading's summary is its first sentence.
func firstBody(text string) string {
	// A heading is a line or two (setext): the rest of a long section is not read.
	head := text
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		if j := strings.IndexByte(text[i+1:], '\n'); j >= 0 {
			head = text[:i+1+j+1]
		}
	}
	body := text
	promptlib.Headings(head, func(h promptlib.Heading) bool {
		if h.Start == 0 {
			body = text[h.End:]
		}
		return false
	})
	return body
}

// jsonValueFacts describes one JSON value: a scalar by itself, an object by its keys, an
// array by its length and element kinds.
func jsonValueFacts(t string, v int) string {
	if v <= 0 || v >= len(t) {
		return ""
	}
	switch kind := jsonKind(t, v); kind {
	case "object":
		members := jsonItems(t, v)
		keys := make([]string, 0, len(members))
		for _, m := range members {
			keys = append(keys, m.key+":"+jsonKind(t, m.valStart))
		}
		return "object {" + strings.Join(keys, ", ") + "}"
	case "array":
		items := jsonItems(t, v)
		kinds := map[string]int{}
		for _, it := range items {
			kinds[jsonKind(t, it.valStart)]++
		}
		return "array of " + strconv.Itoa(len(items)) + countKinds(kinds)
	default:
		return kind + " " + clip(t[v:valueEnd(t, v)], 60)
	}
}

// jsonRangeFacts describes a run of elements or members: how many of each kind, the keys their
// objects have with their types, and a sample.
func jsonRangeFacts(t string, items []Section) string {
	kinds := map[string]int{}
	var keys []string
	keyType := map[string]string{}
	sample := ""
	for _, it := range items {
		v := it.ValueStart
		if v <= 0 || v >= len(t) {
			continue
		}
		k := jsonKind(t, v)
		kinds[k]++
		if k == "object" {
			eachItem(t, v, func(m jsonItem) bool {
				mk := jsonKind(t, m.valStart)
				if old, seen := keyType[m.key]; !seen {
					keys = append(keys, m.key)
					keyType[m.key] = mk
				} else if old != mk && old != "mixed" {
					keyType[m.key] = "mixed"
				}
				if sample == "" && mk == "string" {
					sample = m.key + "=" + clip(t[m.valStart:m.valEnd], 30)
				}
				return true
			})
		} else if sample == "" && k != "array" {
			sample = clip(t[v:valueEnd(t, v)], 30)
		}
	}
	var b strings.Builder
	b.WriteString(strconv.Itoa(len(items)))
	b.WriteString(countKinds(kinds))
	if len(keys) > 0 {
		parts := make([]string, 0, min(len(keys), 8))
		for _, k := range keys[:min(len(keys), 8)] {
			parts = append(parts, k+":"+keyType[k])
		}
		if len(keys) > 8 {
			parts = append(parts, fmt.Sprintf("+%d more", len(keys)-8))
		}
		b.WriteString(" {" + strings.Join(parts, ", ") + "}")
	}
	if sample != "" {
		b.WriteString("; e.g. " + sample)
	}
	return b.String()
}

// countKinds renders {"object": 200} as " objects", {"string": 3, "number": 1} as
// " (3 string, 1 number)".
func countKinds(kinds map[string]int) string {
	if len(kinds) == 1 {
		for k, n := range kinds {
			return " " + plural(n, k, k+"s")
		}
	}
	names := make([]string, 0, len(kinds))
	for k := range kinds {
		names = append(names, k)
	}
	sort.Strings(names)
	parts := make([]string, len(names))
	for i, k := range names {
		parts[i] = strconv.Itoa(kinds[k]) + " " + k
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

const llmSystem = "You index documents. For the text you are given, answer with exactly two lines: " +
	"first a title of at most 8 words, then a one-sentence summary of at most 30 words. No other text."

// llmSummaries asks the LLM for a title and summary of each top-level prose section, a few at a
// time, each answer cached by the hash of what was asked. Sections it cannot do keep their
// structural summary. It reports whether a request failed (rather than being answered badly),
// so the result is worth making again later.
func llmSummaries(ctx context.Context, t string, sections []Section, env Env, into map[string]string) (failed bool) {
	ctx, cancel := context.WithTimeout(ctx, llmSummaryBudget)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	sem := make(chan struct{}, llmParallel)
	for i := range sections {
		if i >= maxLLMSections {
			break
		}
		s := &sections[i]
		switch s.Kind {
		case KindHeading, KindProse, KindPage, KindIntro, KindLines:
		default:
			continue
		}
		text := s.Text(t)
		prompt := text[:runeStart(text, min(len(text), llmInputBytes))]
		sum := sha256.Sum256([]byte(llmSystem + "\x00" + prompt))
		key := "llm-summary-" + hex.EncodeToString(sum[:])
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			var answer string
			if env.Cache != nil {
				if v, ok := env.Cache.Get(key); ok {
					answer = string(v)
				}
			}
			if answer == "" {
				a, err := env.LLM.Complete(ctx, llmSystem, prompt)
				if err != nil {
					env.Log.Warn("pipeline: LLM summary failed; using the structural summary", "section", s.ID, "err", err)
					mu.Lock()
					failed = true
					mu.Unlock()
					return
				}
				answer = a
			}
			title, summary, ok := parseTitleSummary(answer)
			if !ok {
				env.Log.Warn("pipeline: LLM summary unusable; using the structural summary", "section", s.ID, "bytes", len(answer))
				return
			}
			if env.Cache != nil {
				env.Cache.Put(key, []byte(answer))
			}
			mu.Lock()
			defer mu.Unlock()
			into[s.ID] = summary
			switch {
			case s.Kind == KindPage && !strings.Contains(s.Title, ": "):
				s.Title = clip(s.Title+": "+title, 80)
			case s.Kind == KindProse || s.Kind == KindLines:
				s.Title = title
			}
		}()
	}
	wg.Wait()
	return failed
}

// parseTitleSummary reads the LLM's two-line answer.
func parseTitleSummary(a string) (title, summary string, ok bool) {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(a), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) != 2 || len(lines[0]) > 120 || len(lines[1]) > 400 {
		return "", "", false
	}
	return clip(strings.Trim(lines[0], `"*# `), 80), clip(lines[1], 200), true
}
