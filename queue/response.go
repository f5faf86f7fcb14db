package queue

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"syscall"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

// readResponse reads and checks a response file: at most 1 MB, valid JSON, valid against the
// response schema. It does not follow symlinks, nor block on a FIFO planted at the path (the
// writer would wait past every deadline).
func (w *Writer) readResponse(path string) (promptlib.Response, error) {
	f, err := w.FS.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return promptlib.Response{}, err
	}
	defer f.Close()
	if st, ok := f.(interface{ Stat() (fs.FileInfo, error) }); ok {
		if fi, err := st.Stat(); err != nil || !fi.Mode().IsRegular() {
			return promptlib.Response{}, errors.New("not a regular file")
		}
	}
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
