package promptlib

import (
	"strings"
	"time"

	"github.com/google/uuid"
)

// Starter is the handful of useful prompts a new standalone library begins with, so that the
// first session has something real to list, search and render.
func Starter() Library {
	now := Time{time.Now().UTC().Truncate(time.Second)}
	id := func() string { return strings.ToUpper(uuid.NewString()) }
	eng := Folder{ID: id(), Name: "Engineering", Position: 0, CreatedAt: now, UpdatedAt: now}
	rev := Folder{ID: id(), Name: "Reviews", ParentID: Ptr(eng.ID), Position: 0, CreatedAt: now, UpdatedAt: now}
	wri := Folder{ID: id(), Name: "Writing", Position: 1, CreatedAt: now, UpdatedAt: now}
	p := func(folder *Folder, title, emoji, color, body string) Prompt {
		pr := Prompt{ID: id(), Title: title, Content: body, CreatedAt: now, UpdatedAt: now}
		if folder != nil {
			pr.FolderID = Ptr(folder.ID)
		}
		if emoji != "" {
			pr.Emoji = Ptr(emoji)
		}
		if color != "" {
			pr.Color = Ptr(color)
		}
		return pr
	}
	return Library{
		Folders: []Folder{eng, rev, wri},
		Prompts: []Prompt{
			p(&rev, "Code Review", "👨‍💻", "blue", `Review this {{language}} change as a careful senior engineer would.

## Focus
- correctness first: edge cases, error handling, concurrency
- then readability: names, structure, comments that say why
- tone: {{tone|friendly}} and specific; quote the line for every finding

## Output
A one-paragraph summary, then findings ordered by severity, each with a suggested fix.`),
			p(&rev, "Security Review", "🔒", "red", `Audit this code for security problems before it ships.

## Checklist
- input validation at every boundary; injection (SQL, shell, path)
- secrets in code, logs or error messages
- authentication and authorization on every entry point
- unsafe deserialization, SSRF, missing rate limits

Rate each finding critical / high / medium / low and explain the attack in one sentence.`),
			p(&eng, "Write Tests", "🧪", "green", `Write table-driven tests in {{language|Go}} for the code below.

Cover the happy path, each error path and the edge cases (empty, one, many, maximum). Every test must be able to fail: assert what a user would notice, not implementation details.`),
			p(&eng, "Commit Message", "📝", "", `Write a commit message for the staged diff.

A subject line under 60 characters in the imperative mood, a blank line, then a body that says why the change was made and anything a reviewer should look at. No bullet list of files.`),
			p(&eng, "Explain This Code", "📚", "purple", `Explain what this code does to {{audience|a new teammate}}.

Start with its purpose in one sentence, then walk through the flow, then point out anything surprising.`),
			p(&wri, "Release Notes", "🚀", "orange", `Turn these merged changes into release notes for {{product}} users.

Group them as New, Improved and Fixed; one line each, written for users, not developers.`),
			p(nil, "Summarize", "", "yellow", `Summarize the text below in {{length|five}} bullet points for a busy reader. Keep numbers and names exact.`),
		},
	}
}
