package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
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

// serverTool turns t into an mcp-go tool with raw schemas, annotations and a handler that
// validates input, applies the timeout and shapes results and errors.
func (c *core) serverTool(t tool) server.ServerTool {
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
			return c.errorResult(ctx, inputError(t.name, err)), nil
		}
		// A project's scope is the library view's, which follows the library after a debounce:
		// a folder this session has just created must be the project's on its next call. Without
		// a change since the view's snapshot this is one look at the library's data version.
		if c.view != nil && c.view.current().scope.Folders() != nil { // no view: no library (unservedLibrary)
			c.view.awaitCurrent(ctx)
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
			return c.errorResult(ctx, err), nil
		}
		buf := resultBuffers.get()
		buf.Reset()
		structured, err := marshalText(buf, out)
		if err != nil {
			release(buf)
			return c.errorResult(ctx, err), nil
		}
		prose := ""
		if rt, ok := out.(interface{ ResultText() string }); ok {
			// Results whose substance is prose (briefings) show the prose, not escaped JSON.
			prose = rt.ResultText()
		}
		rec := callFrom(ctx)
		if id := operationIDOf(out); id != "" {
			rec.setOperation(id)
		}
		if cr, ok := out.(interface{ carried() []string }); ok {
			rec.carry(cr.carried()...)
		}
		return prepareResult(rec, buf, structured, prose), nil
	}}
}

// inputError turns schema problems of tool's arguments into one error naming every bad field.
// A malformed id is INVALID_UUID, so the model knows to look the id up rather than re-type it.
func inputError(tool string, err error) error {
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
		case isIDField(field) && p.Keyword == "pattern":
			code, parts[i] = promptlib.CodeInvalidUUID, field+" is not a UUID"
		case field == "color" && (p.Keyword == "enum" || p.Keyword == "type"):
			code, parts[i] = promptlib.CodeInvalidColor, "color must be one of red, orange, yellow, green, blue, purple, or null to clear it"
		case p.Keyword == "type" && p.Message == schemas.NullRefused && strings.HasPrefix(tool, "update_") && !isIDField(field):
			// An update's null clears a field; these cannot be cleared, only kept.
			parts[i] = fmt.Sprintf("%s cannot be null; leave it out to keep the %s", field, field)
		default:
			parts[i] = field + ": " + p.Message
		}
	}
	e := promptlib.Errorf(code, "%s", strings.Join(parts, "; "))
	if code == promptlib.CodeInvalidUUID && len(se.Problems) == 1 && se.Problems[0].Pointer == "/operationId" {
		// The code's hint sends the model to the read tools, which give no operation ids.
		e.Advice = promptlib.OperationIDAdvice
	}
	return e
}

func isIDField(field string) bool { return field == "id" || strings.HasSuffix(field, "Id") }

// ToolError is the JSON body of an isError result (schemas/error).
type ToolError struct {
	Error       string `json:"error"`
	Message     string `json:"message"`
	Hint        string `json:"hint"`
	OperationID string `json:"operationId,omitempty"`
	Applied     string `json:"applied,omitempty"`
	// Briefing is the project's briefing when the call was a gated session's first (errorWithBriefing).
	Briefing string `json:"briefing,omitempty"`
}

// errorResult shapes err for the model. Errors the user can act on keep their code; driver and
// internal errors are logged in full and shown only by class, never with internals.
func (c *core) errorResult(ctx context.Context, err error) *mcp.CallToolResult {
	pe := classify(err)
	switch {
	case pe.Advice == shutdownAdvice:
		c.log.Info("tool call stopped before it finished: cancelled, or the server is stopping", "err", err)
	case pe.Code == promptlib.CodeInternal || pe.Code == promptlib.CodeDatabaseError:
		c.log.Error("tool failed", "err", err)
	}
	te := ToolError{Error: string(pe.Code), Message: clipMessage(pe.Message), Hint: pe.Hint(), OperationID: pe.OperationID, Applied: string(pe.Outcome)}
	text, _ := json.Marshal(te)
	rec := callFrom(ctx)
	rec.setCode(string(pe.Code))
	if pe.OperationID != "" {
		rec.setOperation(pe.OperationID)
	}
	return mcp.NewToolResultError(string(text))
}

// maxErrorMessage bounds an error's message. mcpctl's own are a line or two; a project server's
// JSON-RPC error message is carried in UPSTREAM_ERROR's, and one server sent 1 MB in it.
const maxErrorMessage = 2000

// clipMessage keeps the start and the end of a message over maxErrorMessage, where a stack
// trace or a log states what failed and why, and says how much it left out.
func clipMessage(msg string) string {
	if len(msg) <= maxErrorMessage {
		return msg
	}
	head, tail := msg[:maxErrorMessage*3/4], msg[len(msg)-maxErrorMessage/4:]
	return strings.ToValidUTF8(head, "") + fmt.Sprintf(" …[%d bytes left out]… ", len(msg)-len(head)-len(tail)) + strings.ToValidUTF8(tail, "")
}

// classify maps any error to a user-facing *promptlib.Error.
func classify(err error) *promptlib.Error {
	var pe *promptlib.Error
	switch {
	case errors.As(err, &pe):
		return pe
	case errors.Is(err, dbread.ErrLocked):
		return &promptlib.Error{Code: promptlib.CodeDatabaseLocked, Message: "the library is locked by the app", Err: err}
	case errors.Is(err, dbread.ErrDamaged):
		msg := "the library file is damaged"
		var d interface{ Detail() string }
		if errors.As(err, &d) {
			msg += " (SQLite: " + d.Detail() + ")"
		}
		return &promptlib.Error{Code: promptlib.CodeDatabaseError, Message: msg, Advice: damagedAdvice, Err: err}
	case errors.Is(err, dbread.ErrSchema):
		return &promptlib.Error{Code: promptlib.CodeSchemaIncompatible, Message: "the library's schema is not one mcpctl can read: " + err.Error(), Err: err}
	case errors.Is(err, context.DeadlineExceeded):
		return &promptlib.Error{Code: promptlib.CodeTimeout, Message: "the library did not answer in time", Err: err}
	case errors.Is(err, dbread.ErrClosed), errors.Is(err, context.Canceled):
		return &promptlib.Error{Code: promptlib.CodeInternal, Message: "the call was stopped before it finished: the client cancelled it, or the server is shutting down", Advice: shutdownAdvice, Err: err}
	}
	var de *dbread.Error
	if errors.As(err, &de) {
		return &promptlib.Error{Code: promptlib.CodeDatabaseError, Message: "reading the library failed", Err: err}
	}
	return &promptlib.Error{Code: promptlib.CodeInternal, Message: "mcpctl hit an unexpected error", Err: err}
}

// damagedAdvice replaces DATABASE_ERROR's hint when SQLite finds the file malformed: trying
// again cannot help.
const damagedAdvice = "Tell the user their library file (prompts.db) is damaged: restore it from a backup, or open it in the Prompteka app to repair it. health_check says when it reads cleanly again."

// shutdownAdvice replaces INTERNAL_ERROR's hint for a call stopped by its cancellation or the
// server's shutdown: that is no bug, and the same call succeeds when made again.
const shutdownAdvice = "Nothing is wrong with the call: call the tool again if its result is still wanted (after the server restarts, if it was stopping)."

// operationIDOf finds the operationId of a write result, for the log line.
func operationIDOf(out any) string {
	if o, ok := out.(interface{ OpID() string }); ok {
		return o.OpID()
	}
	return ""
}

// marshalText is a result's JSON as the model reads it: without HTML escaping, which would turn
// each <, > and & of a prompt into six bytes of the model's context.
func marshalText(b *bytes.Buffer, v any) ([]byte, error) {
	if a, ok := v.(jsonAppender); ok {
		b.Write(a.appendJSON(b.AvailableBuffer()))
		return b.Bytes(), nil
	}
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
