package pipeline

import (
	"errors"
	"io/fs"

	"github.com/mcpctl/mcpctl/schemas"
)

// Config is $XDG_CONFIG_HOME/mcpctl/config.yaml, validated against schemas/config.schema.json.
type Config struct {
	LLM *LLMConfig `json:"llm"`
}

// LLMConfig names an OpenAI-compatible chat-completions endpoint.
type LLMConfig struct {
	URL       string `json:"url"`       // the API base (…/v1) or the full …/chat/completions URL
	Model     string `json:"model"`     // the model name the endpoint knows
	APIKeyEnv string `json:"apiKeyEnv"` // the environment variable holding the key; "" sends none
	TimeoutMs int    `json:"timeoutMs"` // per request; 0 means 20 s
}

// LoadConfig reads config.yaml at path; a missing file is an empty config. Problems are
// reported with file, field and line as a *schemas.FileError.
func LoadConfig(path string) (Config, error) {
	var cfg Config
	data, _, err := readConfigFile(path, schemas.MaxYAMLBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return cfg, nil
	}
	if err != nil {
		return cfg, &Error{Op: "load config", Path: path, Err: err}
	}
	if err := schemas.DecodeYAML("config", path, data, &cfg); err != nil {
		return Config{}, err
	}
	return cfg, nil
}
