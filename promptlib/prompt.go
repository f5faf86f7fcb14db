package promptlib

import (
	"encoding/json"
	"strings"
	"time"
)

// Prompt is one library prompt as the API speaks it. Optional fields are nil when unset, and
// marshal as JSON null so every tool result has the same shape.
type Prompt struct {
	ID        string  `json:"id"`
	Title     string  `json:"title"`
	Content   string  `json:"content"`
	FolderID  *string `json:"folderId"`
	Emoji     *string `json:"emoji"`
	Color     *string `json:"color"`
	URL       *string `json:"url"`
	CreatedAt Time    `json:"createdAt"`
	UpdatedAt Time    `json:"updatedAt"`
}

// Folder is one library folder. Prompteka's schema stores no icon or color for folders, so the
// API has none either.
type Folder struct {
	ID        string  `json:"id"`
	Name      string  `json:"name"`
	ParentID  *string `json:"parentId"`
	Position  int     `json:"-"`
	CreatedAt Time    `json:"createdAt"`
	UpdatedAt Time    `json:"updatedAt"`
}

// Library is a whole library held in memory: what fixtures and `mcpctl library init` write.
type Library struct {
	Folders []Folder
	Prompts []Prompt
}

// Time is a timestamp that the API speaks as RFC 3339 in UTC with milliseconds and the database
// stores as Unix seconds.
type Time struct{ time.Time }

// TimeLayout is the API's timestamp format.
const TimeLayout = "2006-01-02T15:04:05.000Z07:00"

// FromUnix converts a stored Unix timestamp, which the app may write as an integer or a real.
func FromUnix(sec float64) Time {
	whole := int64(sec)
	nanos := int64((sec - float64(whole)) * 1e9)
	return Time{time.Unix(whole, nanos).UTC()}
}

// Unix is the stored form: whole seconds, as the app writes them.
func (t Time) Unix() int64 { return t.Time.Unix() }

// String formats t in the API's layout.
func (t Time) String() string { return t.UTC().Format(TimeLayout) }

// MarshalJSON writes the API's layout. The layout has nothing JSON escapes, so the string is
// written directly (a page of 100 prompts has 200 timestamps).
func (t Time) MarshalJSON() ([]byte, error) {
	return t.AppendJSON(make([]byte, 0, len(TimeLayout)+8)), nil
}

// AppendJSON appends what MarshalJSON writes, for encoders that build a result by hand. The
// digits are written directly: AppendFormat's general layout walk was half the cost of a page
// of prompts written by hand.
func (t Time) AppendJSON(b []byte) []byte {
	u := t.UTC()
	year, month, day := u.Date()
	if year < 0 || year > 9999 {
		return append(u.AppendFormat(append(b, '"'), TimeLayout), '"')
	}
	hour, minute, sec := u.Clock()
	ms := u.Nanosecond() / 1e6
	return append(b, '"',
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-', byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':', byte('0'+minute/10), byte('0'+minute%10), ':',
		byte('0'+sec/10), byte('0'+sec%10), '.', byte('0'+ms/100), byte('0'+ms/10%10), byte('0'+ms%10), 'Z', '"')
}

// UnmarshalJSON accepts any RFC 3339 timestamp.
func (t *Time) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return err
	}
	t.Time = v.UTC()
	return nil
}

// Ptr returns a pointer to v; optional fields are pointers.
func Ptr[T any](v T) *T { return &v }

// Key is the form of an id for maps and comparisons: the app may spell the same id in upper
// case in one place and lower case in another (a folder's id and a child's parent_id), so ids
// are compared case-insensitively and shown as stored.
func Key(id string) string { return strings.ToLower(id) }
