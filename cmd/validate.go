package cmd

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"github.com/mcpctl/mcpctl/promptlib"
	"github.com/mcpctl/mcpctl/schemas"
)

func runValidate(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("validate", "mcpctl validate [--kind operation|response] PATH...",
		"Checks queue operation files ({id}.json) and response files (.response-{id}.json) against the schemas\n"+
			"and the field rules. A directory is checked file by file (*.json, recursively). The kind is told by the\n"+
			"file name unless --kind says it; then an operation's name must be {id}.json, as the processor claims it by\n"+
			"name, while with --kind only the content is checked. Prints one line per problem, 'file: /json/pointer: message'.\n"+
			"Exit status: 0 all valid, 1 some invalid, 2 usage error.")
	kind := fs.String("kind", "", "treat every file as one `KIND`: operation or response")
	if err := fs.parse(env, args); err != nil {
		return err
	}
	if *kind != "" && *kind != "operation" && *kind != "response" {
		return fs.usageError("--kind must be operation or response, not %q", *kind)
	}
	if fs.NArg() == 0 {
		return fs.usageError("give at least one file or directory")
	}
	var files []string
	for _, p := range fs.Args() {
		found, err := queueFiles(p)
		if err != nil {
			return fs.usageError("%v", err)
		}
		files = append(files, found...)
	}
	bad, checked := 0, 0
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			// SIGINT or SIGTERM: stop between files, saying how far it got.
			fmt.Fprintf(env.Stderr, "interrupted after %d of %d files, %d invalid\n", checked, len(files), bad)
			return err
		}
		checked++
		k := *kind
		if k == "" {
			k = kindOf(f)
		}
		problems := validateQueueFile(f, k, *kind == "")
		for _, p := range problems {
			fmt.Fprintf(env.Stdout, "%s: %s\n", f, p)
		}
		if len(problems) > 0 {
			bad++
		}
	}
	fmt.Fprintf(env.Stderr, "%d %s checked, %d invalid\n", len(files), countNoun(len(files), "file", "files"), bad)
	if len(files) == 0 {
		// Valid (an empty queue is), but a path that missed its files would pass unseen.
		fmt.Fprintln(env.Stderr, "no *.json files under "+strings.Join(fs.Args(), ", ")+": nothing was checked")
	}
	if bad > 0 {
		return exitError(1)
	}
	return nil
}

// queueFiles expands path: a file stands for itself, a directory for the *.json files below it.
func queueFiles(path string) ([]string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%s does not exist", path)
	} else if err != nil {
		return nil, fmt.Errorf("cannot read %s: %s", path, rootErr(err))
	}
	if !fi.IsDir() {
		return []string{path}, nil
	}
	var out []string
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(d.Name(), ".json") {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

// kindOf tells a file's kind by its name, as the queue names them.
func kindOf(path string) string {
	if strings.HasPrefix(filepath.Base(path), ".response-") {
		return "response"
	}
	return "operation"
}

// validateQueueFile returns the file's problems as "/pointer: message". With byName, the file
// is a queue file as named, and an operation's name must be the one the processor claims it by.
func validateQueueFile(path, kind string, byName bool) []string {
	// A FIFO, socket or device named *.json must never be opened for reading: a FIFO's open
	// blocks until a writer comes, forever. Lstat first, then open without blocking or
	// following, and check again on the open file (it may have been swapped in between).
	fi, err := os.Lstat(path)
	if err != nil {
		return []string{"/: cannot read: " + rootErr(err)}
	}
	if !fi.Mode().IsRegular() {
		return []string{notRegular(fi.Mode())}
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return []string{"/: cannot read: " + rootErr(err)}
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		if err != nil {
			return []string{"/: cannot read: " + rootErr(err)}
		}
		return []string{notRegular(fi.Mode())}
	}
	data, err := io.ReadAll(io.LimitReader(f, promptlib.MaxOperationSize+1))
	if err != nil {
		return []string{"/: cannot read: " + err.Error()}
	}
	if len(data) > promptlib.MaxOperationSize {
		return []string{fmt.Sprintf("/: larger than %d bytes", promptlib.MaxOperationSize)}
	}
	if err := schemas.Validate(kind, data); err != nil {
		var se *schemas.Error
		if !errors.As(err, &se) {
			return []string{"/: " + err.Error()}
		}
		out := make([]string, len(se.Problems))
		for i, p := range se.Problems {
			out[i] = p.String()
		}
		return out
	}
	if kind != "operation" {
		return nil
	}
	// Past the schema: the field rules the schema cannot say (one emoji, http(s) URLs, blank
	// text), and the file name the processor claims it by.
	var op promptlib.Operation
	if err := json.Unmarshal(data, &op); err != nil {
		return []string{"/: " + err.Error()}
	}
	var out []string
	if _, err := promptlib.DecodeData(op); err != nil {
		msg := err.Error()
		var pe *promptlib.Error
		if errors.As(err, &pe) {
			msg = pe.Message
		}
		out = append(out, dataPointer(msg)+": "+msg)
	}
	base := filepath.Base(path)
	switch {
	case promptlib.ValidID(strings.TrimSuffix(base, ".json")) && !strings.EqualFold(base, op.ID+".json"):
		out = append(out, fmt.Sprintf("/id: %s does not match the file name %s", op.ID, base))
	case byName && !promptlib.ValidID(strings.TrimSuffix(base, ".json")):
		fate := "fails"
		if strings.HasPrefix(base, ".") {
			fate = "never takes" // a dot-file is its own (temp files, responses)
		}
		out = append(out, fmt.Sprintf("/: the processor claims an operation by its file name {id}.json and %s %s; name it %s.json, or pass --kind operation to check a fixture's content alone", fate, base, op.ID))
	}
	return out
}

// notRegular is the problem line for a path that is not a regular file; it was not read.
func notRegular(m fs.FileMode) string {
	what := "a " + m.Type().String()
	switch {
	case m&fs.ModeSymlink != 0:
		what = "a symlink"
	case m&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	case m.IsDir():
		what = "a directory"
	}
	return "/: not a regular file (" + what + "); it was not read"
}

// rootErr is the system's word for a failure, without the path the line already names.
func rootErr(err error) string {
	if u := errors.Unwrap(err); u != nil {
		return u.Error()
	}
	return err.Error()
}

// dataPointer points a field rule's message ("emoji ... is not exactly one emoji") at its field.
func dataPointer(msg string) string {
	field, _, _ := strings.Cut(msg, " ")
	switch field {
	case "title", "content", "folderId", "emoji", "color", "url", "name", "parentId", "id":
		return "/data/" + field
	}
	return "/data"
}
