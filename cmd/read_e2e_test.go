package cmd

import (
	"testing"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

func TestServeListsReadTools(t *testing.T) {
	lib := librarytest.New(t, 50)
	s := serve(t, testHome(t), "--library", lib.Dir)
	var h healthOut
	s.call(t, "health_check", map[string]any{}, &h)
	if h.Counts.Prompts != 50 {
		t.Errorf("health_check counts %d prompts, want 50", h.Counts.Prompts)
	}
}
