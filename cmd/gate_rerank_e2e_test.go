package cmd

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/gate"
)

// With config.yaml naming an LLM, `mcpctl serve --project` re-ranks begin_session's candidates
// by it: the fake chat server (the LLM is a third-party service) puts error-handling before the
// sql prompt the deterministic ranking puts first, and that order is what the briefing sends.
// begin_session lists its task argument (TestToolSnapshots: not without an LLM), and the task
// reaches the model.
func TestGatedSessionRerankedByLLM(t *testing.T) {
	var asked atomic.Int64
	var question atomic.Value
	chat := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		var req struct {
			Messages []struct{ Content string } `json:"messages"`
		}
		json.NewDecoder(r.Body).Decode(&req)
		question.Store(req.Messages[len(req.Messages)-1].Content)
		var nums []string
		for _, want := range []string{"error-handling", "sql-conventions"} {
			for _, line := range strings.Split(req.Messages[len(req.Messages)-1].Content, "\n") {
				if n, rest, ok := strings.Cut(line, ". "); ok && strings.HasPrefix(rest, want) {
					nums = append(nums, n)
				}
			}
		}
		json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{
			"message": map[string]any{"role": "assistant", "content": strings.Join(nums, ", ")}}}})
	}))
	defer chat.Close()

	lib := projectLibrary(t)
	env := testHome(t)
	writeProject(t, env, "web", "folder: Web App\nbyteBudget: 4000\npriorities:\n  security-policy: 10\n")
	var config string
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			config = filepath.Join(v, "mcpctl", "config.yaml")
		}
	}
	if err := os.MkdirAll(filepath.Dir(config), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(config, []byte("llm:\n  url: "+chat.URL+"/v1\n  model: m\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := serve(t, env, "--library", lib.Dir, "--project", "web")
	tools, err := s.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) != 1 || tools.Tools[0].InputSchema.Properties["task"] == nil {
		t.Errorf("tools/list: want begin_session alone, with a task argument; got %+v", tools.Tools)
	}
	var b gate.Result
	task := "Make the orders report show why a query failed"
	s.call(t, "begin_session", map[string]any{"tags": []string{"sql", "errors"}, "task": task}, &b)
	if asked.Load() == 0 {
		t.Fatal("the configured LLM was not asked")
	}
	if q, _ := question.Load().(string); !strings.HasPrefix(q, "The task: "+task+"\n") {
		t.Errorf("the model's question begins %q, want the task first", q[:min(len(q), 100)])
	}
	if len(b.Matched) < 2 || b.Matched[0] != "error-handling" || b.Matched[1] != "sql-conventions" {
		t.Errorf("matched %q, want error-handling then sql-conventions (the model's order)", b.Matched)
	}
	if len(b.Critical) != 1 || b.Critical[0] != "security-policy" {
		t.Errorf("critical %q, want [security-policy]", b.Critical)
	}
}
