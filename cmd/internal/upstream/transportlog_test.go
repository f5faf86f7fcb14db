package upstream

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"testing"
)

// mcp-go's transport reports a broken pipe at ERROR; it reaches serve's JSON log at DEBUG, with
// the server's name, and nothing of it at the default level.
func TestTransportLogIsDebugAndNamesTheServer(t *testing.T) {
	for _, level := range []slog.Level{slog.LevelDebug, slog.LevelInfo} {
		var buf bytes.Buffer
		log := slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level})).With("server", "ev")
		transportLogger(log).Error("Error writing response", "err", "write |1: file already closed")
		if level == slog.LevelInfo {
			if buf.Len() > 0 {
				t.Errorf("at INFO the log has %q, want nothing", buf.String())
			}
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(buf.Bytes(), &rec); err != nil || rec["level"] != "DEBUG" || rec["server"] != "ev" || rec["component"] != "mcp-go" || rec["msg"] != "Error writing response" {
			t.Errorf("at DEBUG the log has %q (%v), want one JSON DEBUG record naming the server", buf.String(), err)
		}
	}
}
