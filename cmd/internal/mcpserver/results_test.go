package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
)

// A result carries a prompt (the gate then never sends it again) only when it holds all of the
// content the gate would send.
func TestResultsCarried(t *testing.T) {
	body, link, web := "Body.", "mcp+docs:file:///rules.md", "https://example.com"
	one := func(pages int, status string) PromptResult {
		return PromptResult{Prompt: promptlib.Prompt{ID: "p"}, Page: 1, Pages: pages, LinkStatus: status}
	}
	for _, tt := range []struct {
		name string
		res  interface{ carried() []string }
		want []string
	}{
		{"a whole prompt", one(1, ""), []string{"p"}},
		{"a linked prompt read from its upstream", one(1, linkOK), []string{"p"}},
		{"one page of several", one(3, ""), nil},
		{"a dead link's stored body", one(1, linkDead), nil},
		{"a page with content", PromptsResult{Prompts: []PromptItem{
			{ID: "a", Content: &body},
			{ID: "b"},                             // summary only
			{ID: "c", ContentOmitted: true},       // over the result limit
			{ID: "d", Content: &body, URL: &link}, // the stored body, not the linked resource
			{ID: "e", Content: &body, URL: &web},  // an ordinary url
		}}, []string{"a", "e"}},
	} {
		if got := tt.res.carried(); !slices.Equal(got, tt.want) {
			t.Errorf("%s: carried %v, want %v", tt.name, got, tt.want)
		}
	}
}

// A body too large for any page is omitted where it stands, and the page goes on filling: ending
// the page before it only put it first on the next page, omitted there all the same. A body that
// fits a page of its own, but not what is left of this one, ends the page.
func TestPageOmitsOnlyBodiesNoPageHolds(t *testing.T) {
	item := func(id string, bodyBytes int) dbread.Listed {
		body := strings.Repeat("x", bodyBytes)
		return dbread.Listed{Prompt: promptlib.Prompt{ID: id, Title: "T " + id, Content: body}, ContentBytes: len(body)}
	}
	ps := []dbread.Listed{item("a", 10), item("b", 10), item("huge", 150_000), item("c", 10), item("big", 60_000), item("d", 60_000), item("e", 10)}
	page := pageOf(ps, len(ps), 0, 50, true)
	var got []string
	for _, it := range page.Prompts {
		switch {
		case it.ContentOmitted && it.Content == nil:
			got = append(got, it.ID+":omitted")
		case it.Content != nil && len(*it.Content) == it.ContentBytes:
			got = append(got, it.ID)
		default:
			t.Errorf("%s: content cut or missing", it.ID)
		}
	}
	if want := []string{"a", "b", "huge:omitted", "c", "big"}; !slices.Equal(got, want) {
		t.Errorf("page %v, want %v", got, want)
	}
	if next := page.NextOffset; next == nil || *next != 5 {
		t.Errorf("nextOffset %s, want 5 (d fits a page of its own)", encodingJSON(t, next))
	}
}

// A page of prompts whose titles, summaries and bodies are dense in tokens (ids, hashes) ends at
// the token bound, well before the byte bound: 500 summaries were 26,000 tokens by Anthropic's
// tokenizer, over Claude Code's 25,000, and 500 with their bodies 31,665.
func TestPageStaysWithinTheTokenBound(t *testing.T) {
	folder := "2458D189-E8B0-40B6-94B6-FA41FB871E7B"
	var ps []dbread.Listed
	for i := range 500 {
		id := fmt.Sprintf("%08X-78D2-4A98-9A86-D48BF33BC3A1", i*7919)
		ps = append(ps, dbread.Listed{Prompt: promptlib.Prompt{ID: id, Title: "Deploy " + id[:13], FolderID: &folder,
			Content: "Pin " + strings.Repeat(id+" ", 3)}, Summary: "Roll back build " + strings.Repeat(id, 2), ContentBytes: 115})
	}
	for _, withContent := range []bool{false, true} {
		page := pageOf(ps, len(ps), 0, 500, withContent)
		raw, err := json.Marshal(page)
		if err != nil {
			t.Fatal(err)
		}
		n := promptlib.Tokens(string(raw))
		if n > MaxResultTokens || len(raw) > MaxResultBytes*3/4 || page.NextOffset == nil || *page.NextOffset != len(page.Prompts) {
			t.Errorf("with content %v: %d of 500 prompts, %d bytes, about %d tokens; want a page ended within %d tokens, not by its bytes",
				withContent, len(page.Prompts), len(raw), n, MaxResultTokens)
		}
		for _, it := range page.Prompts {
			if withContent != (it.Content != nil) || it.ContentOmitted {
				t.Fatalf("with content %v: %s has content %v, omitted %v", withContent, it.ID, it.Content != nil, it.ContentOmitted)
			}
		}
	}
}

func FuzzJSONTextLen(f *testing.F) {
	for _, s := range []string{"", "plain", `a "quoted" \ line` + "\n\t", "\x01\x1f\x7f", "<&>", "é日本👨‍💻", "\u2028\u2029", "\xff\xfe a", "12345678\x019"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := jsonTextLen(s), len(encodingJSON(t, s))-2; got != want {
			t.Fatalf("jsonTextLen(%q) = %d, want %d", s, got, want)
		}
	})
}

// Every page of a long body fits a result whatever the body is made of: control characters take
// six bytes each in the result's JSON, so counting bytes alone made 240 KB pages of them.
func TestBodyPagesFitTheResult(t *testing.T) {
	for name, body := range map[string]string{
		"prose":              strings.Repeat("A line of ordinary prose, with \"quotes\".\n", 5000),
		"control characters": strings.Repeat("\x01", 99_999) + "x",
		"quotes":             strings.Repeat(`"`, 150_000),
		"emoji":              strings.Repeat("👨‍💻", 20_000),
		"invalid bytes":      strings.Repeat("\xff", 60_000),
		"line separators":    strings.Repeat("\u2028", 50_000),
		"ids":                strings.Repeat(`"23A25293-78D2-4A98-9A86-D48BF33BC3A1",`, 5000),
	} {
		pages := bodyPages(body)
		if strings.Join(pages, "") != body {
			t.Errorf("%s: the pages do not join to the body", name)
		}
		for i, page := range pages {
			res := PromptResult{Prompt: promptlib.Prompt{ID: "00000000-0000-4000-8000-000000000001", Title: "T", Content: page},
				ContentBytes: len(body), Page: i + 1, Pages: len(pages)}
			raw, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			if len(raw) > MaxResultBytes {
				t.Errorf("%s: page %d of %d is %d bytes of text, over %d", name, i+1, len(pages), len(raw), MaxResultBytes)
			}
			if n := promptlib.Tokens(page); n > bodyPageTokens {
				t.Errorf("%s: page %d of %d is about %d tokens, over %d", name, i+1, len(pages), n, bodyPageTokens)
			}
			if i < len(pages)-1 && (len(page) == 0 || !utf8.ValidString(page) && name != "invalid bytes") {
				t.Errorf("%s: page %d is empty or splits a character", name, i+1)
			}
		}
	}
}
