package promptlib

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/google/uuid"
)

// Sample generates a library of n prompts across nested folders, deterministic for a seed. It
// has the shape of a real Prompteka library: upper-case ids as the app writes them, markdown
// bodies with headings, {{placeholders}}, non-ASCII text, multi-code-point emoji, every color,
// and for n ≥ 500 a few prompts of 50–100 KB.
func Sample(n int, seed uint64) Library {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	newID := func() string {
		var b [16]byte
		for i := range b {
			b[i] = byte(r.UintN(256))
		}
		u, _ := uuid.FromBytes(b[:])
		u[6] = (u[6] & 0x0f) | 0x40 // version 4
		u[8] = (u[8] & 0x3f) | 0x80 // RFC 4122 variant
		return strings.ToUpper(u.String())
	}
	base := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	at := func() Time { return Time{base.Add(time.Duration(r.Int64N(600*24*3600)) * time.Second)} }

	var lib Library
	// Folder tree: top-level areas with up to two levels of subfolders, about one folder per 25
	// prompts, never fewer than the areas.
	nFolders := max(len(sampleAreas), n/25)
	for i := 0; i < nFolders; i++ {
		f := Folder{ID: newID(), CreatedAt: at()}
		f.UpdatedAt = f.CreatedAt
		if i < len(sampleAreas) {
			f.Name = sampleAreas[i]
		} else {
			parent := lib.Folders[r.IntN(len(lib.Folders))]
			f.ParentID = Ptr(parent.ID)
			f.Name = fmt.Sprintf("%s %d", sampleTopics[r.IntN(len(sampleTopics))], i)
		}
		f.Position = i
		lib.Folders = append(lib.Folders, f)
	}
	for i := 0; i < n; i++ {
		topic := sampleTopics[r.IntN(len(sampleTopics))]
		verb := sampleVerbs[r.IntN(len(sampleVerbs))]
		lang := sampleLangs[r.IntN(len(sampleLangs))]
		p := Prompt{
			ID:        newID(),
			Title:     fmt.Sprintf("%s %s in %s #%d", verb, topic, lang, i+1),
			CreatedAt: at(),
		}
		p.UpdatedAt = Time{p.CreatedAt.Add(time.Duration(r.IntN(3600)) * time.Second)}
		if r.IntN(10) > 0 { // a tenth of the prompts sit at the top level
			p.FolderID = Ptr(lib.Folders[r.IntN(len(lib.Folders))].ID)
		}
		if r.IntN(3) == 0 {
			p.Emoji = Ptr(sampleEmoji[r.IntN(len(sampleEmoji))])
		}
		if r.IntN(3) == 0 {
			p.Color = Ptr(ColorNames[r.IntN(len(ColorNames))])
		}
		if r.IntN(5) == 0 {
			p.URL = Ptr(fmt.Sprintf("https://example.com/guides/%s/%d", strings.ToLower(strings.ReplaceAll(topic, " ", "-")), i))
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s the %s of this {{language|%s}} code, as a senior reviewer would. %s\n\n",
			verb, strings.ToLower(topic), lang, sampleNotes[r.IntN(len(sampleNotes))])
		fmt.Fprintf(&b, "## Context\n\nThe project is {{project}}. Focus on %s; keep the tone {{tone|friendly}}.\n\n", strings.ToLower(topic))
		fmt.Fprintf(&b, "## Checklist\n\n- %s\n- %s\n- %s\n\n", sampleChecks[r.IntN(len(sampleChecks))],
			sampleChecks[r.IntN(len(sampleChecks))], sampleChecks[r.IntN(len(sampleChecks))])
		b.WriteString("## Output\n\nA short summary, then findings ordered by severity.\n")
		if n >= 500 && i%(n/4) == 7 { // a few large prompts, 50–100 KB
			target := 50_000 + r.IntN(50_000)
			for j := 0; b.Len() < target; j++ {
				fmt.Fprintf(&b, "\n### Appendix %d\n\n%s %s\n", j+1, sampleNotes[j%len(sampleNotes)], strings.Repeat("Detail. ", 40))
			}
		}
		p.Content = b.String()
		lib.Prompts = append(lib.Prompts, p)
	}
	return lib
}

var (
	sampleAreas  = []string{"Engineering", "Security", "Writing", "Données & Analyse", "日本語チーム", "Personal"}
	sampleTopics = []string{"Error Handling", "Concurrency", "SQL Queries", "API Design", "Test Coverage", "Logging",
		"Caching", "Authentication", "Naming", "Performance", "Accessibility", "Migrations", "Dependency Updates",
		"Release Notes", "Onboarding Docs", "Incident Review", "Threat Model", "Rate Limiting"}
	sampleVerbs = []string{"Review", "Refactor", "Explain", "Document", "Audit", "Summarize", "Improve", "Test"}
	sampleLangs = []string{"Go", "Rust", "TypeScript", "Python", "SQL", "Swift", "Kotlin", "Elixir"}
	sampleNotes = []string{
		"Point out anything that would surprise a new maintainer.",
		"Prefer small, reviewable suggestions over rewrites.",
		"Mention the trade-offs of each alternative you propose.",
		"Écrivez la synthèse en français si l'auteur le demande.",
		"Flag anything that could lose or corrupt user data — that matters most.",
		"日本語での説明も歓迎します。",
		"Cite the exact line for every finding.",
	}
	sampleChecks = []string{"Are errors wrapped with context?", "Is every goroutine owned and stopped?",
		"Are inputs validated at the boundary?", "Do names say what things are for?",
		"Is there a test that would fail without this change?", "Is the happy path readable top to bottom?",
		"Are secrets kept out of logs?", "Is the public API documented?"}
	sampleEmoji = []string{"📝", "🔒", "🚀", "👨‍💻", "🇫🇷", "👍🏽", "🧪", "⚙️", "📚", "🐛"}
)
