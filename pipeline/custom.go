package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Custom stage limits.
const (
	// DefaultStageTimeout is how long a custom stage may run unless its config's timeoutMs says
	// otherwise.
	DefaultStageTimeout = 5 * time.Second
	// maxStageOutput bounds what a custom stage may print; more is a failure.
	maxStageOutput = 32 << 20
	// maxStageFile bounds the executable hashed for the cache key.
	maxStageFile = 256 << 20
)

// builtinStages are the stages every install has, by name.
var builtinStages = map[string]Stage{
	"passthrough":    StageFunc(passthrough),
	"paginate":       StageFunc(paginate),
	"section-split":  StageFunc(sectionSplit),
	"summarize-tree": StageFunc(summarizeTree),
}

// builtinVersion is part of every built-in stage's cache key, so results of other code are not
// served: it is bumped when a built-in's output changes, and carries the build's VCS revision
// where the binary has one.
var builtinVersion = func() string {
	v := "builtin-13"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" || s.Key == "vcs.time" {
				v += "/" + s.Value
			}
		}
	}
	return v
}()

// BuiltinStageNames lists the built-in stages, sorted.
func BuiltinStageNames() []string {
	names := make([]string, 0, len(builtinStages))
	for n := range builtinStages {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

var stageName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// StageInfo describes a stage for listings.
type StageInfo struct {
	Name    string `json:"name"`
	BuiltIn bool   `json:"builtIn"`
	Path    string `json:"path,omitempty"`
	Hash    string `json:"hash,omitempty"` // sha256 of a custom stage's file
	Problem string `json:"problem,omitempty"`
}

// Stages lists the built-in stages, then the custom stages in the stages directory. A file that
// cannot serve as a stage is listed with its problem.
func (e *Engine) Stages() ([]StageInfo, error) {
	var out []StageInfo
	for _, n := range BuiltinStageNames() {
		out = append(out, StageInfo{Name: n, BuiltIn: true})
	}
	entries, err := os.ReadDir(e.stagesDir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, &Error{Op: "list stages", Path: e.stagesDir, Err: err}
	}
	for _, en := range entries {
		if strings.HasPrefix(en.Name(), ".") || builtinStages[en.Name()] != nil {
			continue
		}
		info := StageInfo{Name: en.Name(), Path: filepath.Join(e.stagesDir, en.Name())}
		if _, id, err := e.resolveStage(en.Name()); err != nil {
			info.Problem = err.Error()
		} else {
			info.Hash = id
		}
		out = append(out, info)
	}
	return out, nil
}

// resolveStage finds a stage by name, a built-in first, then an executable in the stages
// directory. id identifies the stage's version for the cache: a custom stage's file hash.
func (e *Engine) resolveStage(name string) (Stage, string, error) {
	if s, ok := builtinStages[name]; ok {
		return s, builtinVersion, nil
	}
	if !stageName.MatchString(name) {
		return nil, "", fmt.Errorf("%q is not a stage name; the built-in stages are %s", name, strings.Join(BuiltinStageNames(), ", "))
	}
	path := filepath.Join(e.stagesDir, name)
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", fmt.Errorf("no stage %q: not a built-in (%s) and no executable %s; create one with 'mcpctl create stage %s'",
			name, strings.Join(BuiltinStageNames(), ", "), path, name)
	}
	if err != nil {
		return nil, "", err
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm()&0o111 == 0 {
		return nil, "", fmt.Errorf("stage %s is not an executable file; run chmod +x on it", path)
	}
	hash, err := e.fileHash(path, fi)
	if err != nil {
		return nil, "", err
	}
	return customStage{name: name, path: path}, hash, nil
}

type hashedFile struct {
	fp   fingerprint
	hash string
}

// fileHash returns the sha256 of a file, re-hashing only when its fingerprint changed.
func (e *Engine) fileHash(path string, fi fs.FileInfo) (string, error) {
	fp := fingerprintOf(fi)
	e.mu.Lock()
	h, ok := e.hashes[path]
	e.mu.Unlock()
	if ok && h.fp == fp {
		return h.hash, nil
	}
	data, _, err := readConfigFile(path, maxStageFile)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	e.mu.Lock()
	e.hashes[path] = hashedFile{fp, hash}
	e.mu.Unlock()
	return hash, nil
}

// customStage runs an executable: content on stdin, context in MCPCTL_STAGE_CONTEXT, result on
// stdout as plain text or {"mcpctl": "stage/1", "content", "sections", "metadata"}.
type customStage struct{ name, path string }

// StageContext is the JSON a custom stage finds in MCPCTL_STAGE_CONTEXT.
type StageContext struct {
	Stage   string         `json:"stage"`
	Type    ContentType    `json:"type"`
	Source  string         `json:"source"`
	Project string         `json:"project"`
	Config  map[string]any `json:"config"`
}

// stageOutput is a custom stage's JSON answer. Sections are byte ranges of the stage's input.
type stageOutput struct {
	Mcpctl   string          `json:"mcpctl"` // StageProtocol, checked before decoding
	Content  *string         `json:"content"`
	Sections []customSection `json:"sections"`
	Metadata map[string]any  `json:"metadata"`
}

type customSection struct {
	Title    string          `json:"title"`
	Offset   int             `json:"offset"`
	Bytes    int             `json:"bytes"`
	Children []customSection `json:"children"`
}

// limitedBuffer keeps at most max bytes and fails the write beyond, which ends the copy from the
// child's pipe. The buffer is a field, not embedded: an embedded bytes.Buffer's ReadFrom would
// let io.Copy bypass the limit.
type limitedBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
}

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if b.buf.Len()+len(p) > b.max {
		b.over = true
		return 0, errors.New("output too large")
	}
	return b.buf.Write(p)
}

func (b *limitedBuffer) Len() int       { return b.buf.Len() }
func (b *limitedBuffer) Bytes() []byte  { return b.buf.Bytes() }
func (b *limitedBuffer) String() string { return b.buf.String() }

// Run runs the executable in its own process group, which is killed as a whole on timeout or
// cancellation and after the stage exits, so no child it started outlives it.
func (cs customStage) Run(ctx context.Context, c Content, env Env) (Result, error) {
	timeout := DefaultStageTimeout
	if ms := configInt(env.Config, "timeoutMs", 0); ms > 0 {
		timeout = time.Duration(ms) * time.Millisecond
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	sc, _ := json.Marshal(StageContext{Stage: cs.name, Type: c.Type, Source: c.Source, Project: env.Project, Config: env.Config})
	cmd := exec.CommandContext(ctx, cs.path)
	cmd.Dir = filepath.Dir(cs.path)
	cmd.Env = append(os.Environ(), "MCPCTL_STAGE_CONTEXT="+string(sc))
	cmd.Stdin = strings.NewReader(c.Text)
	stdout := &limitedBuffer{max: maxStageOutput}
	stderr := &limitedBuffer{max: 64 << 10}
	cmd.Stdout, cmd.Stderr = stdout, io.Writer(stderr)
	ownProcessGroup(cmd)
	// A grandchild holding the pipes open must not keep Wait waiting after the group is killed.
	cmd.WaitDelay = time.Second
	err := cmd.Run()
	killProcessGroup(cmd)
	switch {
	case stdout.over: // the cause, even when the stage then also ran out of time
		return Result{}, fmt.Errorf("%w: %s printed more than %d bytes", ErrStageFailed, cs.name, maxStageOutput)
	case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.DeadlineExceeded):
		return Result{}, fmt.Errorf("%w: %s timed out after %v (timeoutMs in its config sets the limit)", ErrStageFailed, cs.name, timeout)
	case ctx.Err() != nil:
		return Result{}, fmt.Errorf("%w: %s: %v", ErrStageFailed, cs.name, ctx.Err())
	case err != nil:
		return Result{}, fmt.Errorf("%w: %s: %v%s", ErrStageFailed, cs.name, err, stderrTail(stderr.String()))
	}
	if stderr.Len() > 0 { // may quote content: debug only
		env.Log.Debug("pipeline: custom stage wrote to stderr", "bytes", stderr.Len(), "stderr", stderr.String()[:runeStart(stderr.String(), min(stderr.Len(), 2000))])
	}
	return parseStageOutput(cs.name, stdout.Bytes(), c, env)
}

// StageProtocol is the marker a custom stage's JSON answer carries as its "mcpctl" member:
// {"mcpctl": "stage/1", "content": "...", "sections": [...], "metadata": {...}}.
const StageProtocol = "stage/1"

// parseStageOutput reads a custom stage's stdout. It is the JSON answer only when it is a JSON
// object with the member "mcpctl": "stage/1" (StageProtocol), and then it must be exactly the
// documented object; anything else is plain text, whatever it looks like. Output was once read
// as the JSON answer whenever it started with '{': a sed or cat stage over a JSON tool result
// then "failed" (and the unredacted input went on), and a result shaped like
// {"content": "…", "metadata": {}} was replaced by its inner string. Empty output or output that
// is not UTF-8 is a failure, so a stage that crashed quietly cannot erase content.
func parseStageOutput(name string, out []byte, c Content, env Env) (Result, error) {
	if len(out) == 0 && len(c.Text) > 0 {
		return Result{}, fmt.Errorf("%w: %s printed nothing", ErrStageFailed, name)
	}
	if !utf8.Valid(out) {
		return Result{}, fmt.Errorf("%w: %s printed %d bytes that are not UTF-8 text", ErrStageFailed, name, len(out))
	}
	marker, ok := protocolMarker(out)
	if !ok {
		return Result{Text: string(out)}, nil
	}
	if marker != `"`+StageProtocol+`"` {
		return Result{}, fmt.Errorf("%w: %s printed a JSON answer marked \"mcpctl\": %s; this mcpctl reads \"mcpctl\": %q", ErrStageFailed, name, clip(marker, 40), StageProtocol)
	}
	var so stageOutput
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&so); err != nil || so.Content == nil {
		why := "no string content"
		if err != nil {
			why = err.Error()
		}
		return Result{}, fmt.Errorf("%w: %s printed a JSON answer (\"mcpctl\": %q) that is not {\"mcpctl\", \"content\", \"sections\", \"metadata\"} with a string content: %s", ErrStageFailed, name, StageProtocol, why)
	}
	r := Result{Text: *so.Content, Metadata: so.Metadata}
	if len(so.Sections) > 0 { // byte ranges of the stage's input
		secs, err := customSections(so.Sections, len(c.Text), 0)
		if err != nil {
			return Result{}, fmt.Errorf("%w: %s: %v", ErrStageFailed, name, err)
		}
		r.Sections = normalize(c.Text, secs, 0, len(c.Text))
	}
	return r, nil
}

// protocolMarker returns the raw JSON value of the top-level "mcpctl" member when out is a JSON
// object whose "mcpctl" is a string "stage/…"; ok is false for anything else, plain text.
func protocolMarker(out []byte) (marker string, ok bool) {
	t := unsafe.String(unsafe.SliceData(out), len(out)) // read only, while out lives
	i := skipWS(t, 0)
	if i >= len(t) || t[i] != '{' || !json.Valid(out) {
		return "", false
	}
	eachItem(t, i, func(it jsonItem) bool {
		if it.key == "mcpctl" {
			// Only a string "stage/…" marks an answer (a later version's too, so it fails
			// saying which this mcpctl reads); an "mcpctl" member of another kind is content.
			marker = t[it.valStart:it.valEnd]
			ok = strings.HasPrefix(marker, `"stage/`)
			return false
		}
		return true
	})
	return marker, ok
}

// stderrTail is the last line a failed stage wrote to stderr, for its error: usually the reason
// (a traceback's last line, a shell's "not found"). It is clipped, for stderr may quote content.
func stderrTail(stderr string) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if last == "" {
		return ""
	}
	return "; its stderr ends: " + strconv.Quote(clip(last, 200))
}

func customSections(in []customSection, n, depth int) ([]Section, error) {
	if depth > maxDepth {
		return nil, errors.New("sections nested too deeply")
	}
	out := make([]Section, 0, len(in))
	for _, s := range in {
		if s.Offset < 0 || s.Bytes < 0 || s.Offset+s.Bytes > n {
			return nil, fmt.Errorf("section %q at offset %d of %d bytes lies outside the %d bytes of input", s.Title, s.Offset, s.Bytes, n)
		}
		children, err := customSections(s.Children, n, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, Section{Title: clip(s.Title, 120), Start: s.Offset, End: s.Offset + s.Bytes, Kind: KindLines, Children: children})
	}
	return out, nil
}
