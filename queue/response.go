package queue

import (
	"encoding/json"
	"errors"
	"os"
	"syscall"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

// readResponse reads and checks a response file: at most 1 MB, valid JSON, valid against the
// response schema. It does not follow symlinks.
func (w *Writer) readResponse(path string) (promptlib.Response, error) {
	f, err := w.FS.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return promptlib.Response{}, err
	}
	defer f.Close()
	data, ok, err := readLimited(f, promptlib.MaxOperationSize)
	if err != nil {
		return promptlib.Response{}, err
	}
	if !ok {
		return promptlib.Response{}, errors.New("larger than 1 MB")
	}
	return ParseResponse(data)
}

// ParseResponse checks a response file's content against the response schema and decodes it.
func ParseResponse(data []byte) (promptlib.Response, error) {
	var r promptlib.Response
	if len(data) == 0 {
		return r, errors.New("empty file")
	}
	if err := schemas.Validate("response", data); err != nil {
		return r, err
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, err
	}
	return r, nil
}
