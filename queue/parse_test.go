package queue

import (
	"testing"

	"github.com/mcpctl/mcpctl/promptlib"
)

// FuzzParseResponse: a response file of any content is either a valid answer or an error;
// never a panic, never a success without the schema's blessing.
func FuzzParseResponse(f *testing.F) {
	f.Add([]byte(`{"status":"success","id":"AAAAAAAA-0000-4000-8000-000000000001","message":"ok","error":null}`))
	f.Add([]byte(`{"status":"error","message":"no","error":"FOLDER_NOT_FOUND"}`))
	f.Add([]byte(`{"status":"succ`))
	f.Add([]byte(``))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := ParseResponse(data)
		if err != nil {
			return
		}
		if r.Status != promptlib.StatusSuccess && r.Status != promptlib.StatusError {
			t.Fatalf("accepted status %q from %q", r.Status, data)
		}
		if r.OK() && r.Error != nil {
			t.Fatalf("accepted a success with error %q", *r.Error)
		}
	})
}
