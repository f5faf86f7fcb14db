package mcpserver

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
)

// A project names proxymodels in three places (proxyModel, a server's proxyModel and
// proxyModelOverrides); a name that does not exist, or a file that does not parse, used to
// mean no model at all, silently: 50 KB results reached the model whole, worse than naming
// none. Serve now falls back to the built-in default (still paged), logs why once, and
// `mcpctl describe project` / `get projects` show the same problems.

// ModelProblem is one thing wrong with the proxymodels a project names.
type ModelProblem struct {
	Field   string // where the project names it: proxyModel, servers.NAME.proxyModel, proxyModelOverrides.KEY
	Model   string // the model named; "" for a problem with an override's key
	Message string // what is wrong and what serve does instead
}

func (p ModelProblem) String() string { return p.Field + ": " + p.Message }

// ProjectModelProblems lists what is wrong with the proxymodels a project names, as serve
// would meet them: models that cannot run (serve uses the built-in default instead), models
// naming a stage that cannot run (content through them is withheld), and override keys that
// match no source of the project the way serve looks them up.
func ProjectModelProblems(e *pipeline.Engine, p *gate.Project) []ModelProblem {
	if p == nil || e == nil {
		return nil
	}
	var out []ModelProblem
	check := func(field, model string) {
		if model == "" {
			return
		}
		if err := e.Runnable(model); err != nil {
			out = append(out, ModelProblem{Field: field, Model: model, Message: fmt.Sprintf(
				"proxymodel %q cannot be used, so the built-in default serves instead: %s", model, strings.TrimPrefix(err.Error(), "pipeline: "))})
		} else if _, err := e.Model(model); err != nil {
			out = append(out, ModelProblem{Field: field, Model: model, Message: fmt.Sprintf(
				"proxymodel %q names a stage that cannot run, so content through it is withheld: %s", model, strings.TrimPrefix(err.Error(), "pipeline: "))})
		}
	}
	check("proxyModel", p.ProxyModel)
	for _, name := range slices.Sorted(maps.Keys(p.Servers)) {
		check("servers."+name+".proxyModel", p.Servers[name].ProxyModel)
	}
	for _, key := range slices.Sorted(maps.Keys(p.ProxyModelOverrides)) {
		field := "proxyModelOverrides." + key
		check(field, p.ProxyModelOverrides[key])
		if _, _, ok := servedToolKey(p, key); ok {
			continue // the served name of a server's tool: it applies to that tool
		}
		if srv, _, ok := strings.Cut(key, "/"); ok && !strings.Contains(key, "://") {
			if _, known := p.Servers[srv]; !known {
				out = append(out, ModelProblem{Field: field, Message: fmt.Sprintf(
					"matches no source: %q is not a server of this project (a tool's key is SERVER/TOOL, a resource's its URI, a prompt's its name)", srv)})
			}
		}
	}
	return out
}

// servedToolKey reads an override key written as a tool's served name, SERVER__TOOL, the name
// a user sees in their client, as the source SERVER/TOOL it obviously means.
func servedToolKey(p *gate.Project, key string) (server, tool string, ok bool) {
	for name := range p.Servers {
		if t, found := strings.CutPrefix(key, name+upstream.Separator); found && t != "" {
			return name, t, true
		}
	}
	return "", "", false
}
