package pipeline

import (
	"fmt"
	"sort"
	"strings"
)

// Starters for `mcpctl create stage` and `mcpctl create proxymodel`: working files that pass
// content through unchanged and show what a stage receives, for a user to edit.

// StageLangs lists the languages StageStarter writes.
var StageLangs = []string{"go", "python", "sh"}

const shStarter = `#!/bin/sh
# {{NAME}}: a custom mcpctl content stage.
#
# mcpctl runs this file with the content on stdin and the context as JSON in
# $MCPCTL_STAGE_CONTEXT: {"stage", "type", "source", "project", "config"}. Print the new content
# on stdout as plain text (JSON, too, is plain text), or as the JSON answer {"mcpctl":
# "stage/1", "content": "...", "sections": [{"title": "...", "offset": 0, "bytes": 10}],
# "metadata": {}} (sections are byte ranges of the input). Exit non-zero, print nothing, or run
# past timeoutMs (default 5000) and mcpctl withholds the content, with an error naming this
# stage, rather than send it without this stage's work; set onFailure: passthrough in the
# stage's config if that work is optional. Try it: mcpctl pipeline run --model MODEL --verbose FILE
#
# This starter passes the content through and shows its context on stderr.
echo "{{NAME}} received context: $MCPCTL_STAGE_CONTEXT" >&2
cat
`

const pyStarter = `#!/usr/bin/env python3
"""{{NAME}}: a custom mcpctl content stage.

mcpctl runs this file with the content on stdin and the context as JSON in
$MCPCTL_STAGE_CONTEXT: {"stage", "type", "source", "project", "config"}. Print the new content
on stdout as plain text (JSON, too, is plain text), or as the JSON answer {"mcpctl": "stage/1",
"content": "...", "sections": [{"title": "...", "offset": 0, "bytes": 10}], "metadata": {}}
(sections are byte ranges of the input, in UTF-8 bytes). Exit non-zero, print nothing, or run
past timeoutMs (default 5000) and mcpctl withholds the content, with an error naming this stage,
rather than send it without this stage's work; set onFailure: passthrough in the stage's config
if that work is optional. Try it: mcpctl pipeline run --model MODEL --json FILE

This starter passes the content through and shows its context in the metadata.
"""
import json
import os
import sys

content = sys.stdin.read()
context = json.loads(os.environ.get("MCPCTL_STAGE_CONTEXT", "{}"))
json.dump({"mcpctl": "stage/1", "content": content, "metadata": {"{{NAME}}": {"context": context}}}, sys.stdout)
`

const goStarter = `// Command {{NAME}} is a custom mcpctl content stage.
//
// mcpctl runs the built binary with the content on stdin and the context as JSON in
// $MCPCTL_STAGE_CONTEXT: {"stage", "type", "source", "project", "config"}. Print the new content
// on stdout as plain text (JSON, too, is plain text), or as the JSON answer {"mcpctl":
// "stage/1", "content": "...", "sections": [{"title": "...", "offset": 0, "bytes": 10}],
// "metadata": {}} (sections are byte ranges of the input). Exit non-zero, print nothing, or run
// past timeoutMs (default 5000) and mcpctl withholds the content, with an error naming this
// stage, rather than send it without this stage's work; set onFailure: passthrough in the
// stage's config if that work is optional. Rebuild after an edit:
//
//	go build -o {{BINARY}} .
//
// This starter passes the content through and shows its context in the metadata.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
)

func main() {
	content, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "{{NAME}}:", err)
		os.Exit(1)
	}
	var context map[string]any
	_ = json.Unmarshal([]byte(os.Getenv("MCPCTL_STAGE_CONTEXT")), &context)
	out := map[string]any{
		"mcpctl":   "stage/1", // marks this as the JSON answer, not plain text
		"content":  string(content),
		"metadata": map[string]any{"{{NAME}}": map[string]any{"context": context}},
	}
	if err := json.NewEncoder(os.Stdout).Encode(out); err != nil {
		os.Exit(1)
	}
}
`

// StageStarter returns the text of a starter stage in lang ("sh", "python" or "go") named name.
// binary is where a Go stage is built to, for its comment.
func StageStarter(name, lang, binary string) (string, error) {
	var t string
	switch lang {
	case "sh":
		t = shStarter
	case "python":
		t = pyStarter
	case "go":
		t = goStarter
	default:
		return "", fmt.Errorf("pipeline: no starter in %q; the languages are %s", lang, strings.Join(StageLangs, ", "))
	}
	return strings.NewReplacer("{{NAME}}", name, "{{BINARY}}", binary).Replace(t), nil
}

// ValidStageName reports whether name can name a custom stage: letters, digits, '.', '_' and
// '-', not a built-in's name.
func ValidStageName(name string) bool {
	return stageName.MatchString(name) && builtinStages[name] == nil
}

// ValidModelName reports whether name can name a proxymodel file.
func ValidModelName(name string) bool { return modelName.MatchString(name) }

// ModelStarter returns a starter proxymodel file named name: the subindex stages, with every
// field written out and explained.
func ModelStarter(name string) string {
	stages := BuiltinStageNames()
	sort.Strings(stages)
	return fmt.Sprintf(`# %[1]s: an mcpctl proxymodel. Use it in a project with proxyModel: %[1]s, or try it with
#   mcpctl pipeline run --model %[1]s FILE
# Edits apply to the next request; no restart needed.
name: %[1]s
description: Big content becomes a table of its sections; each section is one read_section away.
controller: gate        # gate: also for gated sessions' briefings; none: content only
appliesTo: [toolResult, resource, prompt, briefing]
minBytes: 4096          # smaller content passes through untouched
stages:                 # built-in: %[2]s; or an executable in stages/
  - type: section-split
    config:
      maxBytes: 4000    # a section over this is split further where its structure allows
      maxSections: 12   # more siblings than this are grouped into ranges (code: 4x this)
  - type: summarize-tree
    config:
      budgetBytes: 1500 # how long the table may grow
`, name, strings.Join(stages, ", "))
}
