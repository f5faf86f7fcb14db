// Package traffic is the record of what every `mcpctl serve` session did (DESIGN §8): one JSON
// line per request, response and notification, in one file per session under
// $XDG_STATE_HOME/mcpctl/traffic. The server writes it through a Writer; the console and
// `mcpctl traffic tail` read it with ReadFile and Follow. Nothing else reads these files.
package traffic

import (
	"encoding/json"
	"time"
)

// Kinds of event.
const (
	KindRequest      = "request"
	KindResponse     = "response"
	KindNotification = "notification"
)

// Statuses of a response.
const (
	StatusOK        = "ok"
	StatusError     = "error"
	StatusCancelled = "cancelled"
)

// Event is one request, response or notification of a serve session (DESIGN §8). Lengths only
// by default: Payload is set only when the session traces content (--trace-content).
type Event struct {
	TS         time.Time       `json:"ts"`
	Session    string          `json:"session"`
	Project    string          `json:"project,omitempty"`
	Kind       string          `json:"kind"` // KindRequest, KindResponse or KindNotification
	Method     string          `json:"method"`
	ID         string          `json:"id,omitempty"`
	Name       string          `json:"name,omitempty"` // the tool or prompt name, or the resource URI
	DurationMs float64         `json:"durationMs,omitempty"`
	BytesIn    int             `json:"bytesIn"`
	BytesOut   int             `json:"bytesOut"`
	Status     string          `json:"status,omitempty"` // StatusOK, StatusError or StatusCancelled
	ErrorCode  string          `json:"errorCode,omitempty"`
	Gate       *Gate           `json:"gate,omitempty"`
	Pipeline   *Pipeline       `json:"pipeline,omitempty"`
	Upstream   string          `json:"upstream,omitempty"` // the upstream server that answered
	Payload    json.RawMessage `json:"payload,omitempty"`  // only when traced
}

// Gate is the gate's part in one call: its state after the call, how many prompts the tags
// matched, how many prompts were sent (in full or as tables of contents) and how many bytes the
// briefing took.
type Gate struct {
	State   string `json:"state"` // "gated" or "open"
	Matched int    `json:"matched"`
	Sent    int    `json:"sent"`
	// Critical is how many of Sent are priority-10 prompts, which a briefing sends whatever the
	// tags and which are not among Matched: Sent less Critical are matched ones. 0 in the events
	// of servers that did not record it.
	Critical int `json:"critical,omitempty"`
	Bytes    int `json:"bytes"`
}

// Pipeline is the content pipeline's part in one call.
type Pipeline struct {
	Model       string   `json:"model"`
	Stages      []string `json:"stages,omitempty"`
	BytesBefore int      `json:"bytesBefore"`
	BytesAfter  int      `json:"bytesAfter"`
	CacheHit    bool     `json:"cacheHit"`
	// Input is the text the model transformed, as the server gave it: the console's Pipeline
	// screen transforms it again, where the payload holds only what the client got. Only in a
	// traced event (--trace-content), as the payload.
	Input string `json:"input,omitempty"`
	// Type and Source are the content type and source serve transformed Input as (its model's
	// overrides and a custom stage see them); in a traced event only.
	Type   string `json:"type,omitempty"`
	Source string `json:"source,omitempty"`
}
