package cmd

import (
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

// previewTools is what a briefing of a new session of p says is open (mcpserver.PreviewTools),
// for gate preview and the console's Gate screen. Like projectModelProblems it reads no
// config.yaml: whether a model makes sections does not depend on the LLM.
func previewTools(env Env, p gate.Project) []string {
	e, err := pipeline.NewEngine(pipeline.Options{ConfigDir: filepath.Join(configHome(env), "mcpctl"), NoLLM: true})
	if err != nil {
		return mcpserver.PreviewTools(p, nil)
	}
	defer e.Close()
	return mcpserver.PreviewTools(p, e)
}

func serverModels(p *gate.Project) bool {
	for _, s := range p.Servers {
		if s.ProxyModel != "" {
			return true
		}
	}
	return false
}
