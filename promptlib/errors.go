package promptlib

import (
	"errors"
	"fmt"
)

// Code is an error code the model and the user see. Each has a hint that says what to do next.
type Code string

// The error taxonomy. Codes are part of the tool contract: never rename one.
const (
	CodeInvalidInput         Code = "INVALID_INPUT"
	CodeInvalidUUID          Code = "INVALID_UUID"
	CodeInvalidEmoji         Code = "INVALID_EMOJI"
	CodeInvalidColor         Code = "INVALID_COLOR"
	CodeInvalidURL           Code = "INVALID_URL"
	CodePayloadTooLarge      Code = "PAYLOAD_TOO_LARGE"
	CodePromptNotFound       Code = "PROMPT_NOT_FOUND"
	CodeFolderNotFound       Code = "FOLDER_NOT_FOUND"
	CodeParentFolderNotFound Code = "PARENT_FOLDER_NOT_FOUND"
	CodeFolderNotEmpty       Code = "FOLDER_NOT_EMPTY"
	CodeFolderExists         Code = "FOLDER_EXISTS"
	CodeFolderCycle          Code = "FOLDER_CYCLE"
	CodeDatabaseError        Code = "DATABASE_ERROR"
	CodeDatabaseLocked       Code = "DATABASE_LOCKED"
	CodeSchemaIncompatible   Code = "SCHEMA_INCOMPATIBLE"
	CodeSearchInvalid        Code = "SEARCH_INVALID"
	CodeQueueFull            Code = "QUEUE_FULL"
	CodePermissionDenied     Code = "PERMISSION_DENIED"
	CodeResponseTimeout      Code = "RESPONSE_TIMEOUT"
	CodeQueueIO              Code = "QUEUE_IO_ERROR"
	CodeOperationNotFound    Code = "OPERATION_NOT_FOUND"
	CodeProcessorStopped     Code = "PROCESSOR_STOPPED"
	CodeTimeout              Code = "TIMEOUT"
	CodeInternal             Code = "INTERNAL_ERROR"
	// For a project's own MCP servers (DESIGN §10).
	CodeUpstreamUnavailable Code = "UPSTREAM_UNAVAILABLE"
	CodeUpstreamError       Code = "UPSTREAM_ERROR"
	// A gated session's first call ran, but its result and the briefing before it would pass
	// one tool result's size.
	CodeResultTooLarge Code = "RESULT_TOO_LARGE"
	// The project serve was started for cannot be served (its file is invalid, or its folder
	// is not in the library): every tool but health_check is refused until it is fixed.
	CodeProjectUnavailable Code = "PROJECT_UNAVAILABLE"
	// The library serve was started for cannot be opened (no database where the flags, the
	// environment or the defaults point, or a file that is no library): every tool but
	// health_check is refused until it is fixed.
	CodeLibraryUnavailable Code = "LIBRARY_UNAVAILABLE"
)

var hints = map[Code]string{
	CodeInvalidInput:         "Fix the named field and call the tool again; the tool's input schema lists every field and its limits.",
	CodeInvalidUUID:          "Pass the id exactly as list_prompts, list_folders or search_prompts returned it (a UUID such as 3f2a…-…).",
	CodeInvalidEmoji:         "Use exactly one emoji (for example 📝 or 👨‍💻), or null to clear it.",
	CodeInvalidColor:         "Use one of red, orange, yellow, green, blue, purple, or null to clear it.",
	CodeInvalidURL:           "Use an absolute http:// or https:// URL of at most 2048 characters, or null to clear it.",
	CodePayloadTooLarge:      "Shorten the content (at most 100,000 characters) or split it into several prompts.",
	CodePromptNotFound:       "Call search_prompts or list_prompts to find the prompt's current id.",
	CodeFolderNotFound:       "Call list_folders to see the existing folders and their ids.",
	CodeParentFolderNotFound: "Call list_folders to find the parent's id, or pass parentId null for the top level.",
	CodeFolderNotEmpty:       "Move or delete what the folder holds first, or call delete_folder again with recursive: true after the user confirms.",
	CodeFolderExists:         "Choose another name, or use the existing folder by the id this message gives.",
	CodeFolderCycle:          "A folder cannot be moved into itself or one of its subfolders; choose another parent.",
	CodeDatabaseError:        "Try again in a moment; if it persists, run health_check and report what it says.",
	CodeDatabaseLocked:       "The library is locked by the app; try again in a few seconds.",
	CodeSchemaIncompatible:   "This library was written by a Prompteka version mcpctl does not know; update mcpctl.",
	CodeSearchInvalid:        "Search with 1 to 500 characters of plain words; no operators are needed.",
	CodeQueueFull:            "The app has 1000 operations waiting; wait until it catches up, then try again.",
	CodePermissionDenied:     "Check that the import queue directory belongs to this user with mode 0700.",
	CodeResponseTimeout:      "Make sure the Prompteka app is running, then call get_operation_status with the operation id before retrying.",
	CodeQueueIO:              "The import queue's disk failed (full or an I/O error); free space or fix the disk, then try again.",
	CodeOperationNotFound:    "Pass the operationId exactly as a write tool returned it.",
	CodeProcessorStopped:     "mcpctl applies this standalone library's writes itself and its queue processor has stopped; health_check gives the reason. Fix it (free disk space, remove a symlink from the import queue) and it resumes on its own, then try again.",
	CodeTimeout:              "The library took too long to answer; try again, or narrow the request.",
	CodeInternal:             "This is a bug in mcpctl; try again, and report it if it repeats.",
	CodeUpstreamUnavailable:  "The project's MCP server named in the message is not running; mcpctl restarts it with backoff, and a call made while it restarts waits for it. If it keeps failing, run 'mcpctl get servers' and fix what its last error says.",
	CodeUpstreamError:        "The project's MCP server named in the message answered with an error instead of a result; the message gives its words. Call it again only if they say the failure was passing; otherwise use another tool. The server's own log is in mcpctl's stderr.",
	CodeProjectUnavailable:   "Tell the user what the message says is wrong with the project and how to fix it; once they have, they restart the MCP server (or reconnect it in the client). Do not work around it: the project's rules would be missing.",
	CodeLibraryUnavailable:   "Tell the user what the message says is wrong with the library (the path mcpctl looked at and what chose it) and the command that fixes it; once they have run it, they restart the MCP server (or reconnect it in the client). No other tool works until then.",
	CodeResultTooLarge:       "Call the tool again with the same arguments: the session is open now, so its result comes alone. For a list or a search, a smaller limit also helps.",
}

// OperationIDAdvice replaces INVALID_UUID's hint for an operationId: operation ids come from the
// write tools, not from the read tools the code's hint names.
const OperationIDAdvice = "Pass the operationId exactly as a write tool (create_prompt, update_prompt, delete_prompt, …) returned it."

// Hint is the one line telling the model what to do next.
func (c Code) Hint() string { return hints[c] }

// Error is a failure the model or the user can act on: a code, a message saying what happened,
// and through Code.Hint what to do next.
type Error struct {
	Code    Code
	Message string
	// For write failures: the queue operation's id and whether it was applied, so the model
	// never retries blindly.
	OperationID string
	Outcome     Outcome
	// Advice, when set, replaces the code's hint: the same code can need other advice (a
	// standalone library has no app to start).
	Advice string
	Err    error // the cause, if any; never shown to the model
}

// Outcome says what became of a queued operation that did not report success.
type Outcome string

// Outcomes of a failed write.
const (
	Applied    Outcome = "applied"
	NotApplied Outcome = "not_applied"
	Unknown    Outcome = "unknown"
)

// Errorf builds an *Error with a formatted message.
func Errorf(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

func (e *Error) Unwrap() error { return e.Err }

// Hint is the error's advice, or its code's hint.
func (e *Error) Hint() string {
	if e.Advice != "" {
		return e.Advice
	}
	return e.Code.Hint()
}

// CodeOf returns the code of the first *Error in err's chain, or CodeInternal.
func CodeOf(err error) Code {
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return CodeInternal
}
