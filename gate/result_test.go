package gate

import (
	"reflect"
	"testing"

	"github.com/mcpctl/mcpctl/schemas"
)

func TestResultMatchesSchemas(t *testing.T) {
	ix := renderFixture(t)
	s := NewSession(ix.Project())
	var r Renderer
	for _, tt := range []struct {
		schema string
		b      Briefing
	}{
		{"begin_session.output", s.Begin(ix, []string{"sql"})},
		{"read_prompts.output", s.Read(ix, []string{"sql", "style"})},
		{"read_prompts.output", s.Read(ix, nil)},
	} {
		text, _ := render(t, r, ix, tt.b)
		res := tt.b.Result(text)
		if err := schemas.Validate(tt.schema, res); err != nil {
			t.Errorf("%s: %v", tt.schema, err)
		}
	}
	res := s.Begin(ix, []string{"sql"}).Result("x")
	if res.Ungated || !reflect.DeepEqual(res.AlreadyProvided, []string{"sql-migrations"}) || res.Matched == nil {
		t.Errorf("second begin_session result: %+v", res)
	}
}

func TestToolInputSchemas(t *testing.T) {
	for _, name := range []string{"begin_session.input", "read_prompts.input"} {
		for _, tt := range []struct {
			doc   string
			valid bool
		}{
			{`{"tags": ["sql", "error handling"]}`, true},
			{`{"tags": []}`, false},
			{`{"tags": ["a","b","c","d","e","f","g","h","i","j","k"]}`, false},
			{`{"tags": [""]}`, false},
			{`{"tags": ["sql"], "extra": 1}`, false},
			{`{}`, false},
		} {
			if err := schemas.Validate(name, []byte(tt.doc)); (err == nil) != tt.valid {
				t.Errorf("%s %s: got %v, want valid=%v", name, tt.doc, err, tt.valid)
			}
		}
	}
}
