package promptlib

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

func TestPlaceholders(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []Placeholder
	}{
		{"none", "plain text", nil},
		{"required", "Review {{language}} code", []Placeholder{
			{Name: "language", Required: true, Uses: []PlaceholderUse{{Line: 1}}}}},
		{"optional with default", "Tone: {{tone|friendly}}", []Placeholder{
			{Name: "tone", Default: "friendly", HasDefault: true, Uses: []PlaceholderUse{{Line: 1}}}}},
		{"empty default", "{{x|}}", []Placeholder{
			{Name: "x", HasDefault: true, Uses: []PlaceholderUse{{Line: 1}}}}},
		{"blanks trimmed", "{{ tone | very friendly }}", []Placeholder{
			{Name: "tone", Default: "very friendly", HasDefault: true, Uses: []PlaceholderUse{{Line: 1}}}}},
		{"used twice is one argument, required wins", "{{a|x}} and\n{{a}}", []Placeholder{
			{Name: "a", Required: true, Default: "x", HasDefault: true, Uses: []PlaceholderUse{{Line: 1}, {Line: 2}}}}},
		{"first default wins", "{{a|one}} {{a|two}}", []Placeholder{
			{Name: "a", Default: "one", HasDefault: true, Uses: []PlaceholderUse{{Line: 1}, {Line: 1}}}}},
		{"order of first use", "{{b}} {{a}} {{b}}", []Placeholder{
			{Name: "b", Required: true, Uses: []PlaceholderUse{{Line: 1}, {Line: 1}}},
			{Name: "a", Required: true, Uses: []PlaceholderUse{{Line: 1}}}}},
		{"headings and lines", "# Title\nintro\n## Context\n\nproject {{project}}\n```\n# not a heading {{x}}\n```\n", []Placeholder{
			{Name: "project", Required: true, Uses: []PlaceholderUse{{Line: 5, Heading: "## Context"}}},
			{Name: "x", Required: true, Uses: []PlaceholderUse{{Line: 7, Heading: "## Context"}}}}},
		// Fences as Fence reads them: a "#" line inside code is a comment, not a heading.
		{"a tilde fence holds no heading", "## Context\n~~~sh\n# install {{tool}}\n~~~\n", []Placeholder{
			{Name: "tool", Required: true, Uses: []PlaceholderUse{{Line: 3, Heading: "## Context"}}}}},
		{"a longer fence holds a ``` line", "## Context\n````md\n```\n# Not a heading\n{{x}}\n````\n", []Placeholder{
			{Name: "x", Required: true, Uses: []PlaceholderUse{{Line: 5, Heading: "## Context"}}}}},
		{"a ``` line inside a tilde fence", "## Context\n~~~\n```\n~~~\n# Next\n{{x}}\n", []Placeholder{
			{Name: "x", Required: true, Uses: []PlaceholderUse{{Line: 6, Heading: "# Next"}}}}},
		{"inline code is no fence", "```x``` opens nothing\n# Next\n{{x}}\n", []Placeholder{
			{Name: "x", Required: true, Uses: []PlaceholderUse{{Line: 3, Heading: "# Next"}}}}},
		{"placeholder in a heading", "## Review {{lang}}", []Placeholder{
			{Name: "lang", Required: true, Uses: []PlaceholderUse{{Line: 1, Heading: "## Review {{lang}}"}}}}},
		{"triple braces find the inner placeholder", "{{{name}}}", []Placeholder{
			{Name: "name", Required: true, Uses: []PlaceholderUse{{Line: 1}}}}},
		{"not placeholders stay literal", "{{}} {{ }} {{a b}} {{1a}} {{#each}} {{a|{b}}} {{a|x\ny}} {{" + strings.Repeat("a", 65) + "}} {\"k\": {\"v\": 1}}", nil},
		{"longest name", "{{" + strings.Repeat("a", 64) + "}}", []Placeholder{
			{Name: strings.Repeat("a", 64), Required: true, Uses: []PlaceholderUse{{Line: 1}}}}},
		{"unclosed", "{{language", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Placeholders(tt.body)
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Placeholders(%q)\n got %+v\nwant %+v", tt.body, got, tt.want)
			}
		})
	}
}

func TestPlaceholderWhere(t *testing.T) {
	tests := []struct {
		body string
		want string
	}{
		{"{{a}}", "line 1"},
		{"## Context\n{{a}}\n## Output\n{{a}}", `line 2 under "## Context", line 4 under "## Output"`},
		{"{{a}}\n{{a}}\n{{a}}\n{{a}}\n{{a}}", "line 1, line 2, line 3, and 2 more"},
		{"{{a}} and {{a}}, {{a|x}}\n\n{{a}}", "line 1, line 3"}, // each line once
		{"{{a}}{{a}}\n{{a}}\n{{a}}{{a}}\n{{a}}\n{{a}}", "line 1, line 2, line 3, and 2 more"},
	}
	for _, tt := range tests {
		ps := Placeholders(tt.body)
		if len(ps) != 1 {
			t.Fatalf("Placeholders(%q): got %d arguments, want 1", tt.body, len(ps))
		}
		if got := ps[0].Where(); got != tt.want {
			t.Errorf("Where for %q: got %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestPlaceholderRender(t *testing.T) {
	const body = "Review this {{language}} code; keep the tone {{tone|friendly}}. Again: {{language}}."
	tests := []struct {
		name    string
		body    string
		values  map[string]string
		want    string
		missing []string
		unknown []string
	}{
		{"all given", body, map[string]string{"language": "Go", "tone": "dry"},
			"Review this Go code; keep the tone dry. Again: Go.", nil, nil},
		{"default for omitted optional", body, map[string]string{"language": "Go"},
			"Review this Go code; keep the tone friendly. Again: Go.", nil, nil},
		{"empty optional takes the default", body, map[string]string{"language": "Go", "tone": ""},
			"Review this Go code; keep the tone friendly. Again: Go.", nil, nil},
		{"empty required is a value", body, map[string]string{"language": ""},
			"Review this  code; keep the tone friendly. Again: .", nil, nil},
		{"values are never re-expanded", body, map[string]string{"language": "{{tone}}", "tone": "{{language}}"},
			"Review this {{tone}} code; keep the tone {{language}}. Again: {{tone}}.", nil, nil},
		{"literal braces kept", "{{a b}} {{x}} {{}}", map[string]string{"x": "1"}, "{{a b}} 1 {{}}", nil, nil},
		{"no placeholders", "plain", nil, "plain", nil, nil},
		{"first default for every optional use", "{{a|one}} {{a|two}}", nil, "one one", nil, nil},
		{"missing required", body, map[string]string{"tone": "x"}, "", []string{"language"}, nil},
		{"missing several, sorted", "{{b}} {{a}}", nil, "", []string{"a", "b"}, nil},
		{"unknown argument", body, map[string]string{"language": "Go", "lang": "x", "extra": "y"}, "", nil, []string{"extra", "lang"}},
		{"missing and unknown together", body, map[string]string{"lang": "Go"}, "", []string{"language"}, []string{"lang"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Render(tt.body, tt.values)
			if tt.missing == nil && tt.unknown == nil {
				if err != nil {
					t.Fatalf("Render: %v", err)
				}
				if got != tt.want {
					t.Errorf("Render:\n got %q\nwant %q", got, tt.want)
				}
				return
			}
			var ae *ArgumentError
			if !errors.As(err, &ae) {
				t.Fatalf("Render: got error %v, want *ArgumentError", err)
			}
			if !reflect.DeepEqual(ae.Missing, tt.missing) || !reflect.DeepEqual(ae.Unknown, tt.unknown) {
				t.Errorf("Render: got missing %q unknown %q, want missing %q unknown %q", ae.Missing, ae.Unknown, tt.missing, tt.unknown)
			}
			for _, n := range append(tt.missing, tt.unknown...) {
				if !strings.Contains(err.Error(), `"`+n+`"`) {
					t.Errorf("error %q does not name %q", err, n)
				}
			}
		})
	}
}

// FuzzPlaceholders holds Parse and Render to three promises on any body: no panic; with every
// argument given, each placeholder occurrence is replaced (a marker value shows up once per use);
// and values are copied literally, never expanded again (rendering with values that are
// themselves placeholders equals rendering with markers, then swapping the markers for them).
func FuzzPlaceholders(f *testing.F) {
	for _, s := range []string{
		"Review {{language}} code in a {{tone|friendly}} tone",
		"{{{a}}}", "{{a|{{b}}}}", "{{a}}{{a|x}}", "## H\n{{ x | y }}\n```\n# c {{z}}\n```",
		"{{}}", "{{", "}}{{a}}", "{{a|b|c}}", "{{_}}", "{{a\n}}",
	} {
		f.Add(s, "v")
	}
	f.Fuzz(func(t *testing.T, body, extra string) {
		args := Placeholders(body)
		for _, a := range args {
			if !validName(a.Name) || len(a.Uses) == 0 || (!a.Required && !a.HasDefault) {
				t.Fatalf("Placeholders(%q): bad argument %+v", body, a)
			}
			_ = a.Where()
		}
		_, _ = Render(body, map[string]string{"x": extra}) // any values: no panic
		if strings.ContainsAny(body, "\x01\x02") {
			return
		}
		markers := make(map[string]string, len(args))
		literal := make(map[string]string, len(args))
		for i, a := range args {
			// Distinct opening and closing bytes: no run of markers and text forms another marker.
			markers[a.Name] = fmt.Sprintf("\x01%d\x02", i)
			literal[a.Name] = "{{" + a.Name + "}}" + extra
		}
		out, err := Render(body, markers)
		if err != nil {
			t.Fatalf("Render(%q) with every argument: %v", body, err)
		}
		for i, a := range args {
			if got := strings.Count(out, markers[a.Name]); got != len(a.Uses) {
				t.Fatalf("Render(%q): argument %d (%s) replaced %d times, want %d; got %q", body, i, a.Name, got, len(a.Uses), out)
			}
		}
		want := out
		for name, m := range markers {
			want = strings.ReplaceAll(want, m, literal[name])
		}
		got, err := Render(body, literal)
		if err != nil {
			t.Fatalf("Render(%q) with placeholder values: %v", body, err)
		}
		if got != want {
			t.Fatalf("Render(%q) re-expanded a value:\n got %q\nwant %q", body, got, want)
		}
	})
}

// A placeholder under a setext heading is placed under it, as under an ATX one.
func TestPlaceholderUnderSetextHeading(t *testing.T) {
	ps := Placeholders("Intro.\n\nContext\n-------\n\nUse {{x}} here.\n")
	if len(ps) != 1 || len(ps[0].Uses) != 1 || ps[0].Uses[0].Heading != "Context" || ps[0].Uses[0].Line != 6 {
		t.Errorf("got %+v, want x on line 6 under Context", ps)
	}
}
