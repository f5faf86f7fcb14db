package pipeline

import (
	"fmt"
	"strings"
	"testing"
)

// Fixtures of every content kind section-split handles, built in code so their sizes are known.

// jsonArray is a JSON array of n objects, indented as tools commonly print it.
func jsonArray(tb testing.TB, n int) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("[\n")
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteString(",\n")
		}
		fmt.Fprintf(&b, `  {"id": %d, "name": "flow-%d", "enabled": %v, "tags": ["a", "b"], "owner": "zoë"}`, i, i, i%2 == 0)
	}
	b.WriteString("\n]\n")
	return b.String()
}

// nestedJSON is an object of objects several levels deep.
func nestedJSON(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString(`{"service": "billing", "regions": {`)
	for r := 0; r < 5; r++ {
		if r > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"region-%d": {"zones": [`, r)
		for z := 0; z < 30; z++ {
			if z > 0 {
				b.WriteString(",")
			}
			fmt.Fprintf(&b, `{"zone": "z%d", "hosts": ["h1", "h2", "h3"], "note": "日本語のテキスト %d"}`, z, z)
		}
		b.WriteString(`], "limits": {"cpu": 4, "mem": "8Gi"}}`)
	}
	b.WriteString(`}, "version": 3}`)
	return b.String()
}

func yamlDoc(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("# deployment settings\nname: billing\nreplicas: 3\n")
	b.WriteString("env:\n")
	for i := 0; i < 200; i++ {
		fmt.Fprintf(&b, "  - name: VAR_%d\n    value: \"valeur-%d é\"\n", i, i)
	}
	b.WriteString("# the ports\nports:\n  http: 8080\n  grpc: 9090\nlabels:\n  team: payments\n  tier: backend\n")
	return b.String()
}

func markdownDoc(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("Intro before any heading.\n\n# Guide\n\nThe guide explains things. It is long.\n\n")
	for i := 1; i <= 6; i++ {
		fmt.Fprintf(&b, "## Part %d\n\nPart %d starts here. More words follow.\n\n", i, i)
		for j := 1; j <= 3; j++ {
			fmt.Fprintf(&b, "### Step %d.%d\n\n%s\n\n```sh\n# not a heading\necho %d\n```\n\n", i, j, strings.Repeat("Do the thing carefully — 👍🏽. ", 20), j)
		}
	}
	return b.String()
}

func goSource(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("// Package demo does things.\npackage demo\n\nimport (\n\t\"fmt\"\n\t\"strings\"\n)\n\n")
	for i := 0; i < 60; i++ {
		fmt.Fprintf(&b, "// F%d says hello.\nfunc F%d(s string) string {\n\treturn fmt.Sprint(strings.ToUpper(s), %d)\n}\n\n", i, i, i)
	}
	b.WriteString("type T struct {\n\tA int\n}\n")
	return b.String()
}

func pythonSource(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("#!/usr/bin/env python3\n# a module\nimport os\nimport sys\nfrom pathlib import Path\n\n")
	for i := 0; i < 90; i++ {
		fmt.Fprintf(&b, "@decorator\ndef f%d(x):\n    \"\"\"Return x plus %d.\"\"\"\n    return x + %d\n\n\n", i, i, i)
	}
	b.WriteString("class Thing:\n    def method(self):\n        return 1\n\n\nif __name__ == \"__main__\":\n    f0(1)\n")
	return b.String()
}

func tsSource(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	b.WriteString("import { readFile } from 'fs';\nimport * as path from \"path\";\n\n")
	for i := 0; i < 70; i++ {
		fmt.Fprintf(&b, "/** Adds %d. */\nexport function add%d(x: number): number {\n  return x + %d;\n}\n\n", i, i, i)
	}
	b.WriteString("export interface Shape {\n  area(): number;\n}\n\nexport class Square implements Shape {\n  constructor(private s: number) {}\n  area() { return this.s * this.s; }\n}\n")
	return b.String()
}

func proseDoc(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "Paragraph %d begins with a sentence. %s\n\n", i, strings.Repeat("The quick brown fox jumps over the lazy dog, naïvely. ", 6))
	}
	return b.String()
}

// otherText is none of the known formats: a CSV-like log with no sentences.
func otherText(tb testing.TB) string {
	tb.Helper()
	var b strings.Builder
	for i := 0; i < 2000; i++ {
		fmt.Fprintf(&b, "%d,%x,%d,ok,%d\n", 1700000000+i, i*7919, i%13, i*i)
	}
	return b.String()
}

// contentKinds lists every kind with its expected format.
func contentKinds(tb testing.TB) []struct {
	name string
	text string
	want Format
} {
	return []struct {
		name string
		text string
		want Format
	}{
		{"json array", jsonArray(tb, 2000), FormatJSON},
		{"nested json", nestedJSON(tb), FormatJSON},
		{"yaml", yamlDoc(tb), FormatYAML},
		{"markdown", markdownDoc(tb), FormatMarkdown},
		{"go", goSource(tb), FormatGo},
		{"python", pythonSource(tb), FormatPython},
		{"typescript", tsSource(tb), FormatTypeScript},
		{"prose", proseDoc(tb), FormatProse},
		{"other", otherText(tb), FormatText},
	}
}
