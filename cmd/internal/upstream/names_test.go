package upstream

import (
	"regexp"
	"strings"
	"testing"
)

func TestExposedName(t *testing.T) {
	valid := regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)
	tests := []struct {
		name, server, own string
		taken             map[string]bool
		want              string // "" = only check validity and the hash suffix
	}{
		{"plain", "db", "query", nil, "db__query"},
		{"dashes and underscores kept", "my-db", "run_sql-v2", nil, "my-db__run_sql-v2"},
		{"dots and spaces replaced, hash added", "db", "sql.run now", nil, "db__sql_run_now_"},
		{"too long is cut", "db", strings.Repeat("x", 70), nil, "db__" + strings.Repeat("x", 51) + "_"},
		{"exactly 64 kept", "db", strings.Repeat("y", 60), nil, "db__" + strings.Repeat("y", 60)},
		{"taken gets a hash", "db", "a_b", map[string]bool{"db__a_b": true}, "db__a_b_"},
		{"non-ASCII", "db", "café", nil, "db__caf__"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := exposedName(tt.server, tt.own, tt.taken)
			if !valid.MatchString(got) {
				t.Errorf("exposedName(%q, %q) = %q: not 1-64 of [A-Za-z0-9_-]", tt.server, tt.own, got)
			}
			plain := tt.want == tt.server+Separator+tt.own
			switch {
			case plain && got != tt.want:
				t.Errorf("got %q, want %q", got, tt.want)
			case !plain && (!strings.HasPrefix(got, tt.want) || len(got) != len(tt.want)+8):
				t.Errorf("got %q, want %q followed by 8 hex digits", got, tt.want)
			}
			if again := exposedName(tt.server, tt.own, tt.taken); again != got {
				t.Errorf("not stable: %q then %q", got, again)
			}
			if server, ok := splitName(got); !ok || server != tt.server {
				t.Errorf("splitName(%q) = %q, %v; want %q", got, server, ok, tt.server)
			}
		})
	}
}

func TestToolFilter(t *testing.T) {
	tests := []struct {
		name        string
		allow, deny []string
		tool        string
		want        bool
	}{
		{"no lists", nil, nil, "anything", true},
		{"allowed by name", []string{"query"}, nil, "query", true},
		{"not in allow", []string{"query"}, nil, "drop", false},
		{"allowed by glob", []string{"read_*"}, nil, "read_file", true},
		{"deny wins over allow", []string{"*"}, []string{"delete_*"}, "delete_all", false},
		{"deny only", nil, []string{"delete_all"}, "query", true},
		{"malformed glob matches itself", []string{"a["}, nil, "a[", true},
		{"malformed glob matches nothing else", []string{"a["}, nil, "ab", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := (toolFilter{allow: tt.allow, deny: tt.deny}).allows(tt.tool); got != tt.want {
				t.Errorf("allows(%q) with allow %v deny %v = %v, want %v", tt.tool, tt.allow, tt.deny, got, tt.want)
			}
		})
	}
}

func TestExpandEnv(t *testing.T) {
	vars := map[string]string{"TOKEN": "s3cret", "USER": "ada"}
	getenv := func(k string) string { return vars[k] }
	tests := []struct {
		name      string
		env       map[string]string
		want      []string
		wantUnset string
	}{
		{"reference", map[string]string{"API_KEY": "${TOKEN}"}, []string{"API_KEY=s3cret"}, ""},
		{"inside text, twice", map[string]string{"URL": "https://${USER}:${TOKEN}@x/${USER}"}, []string{"URL=https://ada:s3cret@x/ada"}, ""},
		{"other forms stay", map[string]string{"A": "$TOKEN $(id) `id` ${TOKEN"}, []string{"A=$TOKEN $(id) `id` ${TOKEN"}, ""},
		{"unset is empty and reported", map[string]string{"A": "x${MISSING}y", "B": "${MISSING}"}, []string{"A=xy", "B="}, "MISSING"},
		{"overrides the base", map[string]string{"HOME": "/h"}, []string{"HOME=/h"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			base := []string{"HOME=/root"}
			got, unset := expandEnv(base, tt.env, getenv)
			if strings.Join(got[1:], "\n") != strings.Join(tt.want, "\n") || got[0] != base[0] {
				t.Errorf("got %q, want %q after the base", got, tt.want)
			}
			if strings.Join(unset, ",") != tt.wantUnset {
				t.Errorf("got unset %v, want %q", unset, tt.wantUnset)
			}
		})
	}
}
