package cmd

import (
	"log/slog"
	"path/filepath"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
)

// projectModelProblems is what serve would find wrong with the proxymodels p names (see
// mcpserver.ProjectModelProblems), for describe project and get projects. It reads no
// config.yaml: the LLM has no part in whether a model runs.
func projectModelProblems(env Env, p *gate.Project) []mcpserver.ModelProblem {
	if p == nil || (p.ProxyModel == "" && len(p.ProxyModelOverrides) == 0 && !serverModels(p)) {
		return nil
	}
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: filepath.Join(configHome(env), "mcpctl"), NoLLM: true})
	if err != nil {
		return nil
	}
	defer e.Close()
	return mcpserver.ProjectModelProblems(e, p)
}

// briefer builds briefings as a served session would, for gate preview and the console: with
// serve's content pipeline (serveEngine) without the LLM, which would re-rank and summarize at
// a cost on every preview. Call done after the last briefing: the renderer makes tables of
// contents with the engine.
func briefer(env Env) (b mcpserver.Briefer, done func()) {
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: filepath.Join(configHome(env), "mcpctl"),
		CacheDir: filepath.Join(cacheHome(env), "mcpctl"), Logger: slog.New(slog.DiscardHandler), Getenv: env.Getenv, NoLLM: true})
	if err != nil {
		return mcpserver.Briefer{}, func() {}
	}
	return mcpserver.Briefer{Engine: e}, func() { e.Close() }
}

func serverModels(p *gate.Project) bool {
	for _, s := range p.Servers {
		if s.ProxyModel != "" {
			return true
		}
	}
	return false
}
