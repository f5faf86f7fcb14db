package pipeline

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mcpctl/mcpctl/schemas"
)

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	if cfg, err := LoadConfig(filepath.Join(dir, "missing.yaml")); err != nil || cfg.LLM != nil {
		t.Errorf("missing config.yaml: %+v, %v; want an empty config", cfg, err)
	}
	good := writeFile(t, filepath.Join(dir, "good.yaml"), "llm:\n  url: http://localhost:11434/v1\n  model: llama3\n  apiKeyEnv: OLLAMA_KEY\n  timeoutMs: 3000\n", 0o600)
	cfg, err := LoadConfig(good)
	if err != nil || cfg.LLM == nil || cfg.LLM.Model != "llama3" || cfg.LLM.TimeoutMs != 3000 {
		t.Errorf("LoadConfig = %+v, %v", cfg.LLM, err)
	}
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n" +
		"d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\ne: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
	for name, text := range map[string]string{
		"bomb.yaml":    bomb,
		"unknown.yaml": "llm:\n  url: http://x\n  model: m\n  key: sk-123\n",
		"scheme.yaml":  "llm:\n  url: file:///etc/passwd\n  model: m\n",
		"huge.yaml":    "llm: {url: http://x, model: m}\n#" + strings.Repeat("x", schemas.MaxYAMLBytes),
	} {
		_, err := LoadConfig(writeFile(t, filepath.Join(dir, name), text, 0o600))
		if !errors.Is(err, schemas.ErrInvalidFile) || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an invalid-file error naming the file", name, err)
		}
	}
	if _, err := NewEngine(Options{ConfigDir: t.TempDir()}); err != nil {
		t.Errorf("an Engine without config.yaml: %v", err)
	}
	cfgDir := t.TempDir()
	writeFile(t, filepath.Join(cfgDir, "config.yaml"), "llm: {model: m}\n", 0o600)
	if _, err := NewEngine(Options{ConfigDir: cfgDir}); err == nil || !strings.Contains(err.Error(), "config.yaml") {
		t.Errorf("an Engine with a bad config.yaml: %v, want an error naming it", err)
	}
}
