package mcpserver

import (
	"context"
	"log/slog"
	"strings"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Link states of a linked prompt (DESIGN §10): its url is mcp+{server}:{resource-uri}, and its
// content is that upstream resource, fetched by mcpctl when the prompt is delivered.
const (
	linkOK   = "ok"
	linkDead = "dead"
)

// delivered is a prompt's content as it is delivered: for a linked prompt, the upstream
// resource's content (linkOK), or, when the link cannot be read, the stored body with linkDead
// and the reason; for any other prompt its body and "".
func (u *upstreams) delivered(ctx context.Context, log *slog.Logger, p promptlib.Prompt) (content, link, reason string) {
	if !linked(p.URL) {
		return p.Content, "", ""
	}
	text, _, err := u.readLinked(ctx, *p.URL)
	if err != nil {
		log.Warn("linked prompt: dead link", "prompt", p.ID, "err", err)
		return p.Content, linkDead, err.Error()
	}
	return text, linkOK, ""
}

// linked says whether a prompt's url links its content to an upstream resource.
func linked(url *string) bool { return url != nil && strings.HasPrefix(*url, "mcp+") }
