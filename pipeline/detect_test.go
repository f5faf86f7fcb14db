package pipeline

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestDetectMarkdownOrYAML: text of "key: value" lines under markdown headings is markdown
// (a status report read as YAML was split by its keys, its headings and bullets lost), while
// YAML files whose comments look like headings stay YAML.
func TestDetectMarkdownOrYAML(t *testing.T) {
	logLines := func() string {
		var b strings.Builder
		for i := 1; i <= 40; i++ {
			fmt.Fprintf(&b, "line %d: token=%x user=u%d status=ok\n", i, i*7919, i%5)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, text string
		want       Format
	}{
		{"status report", "# Release notes\n\nStatus: done\nOwner: bob\nDue: 2024-06-01\n\n- shipped the parser\n- fixed the cache\n\n## Notes\n\nNothing else.\n", FormatMarkdown},
		{"status report of keys and headings", "# Weekly status\n\nStatus: green\nOwner: alice\nReviewer: bob\n\n## Risks\n\nNone: all clear\nBudget: on track\n", FormatMarkdown},
		{"setext title over keys", "Release notes\n=============\n\nStatus: done\nOwner: bob\nVersion: 1.2\n", FormatMarkdown},
		{"keys with a fence", "Status: done\nOwner: bob\nCommand: build\n\n```\nmake build\n```\n", FormatMarkdown},
		{"keys with underscore bold", "Status: done, see __the notes__.\nOwner: bob\nTeam: core\n", FormatProse},
		{"keys with a link and emphasis", "Status: done, see **the notes**\nOwner: bob, see [his page](https://example.com/bob)\nTeam: core\n", FormatText},
		{"k8s manifest", "# Deployment for the api\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: api\n  labels:\n    app: api\nspec:\n  # Three replicas behind the service\n  replicas: 3\n  selector:\n    matchLabels:\n      app: api\n  template:\n    metadata:\n      labels:\n        app: api\n    spec:\n      containers:\n        - name: api\n          image: example/api:1.4\n          ports:\n            - containerPort: 8080\n---\n# Service for the api\napiVersion: v1\nkind: Service\nmetadata:\n  name: api\nspec:\n  ports:\n    - port: 80\n      targetPort: 8080\n", FormatYAML},
		{"github workflow", "# CI for every push\nname: CI\n\n# Run on pushes and pull requests to main\non:\n  push:\n    branches: [main]\n  pull_request:\n\njobs:\n  test:\n    runs-on: ubuntu-latest\n    steps:\n      # Check the code out\n      - uses: actions/checkout@v4\n      - uses: actions/setup-go@v5\n        with:\n          go-version: '1.24'\n      - run: go test ./...\n", FormatYAML},
		{"docker compose", "# Local development stack\n\nservices:\n  # The web front end\n  web:\n    image: nginx:1.27\n    ports:\n      - \"8080:80\"\n  # The database\n  db:\n    image: postgres:16\n    environment:\n      POSTGRES_PASSWORD: example\n", FormatYAML},
		{"helm values", "# Default values for api.\n# This is a YAML-formatted file.\n\n## @section Global parameters\n\n## @param replicaCount Number of replicas\nreplicaCount: 1\n\nimage:\n  ## @param image.repository Image repository\n  repository: nginx\n  tag: \"1.27\"\n\n## @param service.port Service port\nservice:\n  type: ClusterIP\n  port: 80\n", FormatYAML},
		{"funding file", "# These are supported funding model platforms\n\ngithub: # Replace with up to 4 GitHub Sponsors-enabled usernames e.g., [user1, user2]\npatreon: mattn # Replace with a single Patreon username\nopen_collective: # Replace with a single Open Collective username\nko_fi: # Replace with a single Ko-fi username\ncustom: # Replace with up to 4 custom sponsorship URLs\n", FormatYAML},
		{"flat yaml under a comment set off", "# Service settings\n\nname: api\nreplicas: 3\nimage: example/api:1.4\nport: 8080\n", FormatYAML},
		{"flat yaml under a comment", "# Deployment for the api\nname: api\nreplicas: 3\nimage: example/api:1.4\nport: 8080\n", FormatYAML},
		{"log lines of key=value", logLines(), FormatText},
		{"python package yaml", "name: pkg\nversion: 1.0\nfiles:\n  - __init__.py\n  - main.py\nlicense: MIT\n", FormatYAML},
		// A list item's next line is indented as a YAML item's next key is: it is no nesting.
		{"status report of list items with a second line", "# Weekly status\n\n## API\n\n- Status: green\n  Owner: bob\n- Risk: none\n  Reviewer: carol\n\n## Billing\n\n- Status: amber\n  Owner: alice\n", FormatMarkdown},
		{"steps with a paragraph under an item, under front matter", "---\ndescription: File an issue\n---\n\n## Steps\n\n1. **Pick the template** for the issue:\n   The template asks for: a title and a body.\n2. **File it**:\n   Run: gh issue create\n\n## Notes\n\n- Owner: bob\n", FormatMarkdown},
		{"pre-commit hooks", "# Hooks for pre-commit\n- id: gofmt\n  name: gofmt\n  entry: gofmt -l\n  language: golang\n- id: vet\n  name: go vet\n  entry: go vet\n  language: golang\n", FormatYAML},
		{"ansible tasks", "- name: Install nginx\n  apt:\n    name: nginx\n    state: present\n- name: Start nginx\n  service:\n    name: nginx\n    state: started\n", FormatYAML},
		{"pod containers", "apiVersion: v1\nkind: Pod\nspec:\n  containers:\n  - name: web\n    image: nginx\n  - name: sidecar\n    image: envoy\n", FormatYAML},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Detect(tc.text); got != tc.want {
				t.Errorf("Detect = %q, want %q", got, tc.want)
			}
		})
	}
}

// A tool's summary in front of its JSON (serve joins a result's text to the JSON of its
// structuredContent) is split as the JSON alone is, by element, with the summary one section
// whose text the index shows whole: it was split by lines and bytes, a 128 KB array in parts
// titled "line 3, bytes 11947–23905".
func TestJSONAfterASummaryIsSplitAsJSON(t *testing.T) {
	summary := "Found 1400 flows. The next page: cursor=c2FtcGxl, with limit 1400.\n\n"
	array := jsonArray(t, 1400)
	text := summary + array
	if f := Detect(text); f != FormatJSON {
		t.Fatalf("Detect = %q, want json", f)
	}
	f, sections := newSplitter(nil).split(context.Background(), text)
	if f != FormatJSON || len(sections) < 3 {
		t.Fatalf("split: %q in %d sections, want json in the summary and ranges of elements", f, len(sections))
	}
	checkTiling(t, text, sections)
	if got := sections[0]; got.Kind != KindPreamble || got.Text(text) != summary {
		t.Errorf("first section %q (%s) holds %q, want the summary alone", got.Title, got.Kind, got.Text(text))
	}
	if got := sections[1]; got.Start != len(summary) || len(got.Children) == 0 || got.Children[0].Kind != KindJSONElement {
		t.Errorf("second section %q starts at %d with %d children, want a range of elements from the array's bracket at %d", got.Title, got.Start, len(got.Children), len(summary))
	}

	te := newTestEngine(t)
	out := transform(t, te.Engine, "subindex", text)
	for _, want := range []string{"JSON array of 1400 elements", strings.TrimSpace(strings.ReplaceAll(summary, "\n", " "))} {
		if !strings.Contains(out.Text, want) {
			t.Errorf("the index lacks %q:\n%s", want, out.Text)
		}
	}
	checkDrillDown(t, te.Engine, out, text)

	// Text with JSON in it that is not a summary in front of one document stays what it is.
	for _, tc := range []struct {
		name, text string
	}{
		{"a log of bracketed levels", strings.Repeat("[INFO] started\n[WARN] slow\n", 50)},
		{"JSON lines", "events:\n" + strings.Repeat(`{"event": "start", "n": 1}`+"\n", 50)},
		{"a report with JSON in a fence", "# Report\n\nThe data:\n\n```json\n" + array + "```\n"},
		{"a long text in front", strings.Repeat("A line of the report that goes on.\n", 200) + array},
		{"JSON with text after it", summary + array + "\nThat was all.\n"},
		{"a report ending in a small example", strings.Repeat("A line of the report.\n", 100) + "[1]\n"},
	} {
		if f := Detect(tc.text); f == FormatJSON {
			t.Errorf("%s: Detect = json", tc.name)
		}
	}
}
