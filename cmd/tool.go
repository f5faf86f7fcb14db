package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/dbread"
	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

// tool describes one MCP tool. Its input and output schemas are schemas/<name>.input and
// schemas/<name>.output; every call's arguments are checked against the input schema before
// handle runs, so handle sees only well-formed JSON.
type tool struct {
	name        string
	title       string
	description string
	readOnly    bool
	destructive bool
	idempotent  bool
	timeout     time.Duration
	// handle returns the structured result, or an error: a *promptlib.Error is shown to the
	// model as {error, message, hint}; anything else is a DATABASE_ERROR or INTERNAL_ERROR.
	handle func(ctx context.Context, args json.RawMessage) (any, error)
}

// callInfo is what a handler learned that the call's log line reports; the after-call hook
// picks it up by result.
type callInfo struct {
	code        promptlib.Code
	operationID string
}

// serverTool turns t into an mcp-go tool with raw schemas, annotations and a handler that
// validates input, applies the timeout and shapes results and errors.
func (d *deps) serverTool(t tool) server.ServerTool {
	mt := mcp.NewToolWithRawSchema(t.name, t.description, schemas.Raw(t.name+".input"))
	mt.RawOutputSchema = schemas.Raw(t.name + ".output")
	mt.Annotations = mcp.ToolAnnotation{
		Title:           t.title,
		ReadOnlyHint:    mcp.ToBoolPtr(t.readOnly),
		DestructiveHint: mcp.ToBoolPtr(t.destructive),
		IdempotentHint:  mcp.ToBoolPtr(t.idempotent),
		OpenWorldHint:   mcp.ToBoolPtr(false),
	}
	return server.ServerTool{Tool: mt, Handler: func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		args, err := json.Marshal(req.GetRawArguments())
		if err != nil || string(args) == "null" {
			args = []byte("{}")
		}
		if err := schemas.Validate(t.name+".input", args); err != nil {
			return d.errorResult(inputError(err)), nil
		}
		if t.timeout > 0 {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, t.timeout)
			defer cancel()
		}
		out, err := t.handle(ctx, args)
		if err != nil {
			if errors.Is(err, context.DeadlineExceeded) && ctx.Err() != nil {
				err = &promptlib.Error{Code: promptlib.CodeTimeout, Message: fmt.Sprintf("%s did not finish within %s", t.name, t.timeout), Err: err}
			}
			return d.errorResult(err), nil
		}
		text, err := json.Marshal(out)
		if err != nil {
			return d.errorResult(err), nil
		}
		if rt, ok := out.(interface{ ResultText() string }); ok {
			// Results whose substance is prose (briefings) show the prose, not escaped JSON.
			text = []byte(rt.ResultText())
		}
		res := mcp.NewToolResultStructured(out, string(text))
		d.calls.Store(res, callInfo{operationID: operationIDOf(out)})
		return res, nil
	}}
}

// inputError turns schema problems into one error naming every bad field. A malformed id is
// INVALID_UUID, so the model knows to look the id up rather than re-type it.
func inputError(err error) error {
	var se *schemas.Error
	if !errors.As(err, &se) {
		return err
	}
	code := promptlib.CodeInvalidInput
	parts := make([]string, len(se.Problems))
	for i, p := range se.Problems {
		field := strings.TrimPrefix(p.Pointer, "/")
		switch {
		case field == "":
			parts[i] = "arguments: " + p.Message
		case isIDField(field) && strings.Contains(p.Message, "does not match pattern"):
			code, parts[i] = promptlib.CodeInvalidUUID, field+" is not a UUID"
		default:
			parts[i] = field + ": " + p.Message
		}
	}
	return promptlib.Errorf(code, "%s", strings.Join(parts, "; "))
}

func isIDField(field string) bool { return field == "id" || strings.HasSuffix(field, "Id") }

// toolError is the JSON body of an isError result (schemas/error).
type toolError struct {
	Error       string `json:"error"`
	Message     string `json:"message"`
	Hint        string `json:"hint"`
	OperationID string `json:"operationId,omitempty"`
	Applied     string `json:"applied,omitempty"`
}

// errorResult shapes err for the model. Errors the user can act on keep their code; driver and
// internal errors are logged in full and shown only by class, never with internals.
func (d *deps) errorResult(err error) *mcp.CallToolResult {
	pe := classify(err)
	if pe.Code == promptlib.CodeInternal || pe.Code == promptlib.CodeDatabaseError {
		d.log.Error("tool failed", "err", err)
	}
	te := toolError{Error: string(pe.Code), Message: pe.Message, Hint: pe.Hint(), OperationID: pe.OperationID, Applied: string(pe.Outcome)}
	text, _ := json.Marshal(te)
	res := mcp.NewToolResultError(string(text))
	d.calls.Store(res, callInfo{code: pe.Code, operationID: pe.OperationID})
	return res
}

// classify maps any error to a user-facing *promptlib.Error.
func classify(err error) *promptlib.Error {
	var pe *promptlib.Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, dbread.ErrLocked):
		return &promptlib.Error{Code: promptlib.CodeDatabaseLocked, Message: "the library is locked by the app", Err: err}
	case errors.Is(err, dbread.ErrSchema):
		return &promptlib.Error{Code: promptlib.CodeSchemaIncompatible, Message: "the library's schema is not one mcpctl can read: " + err.Error(), Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &promptlib.Error{Code: promptlib.CodeTimeout, Message: "the library did not answer in time", Err: err}
	case errors.Is(err, dbread.ErrClosed), errors.Is(err, context.Canceled):
		return &promptlib.Error{Code: promptlib.CodeInternal, Message: "the server is shutting down", Err: err}
	}
	var de *dbread.Error
	if errors.As(err, &de) {
		return &promptlib.Error{Code: promptlib.CodeDatabaseError, Message: "reading the library failed", Err: err}
	}
	return &promptlib.Error{Code: promptlib.CodeInternal, Message: "mcpctl hit an unexpected error", Err: err}
}

// operationIDOf finds the operationId of a write result, for the log line.
func operationIDOf(out any) string {
	if o, ok := out.(interface{ OpID() string }); ok {
		return o.OpID()
	}
	return ""
}

// logCalls installs the hooks that write one log line per tool call: tool, request id,
// operation id, duration, status and error code — never arguments or content.
func (d *deps) logCalls(h *server.Hooks) {
	h.AddBeforeCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest) {
		d.starts.Store(fmt.Sprint(id), time.Now())
	})
	// A call refused before any handler (an unknown tool) gets its log line here, and its start
	// time is dropped.
	h.AddOnError(func(ctx context.Context, id any, method mcp.MCPMethod, message any, err error) {
		if method != mcp.MethodToolsCall {
			return
		}
		d.starts.LoadAndDelete(fmt.Sprint(id))
		name := ""
		if req, ok := message.(*mcp.CallToolRequest); ok {
			name = req.Params.Name
		}
		d.log.Warn("tool call", "tool", name, "requestId", fmt.Sprint(id), "status", "error", "err", err.Error())
	})
	h.AddAfterCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest, result any) {
		attrs := []any{"tool", req.Params.Name, "requestId", fmt.Sprint(id)}
		if s, ok := d.starts.LoadAndDelete(fmt.Sprint(id)); ok {
			attrs = append(attrs, "durationMs", float64(time.Since(s.(time.Time)).Microseconds())/1000)
		}
		status, level := "success", slog.LevelInfo
		if res, ok := result.(*mcp.CallToolResult); ok {
			if v, ok := d.calls.LoadAndDelete(res); ok {
				ci := v.(callInfo)
				if ci.operationID != "" {
					attrs = append(attrs, "operationId", ci.operationID)
				}
				if ci.code != "" {
					attrs = append(attrs, "error", string(ci.code))
				}
			}
			if res.IsError {
				status, level = "error", slog.LevelWarn
			}
		}
		attrs = append(attrs, "status", status)
		d.log.Log(ctx, level, "tool call", attrs...)
	})
}
