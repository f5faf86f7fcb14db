package promptlib

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/google/uuid"
)

// OpKind names what a queue operation does.
type OpKind string

// The operations the import queue carries. They are part of the queue contract with the app:
// never rename one.
const (
	OpCreatePrompt OpKind = "create_prompt"
	OpUpdatePrompt OpKind = "update_prompt"
	OpDeletePrompt OpKind = "delete_prompt"
	OpCreateFolder OpKind = "create_folder"
	OpUpdateFolder OpKind = "update_folder"
	OpDeleteFolder OpKind = "delete_folder"
)

// OpKinds lists every operation kind.
var OpKinds = []OpKind{OpCreatePrompt, OpUpdatePrompt, OpDeletePrompt, OpCreateFolder, OpUpdateFolder, OpDeleteFolder}

// MaxOperationSize is the largest operation file the queue accepts, in bytes.
const MaxOperationSize = 1 << 20

// Operation is one queue operation file, import-queue/{id}.json. Data is the tool input, kept as
// raw JSON so that "absent" and "null" stay distinct until the typed Data struct is decoded.
type Operation struct {
	ID        string          `json:"id"`
	Operation OpKind          `json:"operation"`
	Timestamp Time            `json:"timestamp"`
	Data      json.RawMessage `json:"data"`
}

// NewOperation builds an operation with a fresh lower-case UUIDv4 and the current time. data is
// the tool input, either raw JSON or a value that marshals to it. Data holds it re-encoded
// (CanonicalJSON), so that the operation's size, which the queue bounds, depends on the content
// and not on how the client escaped it.
func NewOperation(kind OpKind, data any) (Operation, error) {
	raw, ok := data.(json.RawMessage)
	if !ok {
		b, err := json.Marshal(data)
		if err != nil {
			return Operation{}, fmt.Errorf("promptlib: operation data: %w", err)
		}
		raw = b
	}
	raw, err := CanonicalJSON(raw)
	if err != nil {
		return Operation{}, fmt.Errorf("promptlib: operation data is not one JSON value: %w", err)
	}
	return Operation{ID: uuid.NewString(), Operation: kind, Timestamp: Time{time.Now().UTC().Truncate(time.Millisecond)}, Data: raw}, nil
}

// CanonicalJSON re-encodes one JSON value compactly, its strings as UTF-8 the way Go's encoder
// writes them without HTML escaping: a client's "\ud83d\ude00" (12 bytes) becomes the 4 bytes of
// 😀, "\u00e9" é, "\/" /. Only control characters, quotes, backslashes, U+2028 and U+2029 stay
// escaped, so a string of n characters takes at most 6n bytes. Keys keep their order (and
// duplicates stay), numbers their text, and absent fields stay absent, null null: the value
// means what the client sent. Strings with invalid UTF-8 or lone surrogates get U+FFFD, as
// the decoder reads them.
func CanonicalJSON(raw []byte) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var out, str bytes.Buffer
	out.Grow(len(raw))
	enc := json.NewEncoder(&str)
	enc.SetEscapeHTML(false)
	writeString := func(s string) error {
		str.Reset()
		if err := enc.Encode(s); err != nil {
			return err
		}
		out.Write(bytes.TrimSuffix(str.Bytes(), []byte("\n")))
		return nil
	}
	type frame struct {
		object bool
		n      int // keys and values written so far
	}
	var stack []frame
	for started := false; ; started = true {
		if started && len(stack) == 0 {
			// One value read: anything after it but space is not one value.
			if _, err := dec.Token(); !errors.Is(err, io.EOF) {
				return nil, errors.New("more than one JSON value")
			}
			return out.Bytes(), nil
		}
		tok, err := dec.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return nil, err
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			out.WriteByte(byte(d))
			continue
		}
		key := false
		if len(stack) > 0 {
			f := &stack[len(stack)-1]
			key = f.object && f.n%2 == 0
			if f.n > 0 && (key || !f.object) {
				out.WriteByte(',')
			}
			f.n++
		}
		switch v := tok.(type) {
		case json.Delim: // '{' or '['
			stack = append(stack, frame{object: v == '{'})
			out.WriteByte(byte(v))
		case string:
			if err := writeString(v); err != nil {
				return nil, err
			}
			if key {
				out.WriteByte(':')
			}
		case json.Number:
			out.WriteString(string(v))
		case bool:
			out.WriteString(fmt.Sprint(v))
		case nil:
			out.WriteString("null")
		}
	}
}

// Response is a response file, import-queue/.response-{id}.json: what the app (or mcpctl's
// processor) answered. ID is the prompt or folder the operation created or touched.
type Response struct {
	Status  string  `json:"status"` // StatusSuccess or StatusError
	ID      *string `json:"id"`
	Message string  `json:"message"`
	Error   *string `json:"error"` // an error Code when Status is StatusError
}

// Response statuses.
const (
	StatusSuccess = "success"
	StatusError   = "error"
)

// Success builds a success response for the entity id.
func Success(id, format string, args ...any) Response {
	return Response{Status: StatusSuccess, ID: &id, Message: fmt.Sprintf(format, args...)}
}

// Failure builds the error response for err: its Code and message when it is an *Error,
// DATABASE_ERROR otherwise (the cause stays out of the message).
func Failure(err error) Response {
	code, msg := CodeDatabaseError, "the library could not be written"
	if e, ok := err.(*Error); ok {
		code, msg = e.Code, e.Message
	}
	c := string(code)
	return Response{Status: StatusError, Message: msg, Error: &c}
}

// OK reports whether the response is a success.
func (r Response) OK() bool { return r.Status == StatusSuccess }

// Optional is a field of an update: absent (Set false) leaves the stored value unchanged, JSON
// null (Set and Null) clears it, anything else (Set, Value) replaces it.
type Optional[T any] struct {
	Set   bool
	Null  bool
	Value T
}

// Some is a present, non-null Optional.
func Some[T any](v T) Optional[T] { return Optional[T]{Set: true, Value: v} }

// Null is a present null Optional.
func Null[T any]() Optional[T] { return Optional[T]{Set: true, Null: true} }

// UnmarshalJSON is only called for a present field, which is how absence is told from null.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if string(b) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// MarshalJSON writes null for a null (or absent) field; tag the field omitzero so that an
// absent one is left out.
func (o Optional[T]) MarshalJSON() ([]byte, error) {
	if !o.Set || o.Null {
		return []byte("null"), nil
	}
	return json.Marshal(o.Value)
}

// IsZero reports absence, for the omitzero tag.
func (o Optional[T]) IsZero() bool { return !o.Set }

// CreatePromptData is the data of create_prompt. Nil optional fields are unset.
type CreatePromptData struct {
	Title    string  `json:"title"`
	Content  string  `json:"content"`
	FolderID *string `json:"folderId,omitempty"`
	Emoji    *string `json:"emoji,omitempty"`
	Color    *string `json:"color,omitempty"`
	URL      *string `json:"url,omitempty"`
}

// UpdatePromptData is the data of update_prompt. Null title or content is invalid; null
// folderId moves the prompt to the top level; null emoji, color or url clears it.
type UpdatePromptData struct {
	ID       string           `json:"id"`
	Title    Optional[string] `json:"title,omitzero"`
	Content  Optional[string] `json:"content,omitzero"`
	FolderID Optional[string] `json:"folderId,omitzero"`
	Emoji    Optional[string] `json:"emoji,omitzero"`
	Color    Optional[string] `json:"color,omitzero"`
	URL      Optional[string] `json:"url,omitzero"`
}

// DeletePromptData is the data of delete_prompt.
type DeletePromptData struct {
	ID string `json:"id"`
}

// CreateFolderData is the data of create_folder; a nil ParentID makes a top-level folder.
type CreateFolderData struct {
	Name     string  `json:"name"`
	ParentID *string `json:"parentId,omitempty"`
}

// UpdateFolderData is the data of update_folder; null parentId moves the folder to the top level.
type UpdateFolderData struct {
	ID       string           `json:"id"`
	Name     Optional[string] `json:"name,omitzero"`
	ParentID Optional[string] `json:"parentId,omitzero"`
}

// DeleteFolderData is the data of delete_folder.
type DeleteFolderData struct {
	ID        string `json:"id"`
	Recursive bool   `json:"recursive,omitempty"`
}

// Validate checks the fields with the same rules as the read side. The schema has already
// checked shapes; this is the second line, run again by the processor.
func (d CreatePromptData) Validate() error {
	return firstError(
		ValidateTitle(d.Title),
		ValidateContent(d.Content),
		optionalID("folderId", d.FolderID),
		optional(d.Emoji, ValidateEmoji),
		optional(d.Color, ValidateColor),
		optional(d.URL, ValidateURL),
	)
}

// Validate checks the present fields; null title or content is INVALID_INPUT.
func (d UpdatePromptData) Validate() error {
	if d.Title.Set && d.Title.Null {
		return Errorf(CodeInvalidInput, "title cannot be null; leave it out to keep the title")
	}
	if d.Content.Set && d.Content.Null {
		return Errorf(CodeInvalidInput, "content cannot be null; leave it out to keep the content")
	}
	return firstError(
		ValidateID("id", d.ID),
		present(d.Title, ValidateTitle),
		present(d.Content, ValidateContent),
		present(d.FolderID, func(s string) error { return ValidateID("folderId", s) }),
		present(d.Emoji, ValidateEmoji),
		present(d.Color, ValidateColor),
		present(d.URL, ValidateURL),
	)
}

// Validate checks the id.
func (d DeletePromptData) Validate() error { return ValidateID("id", d.ID) }

// Validate checks the name and the parent id.
func (d CreateFolderData) Validate() error {
	return firstError(ValidateName(d.Name), optionalID("parentId", d.ParentID))
}

// Validate checks the present fields; null name is INVALID_INPUT.
func (d UpdateFolderData) Validate() error {
	if d.Name.Set && d.Name.Null {
		return Errorf(CodeInvalidInput, "name cannot be null; leave it out to keep the name")
	}
	return firstError(
		ValidateID("id", d.ID),
		present(d.Name, ValidateName),
		present(d.ParentID, func(s string) error { return ValidateID("parentId", s) }),
	)
}

// Validate checks the id.
func (d DeleteFolderData) Validate() error { return ValidateID("id", d.ID) }

// Validator is the typed data of one operation.
type Validator interface{ Validate() error }

// DecodeData decodes op.Data into the typed struct of its kind and validates it. Unknown fields
// are INVALID_INPUT: the data is the tool input, whose schema allows none.
func DecodeData(op Operation) (Validator, error) {
	var v Validator
	switch op.Operation {
	case OpCreatePrompt:
		v = &CreatePromptData{}
	case OpUpdatePrompt:
		v = &UpdatePromptData{}
	case OpDeletePrompt:
		v = &DeletePromptData{}
	case OpCreateFolder:
		v = &CreateFolderData{}
	case OpUpdateFolder:
		v = &UpdateFolderData{}
	case OpDeleteFolder:
		v = &DeleteFolderData{}
	default:
		return nil, Errorf(CodeInvalidInput, "unknown operation %q", truncate(string(op.Operation), 40))
	}
	dec := json.NewDecoder(strings.NewReader(string(op.Data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return nil, Errorf(CodeInvalidInput, "%s data: %v", op.Operation, err)
	}
	if err := v.Validate(); err != nil {
		return nil, err
	}
	return v, nil
}

// TargetID is the existing prompt or folder an operation touches, "" for creations.
func TargetID(v Validator) string {
	switch d := v.(type) {
	case *UpdatePromptData:
		return d.ID
	case *DeletePromptData:
		return d.ID
	case *UpdateFolderData:
		return d.ID
	case *DeleteFolderData:
		return d.ID
	}
	return ""
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func optional(p *string, check func(string) error) error {
	if p == nil {
		return nil
	}
	return check(*p)
}

func optionalID(field string, p *string) error {
	return optional(p, func(s string) error { return ValidateID(field, s) })
}

func present(o Optional[string], check func(string) error) error {
	if !o.Set || o.Null {
		return nil
	}
	return check(o.Value)
}
