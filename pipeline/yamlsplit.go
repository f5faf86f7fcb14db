package pipeline

import (
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxYAMLSplit is the largest text section-split parses as YAML; larger YAML is split by lines,
// which bounds the parser's time and memory on hostile input.
const maxYAMLSplit = 4 << 20

func parseYAML(t string) *yaml.Node {
	if len(t) > maxYAMLSplit {
		return nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(t), &doc); err != nil || len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode && root.Kind != yaml.SequenceNode {
		return nil
	}
	return root
}

// splitYAML makes one section per top-level key or item, nesting into values larger than
// maxBytes. Sections start at the start of their line, with the comment lines above.
func (sp splitter) splitYAML(t string, root *yaml.Node) []Section {
	if root == nil {
		return nil
	}
	var lines []int // byte offset of each line's start
	eachLine(t, func(start, _ int) bool { lines = append(lines, start); return true })
	lineStart := func(n int) int { // n is 1-based
		if n < 1 || n > len(lines) {
			return len(t)
		}
		s := lines[n-1]
		for n > 1 { // take the comment lines just above
			prev := strings.TrimSpace(t[lines[n-2]:lines[n-1]])
			if !strings.HasPrefix(prev, "#") {
				break
			}
			n--
			s = lines[n-1]
		}
		return s
	}
	// nodeSections makes the sections of n's keys or items; end is where n's last one ends,
	// which grouping by size needs.
	var nodeSections func(n *yaml.Node, depth, end int) []Section
	nodeSections = func(n *yaml.Node, depth, end int) []Section {
		var out []Section
		var values []*yaml.Node
		add := func(title string, at, value *yaml.Node) {
			out = append(out, Section{Start: lineStart(at.Line), Title: title, Kind: KindYAML})
			values = append(values, value)
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				add(clip(n.Content[i].Value, 60)+":", n.Content[i], n.Content[i+1])
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				title := "- [" + strconv.Itoa(i) + "]"
				if c.Kind == yaml.ScalarNode {
					title += " " + clip(c.Value, 40)
				} else if c.Kind == yaml.MappingNode {
					for _, k := range hintKeys {
						if _, v := member(c, k); v != nil && v.Kind == yaml.ScalarNode {
							title += " " + k + "=" + clip(v.Value, 40)
							break
						}
					}
				}
				add(title, c, c)
			}
		}
		for i, v := range values {
			if depth < maxDepth && (v.Kind == yaml.MappingNode || v.Kind == yaml.SequenceNode) && v.Style&yaml.FlowStyle == 0 {
				out[i].Children = nodeSections(v, depth+1, endOf(out, i, end))
			}
		}
		if len(out) > sp.maxSections {
			seq := n.Kind == yaml.SequenceNode
			out = sp.groupBySize(out, end, func(a, b int) string {
				if seq {
					return "- [" + strconv.Itoa(a) + "–" + strconv.Itoa(b) + "]"
				}
				return "keys " + strings.TrimSuffix(out[a].Title, ":") + " … " + strings.TrimSuffix(out[b].Title, ":")
			})
		}
		return out
	}
	sections := nodeSections(root, 0, len(t))
	// A small value needs no children; drop them where the section is small (known only now
	// that each section's end is the next one's start).
	sections = normalize(t, sections, 0, len(t))
	var prune func([]Section)
	prune = func(ss []Section) {
		for i := range ss {
			if ss[i].Bytes() <= sp.maxBytes && ss[i].Kind != KindRange {
				ss[i].Children = nil
			}
			prune(ss[i].Children)
		}
	}
	prune(sections)
	return sections
}

// member finds a mapping's value by key.
func member(m *yaml.Node, key string) (k, v *yaml.Node) {
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}
