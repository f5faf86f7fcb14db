package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"
)

// Options configure an Engine. Every path is explicit, so tests point them at temporary
// directories.
type Options struct {
	// ConfigDir is $XDG_CONFIG_HOME/mcpctl: proxymodels/, stages/ and config.yaml live there.
	ConfigDir string
	// CacheDir is $XDG_CACHE_HOME/mcpctl: the disk cache lives in its pipeline/ directory. ""
	// keeps results in memory only.
	CacheDir string
	// CacheBytes caps the disk cache; 0 means DefaultCacheBytes.
	CacheBytes int64
	// Logger receives diagnostics; nil discards them.
	Logger *slog.Logger
	// LLM, when set, is used instead of config.yaml's llm.
	LLM Completer
	// NoLLM leaves config.yaml unread: no LLM, whatever it says. For callers that need no LLM
	// (checking a project's models), and for serve when the file is broken.
	NoLLM bool
	// Getenv reads the environment (the LLM's API key); nil means os.Getenv.
	Getenv func(string) string
}

// Engine runs proxymodels over content. It is safe for concurrent use; one Engine serves a whole
// process. It starts no goroutines that outlive a call (custom stages are waited for, LLM
// requests end with their call); Close releases the one file it keeps open, its request
// counters.
type Engine struct {
	modelsDir, stagesDir string
	log                  *slog.Logger
	disk                 *diskCache // nil when there is no usable disk cache
	diskErr              error
	memo                 *memo
	llm                  Completer
	llmID                string
	hits, misses         atomic.Int64 // lookups, in memory or on disk, since the Engine started

	mu     sync.Mutex
	models map[string]*loadedModel
	hashes map[string]hashedFile
}

// memoBytes bounds the in-process copy of recent results.
const memoBytes = 64 << 20

// NewEngine makes an Engine. An invalid config.yaml is an error (it names the file, field and
// line); a cache directory that cannot be used safely is not: the Engine then works without a
// disk cache, logs why, and CacheErr reports it.
func NewEngine(opts Options) (*Engine, error) {
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	e := &Engine{
		modelsDir: filepath.Join(opts.ConfigDir, "proxymodels"),
		stagesDir: filepath.Join(opts.ConfigDir, "stages"),
		log:       log,
		memo:      newMemo(memoBytes),
		models:    map[string]*loadedModel{},
		hashes:    map[string]hashedFile{},
	}
	if opts.CacheDir != "" {
		e.disk, e.diskErr = openCache(filepath.Join(opts.CacheDir, "pipeline"), opts.CacheBytes, log)
		if e.diskErr != nil {
			log.Warn("pipeline: working without a disk cache", "err", e.diskErr)
		}
	}
	e.llm = opts.LLM
	if e.llm != nil {
		e.llmID = fmt.Sprintf("%T", e.llm)
	} else if !opts.NoLLM {
		cfg, err := LoadConfig(filepath.Join(opts.ConfigDir, "config.yaml"))
		if err != nil {
			return nil, err
		}
		if cfg.LLM != nil {
			getenv := opts.Getenv
			if getenv == nil {
				getenv = os.Getenv
			}
			e.llm = NewLLMClient(*cfg.LLM, getenv, nil)
			e.llmID = cfg.LLM.URL + " " + cfg.LLM.Model
		}
	}
	return e, nil
}

// ConfigKey identifies what shapes the engine's output: the built-in stages' version, the proxy
// models and custom stages on disk (names, sizes, times) and the LLM. A caller that keeps
// something it derived from a transform between runs (a table of contents' size) keys it with
// this, so a changed model, or a built-in stage that now splits differently, is not answered
// from an old derivation.
func (e *Engine) ConfigKey() string {
	h := sha256.New()
	io.WriteString(h, builtinVersion+"\n")
	for _, dir := range []string{e.modelsDir, e.stagesDir} {
		entries, _ := os.ReadDir(dir) // a missing directory is no models, as loading finds
		for _, en := range entries {
			if info, err := en.Info(); err == nil {
				fmt.Fprintf(h, "%s\x00%s\x00%d\x00%d\n", dir, en.Name(), info.Size(), info.ModTime().UnixNano())
			}
		}
	}
	io.WriteString(h, e.llmID)
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// LLM returns the configured chat model (config.yaml's llm, or Options.LLM), or nil; the gate
// may use it to re-rank, under its own timeout and with its own fallback.
func (e *Engine) LLM() Completer { return e.llm }

// Close releases the Engine's open file. The Engine still works after Close, without
// counting requests on disk.
func (e *Engine) Close() error {
	if e.disk != nil {
		return e.disk.close()
	}
	return nil
}

// CacheErr says why there is no disk cache, or nil.
func (e *Engine) CacheErr() error { return e.diskErr }

// Request is one piece of content to transform with a model.
type Request struct {
	Model   string // the proxymodel's name
	Content Content
	Project string // the project served, passed to custom stages; may be ""
	// BuiltIn asks for the built-in model called Model even when a file overrides it, whatever
	// the content's size: the server's last resort for a result too large to send, which a
	// user's model must not undo, nor the model's minBytes (28 KB of ids is over a result's
	// tokens, under the default's 32 KB).
	BuiltIn bool
	// Fresh runs every stage whatever the cache holds (their results are cached as ever): for
	// one who is watching the stages' diagnostics, which a cached result has none of.
	Fresh bool
}

// Output is a transformed piece of content.
type Output struct {
	// Text is what to send instead of the content: the last stage's text, followed, when there
	// are sections, by the drill-down footer naming the ref (and the sections, unless the text
	// is already their table). When the model does not apply, Text is the content unchanged.
	Text string
	// Body is what the stages made, without the footer: the text a caller that must bound the
	// result further pages (the original when the model does not apply). Paging the original
	// instead would send what a stage such as a redaction meant to remove.
	Body string
	// Applied reports whether the model applied (content type and minBytes).
	Applied bool
	// Ref names the original with its sections for ReadSection; "" without sections.
	Ref string
	// Sections is the section tree, with ids. It is shared: do not modify it.
	Sections []Section
	// Metadata merges the stages' metadata.
	Metadata map[string]any
	Metrics  Metrics
}

// Metrics describe a transform for the traffic event (DESIGN §8's pipeline fields) and logs.
type Metrics struct {
	Model       string        `json:"model"`
	Stages      []StageMetric `json:"stages"`
	BytesBefore int           `json:"bytesBefore"`
	BytesAfter  int           `json:"bytesAfter"`
	CacheHit    bool          `json:"cacheHit"` // every stage's result came from the cache
	Duration    time.Duration `json:"-"`
}

// StageNames lists the stages that ran, in order.
func (m Metrics) StageNames() []string {
	out := make([]string, len(m.Stages))
	for i, s := range m.Stages {
		out[i] = s.Name
	}
	return out
}

// StageMetric describes one stage's part in a transform.
type StageMetric struct {
	Name       string `json:"name"`
	BytesIn    int    `json:"bytesIn"`
	BytesOut   int    `json:"bytesOut"`
	CacheHit   bool   `json:"cacheHit"`
	DurationMs int64  `json:"durationMs"`
	Error      string `json:"error,omitempty"` // the stage failed and passed its input through
}

// SectionsMeta is the value of a result's `_meta["mcpctl/sections"]` (DESIGN §9).
type SectionsMeta struct {
	Ref      string        `json:"ref"`
	Sections []SectionInfo `json:"sections"`
	// Omitted counts the sections the tree leaves out (see MaxMetaSections): those under a
	// section with parts, and top-level ones past the last listed. read_section on a section
	// with parts lists them.
	Omitted int `json:"omitted,omitempty"`
}

// MaxMetaSections bounds the sections `_meta["mcpctl/sections"]` carries. The tree rides on
// the result beside an index of about 1.5 KB, and clients keep it with the conversation: the
// whole tree of a 20,000-element array was 880 KB. 256 sections of id, title and size are about
// 15 KB, as deep as the index itself goes for what a summary can show, and every section left
// out is one read_section away.
const MaxMetaSections = 256

// Meta returns the value for `_meta["mcpctl/sections"]`, or nil when there are no sections.
func (o Output) Meta() *SectionsMeta {
	if o.Ref == "" {
		return nil
	}
	infos, omitted := InfosWithin(o.Sections, MaxMetaSections)
	return &SectionsMeta{Ref: o.Ref, Sections: infos, Omitted: omitted}
}

// Applies reports whether the named model transforms content of type t and size bytes; a
// model that cannot run (Runnable) applies to nothing.
func (e *Engine) Applies(model string, t ContentType, size int) bool {
	m, err := e.runnable(model)
	return err == nil && m.Applies(t, size)
}

// MakesSections reports whether the named model may make sections, so the server lists
// read_section.
func (e *Engine) MakesSections(model string) bool {
	m, err := e.runnable(model)
	return err == nil && m.MakesSections()
}

// Runnable reports why the named model cannot run at all (it does not exist, or its file does
// not parse), or nil. A model whose file parsed but names a stage that cannot run does run: that
// stage fails as it comes, and a custom stage's failure withholds the content (withholds), for
// the missing stage may be the one that makes it fit to send. A caller falls back to another
// model only when this fails.
func (e *Engine) Runnable(model string) error {
	_, err := e.runnable(model)
	return err
}

func (e *Engine) runnable(name string) (Model, error) {
	m, err := e.Model(name)
	if err != nil && len(m.Stages) > 0 && errors.Is(err, ErrInvalidModel) {
		return m, nil // parsed; CheckModel found stages that do not resolve
	}
	return m, err
}

// withholds reports whether a failure of the stage withholds the content rather than passing
// the stage's input on. A built-in stage only finds structure or shortens, so without it the
// content is whole but unshortened; a custom stage may exist to remove something (a redaction),
// and mcpctl cannot tell, so its failure is not a pass-through unless its config says
// onFailure: passthrough.
func withholds(spec StageSpec) bool {
	if _, builtin := builtinStages[spec.Type]; builtin {
		return false
	}
	return spec.Config["onFailure"] != "passthrough"
}

// withhold is Transform's answer when a stage that withholds failed: no part of the content,
// a notice in its place, and a *WithheldError saying which stage failed, why and the fix.
func (e *Engine) withhold(ctx context.Context, out Output, m Model, spec StageSpec, project string, err error) (Output, error) {
	we := &WithheldError{Model: m.Name, File: m.File, Stage: spec.Type, Project: project, Err: err}
	if ctx.Err() != nil {
		e.stopped(ctx, m, spec)
	} else {
		e.log.Warn("pipeline: custom stage failed; the content is withheld", "model", m.Name, "stage", spec.Type, "err", err, "fix", we.Fix())
	}
	out.Text = "[mcpctl withheld this content: " + strings.TrimPrefix(we.Error(), "pipeline: content withheld: ") + ". To fix: " + we.Fix() + ".]\n"
	out.Body, out.Applied, out.Sections, out.Metadata, out.Ref = out.Text, true, nil, nil, ""
	out.Metrics.BytesAfter = len(out.Text)
	return out, we
}

// stopped logs a stage ended by the request's end (the client cancelled the call, or its time
// ran out), which is no failure of the stage and has nothing to fix: at WARN with a fix, it sent
// a user who had only pressed Escape to debug a stage that works.
func (e *Engine) stopped(ctx context.Context, m Model, spec StageSpec) {
	e.log.Debug("pipeline: stage stopped: the request ended", "model", m.Name, "stage", spec.Type, "err", ctx.Err())
}

// Transform runs the request's model over its content. Each stage's result is cached by the
// hash of its input and the stage's name, version and config. A built-in stage that fails or
// times out passes its input through (logged, and in Metrics); a custom stage that fails
// withholds the content (withholds): the error is then a *WithheldError and Text a notice
// saying so, never the content. Otherwise the error is non-nil only when the model cannot run
// (Runnable), and Text is then the content unchanged. A caller may always send Text.
func (e *Engine) Transform(ctx context.Context, req Request) (Output, error) {
	begin := time.Now()
	orig := req.Content.Text
	out := Output{Text: orig, Body: orig, Metrics: Metrics{Model: req.Model, BytesBefore: len(orig), BytesAfter: len(orig)}}
	m, err := e.runnable(req.Model)
	if b, ok := builtinModel(req.Model); ok && req.BuiltIn {
		m, err = b, nil
		m.MinBytes = 0
	}
	if err != nil {
		return out, err
	}
	if !m.Applies(req.Content.Type, len(orig)) {
		return out, nil
	}
	out.Applied = true
	// Hash the text in place: converting 100 KB to []byte would copy it on every request.
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(orig), len(orig)))
	base := chainKey(hex.EncodeToString(sum[:]), string(req.Content.Type))
	type resolved struct {
		stage   Stage
		version string
		err     error
	}
	rs := make([]resolved, len(m.Stages))
	key, resolvable := base, true
	for i, spec := range m.Stages {
		r := &rs[i]
		r.stage, r.version, r.err = e.resolveStage(spec.Type)
		key = e.stageKey(key, spec, r.version, req)
		resolvable = resolvable && r.err == nil
	}
	cur := entry{Text: orig, Base: orig}
	allHit := false
	// Keys depend only on the input and the stages, not on what the stages made, so a cached
	// result of the last stage stands for the whole chain: one lookup on a repeated request.
	if hit, ok := e.lookupQuiet("r-" + key); ok && resolvable && !req.Fresh {
		e.hits.Add(1)
		cur, allHit = withOriginal(hit, orig), true
		for i, spec := range m.Stages {
			sm := StageMetric{Name: spec.Type, CacheHit: true}
			if i == 0 {
				sm.BytesIn = len(orig)
			}
			if i == len(m.Stages)-1 {
				sm.BytesOut = len(cur.Text)
			}
			out.Metrics.Stages = append(out.Metrics.Stages, sm)
		}
	} else {
		allHit = true
		key = base
		provisional := false // a stage's result is not to be cached, nor what follows from it
		for i, spec := range m.Stages {
			r := rs[i]
			sm := StageMetric{Name: spec.Type, BytesIn: len(cur.Text)}
			start := time.Now()
			key = e.stageKey(key, spec, r.version, req)
			if r.err == nil && !req.Fresh {
				if hit, ok := e.lookup("r-" + key); ok {
					cur, sm.CacheHit = withOriginal(hit, orig), true
				}
			}
			if !sm.CacheHit {
				allHit = false
				next, prov, err := e.runStage(ctx, r.stage, r.err, spec, req, cur)
				if err != nil {
					sm.Error = err.Error()
					if withholds(spec) {
						out.Metrics.Stages = append(out.Metrics.Stages, sm)
						return e.withhold(ctx, out, m, spec, req.Project, err)
					}
					if ctx.Err() != nil {
						e.stopped(ctx, m, spec)
					} else {
						e.log.Warn("pipeline: stage failed; its input passes through", "model", m.Name, "stage", spec.Type, "bytes", len(cur.Text), "err", err)
					}
					key = chainKey(key, "failed") // what follows saw this stage's input, not its output
				} else {
					cur = next
					if provisional = provisional || prov; !provisional {
						e.store("r-"+key, cur, orig)
					}
				}
			}
			sm.BytesOut = len(cur.Text)
			sm.DurationMs = time.Since(start).Milliseconds()
			out.Metrics.Stages = append(out.Metrics.Stages, sm)
		}
	}
	out.Text, out.Body, out.Sections, out.Metadata = cur.Text, cur.Text, cur.Sections, cur.Metadata
	if _, ok := out.Metadata["toc"]; ok { // internal: tells footer the text is the table
		out.Metadata = maps.Clone(out.Metadata)
		delete(out.Metadata, "toc")
	}
	if len(cur.Sections) > 0 {
		out.Ref = key[:32]
		if _, ok := e.memo.get("d-" + out.Ref); !ok && (e.disk == nil || !e.disk.has("d-"+out.Ref)) {
			e.store("d-"+out.Ref, entry{Text: cur.Base, Base: cur.Base, Sections: cur.Sections, Stages: m.StageNames()}, "")
		}
		out.Text += footer(out.Text, out.Ref, cur.Sections, cur.Metadata["toc"] == true, cur.Text == cur.Base)
	}
	out.Metrics.BytesAfter = len(out.Text)
	out.Metrics.CacheHit = allHit
	if e.disk != nil {
		e.disk.countRequest(allHit)
	}
	out.Metrics.Duration = time.Since(begin)
	return out, nil
}

// stageKey is the cache key of a stage's result: the previous key (which stands for the
// stage's input), the stage's name and version (a custom stage's file hash), its config, and
// what else the stage sees: a custom stage the source and project, summarize-tree the LLM.
func (e *Engine) stageKey(prev string, spec StageSpec, version string, req Request) string {
	cfg, _ := json.Marshal(spec.Config) // map keys marshal sorted: a stable key
	scope := ""
	if _, builtin := builtinStages[spec.Type]; !builtin {
		scope = req.Content.Source + "\x00" + req.Project
	}
	if spec.Type == "summarize-tree" {
		scope = e.llmID
	}
	return chainKey(prev, spec.Type, version, string(cfg), scope)
}

// chainKey hashes its parts into a cache key; each stage's key includes the previous one, so it
// stands for the whole input the stage saw.
func chainKey(parts ...string) string {
	h := sha256.New()
	for _, p := range parts {
		h.Write([]byte(p))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// runStage runs one stage and checks its sections; provisional reports a result not to cache.
func (e *Engine) runStage(ctx context.Context, stage Stage, resolveErr error, spec StageSpec, req Request, cur entry) (next entry, provisional bool, err error) {
	if resolveErr != nil {
		return cur, false, fmt.Errorf("%w: %v", ErrStageFailed, resolveErr)
	}
	if err := ctx.Err(); err != nil {
		return cur, false, err
	}
	cfg := spec.Config
	if cfg == nil {
		cfg = map[string]any{}
	}
	env := Env{
		Original: req.Content.Text, Sections: cur.Sections, Base: cur.Base, Config: cfg, LLM: e.llm, Project: req.Project,
		Log: e.log.With("stage", spec.Type), Cache: e.kv(),
	}
	c := req.Content
	c.Text = cur.Text
	r, err := stage.Run(ctx, c, env)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if !errors.Is(err, ErrStageFailed) {
			err = fmt.Errorf("%w: %s: %v", ErrStageFailed, spec.Type, err)
		}
		return cur, false, err
	}
	next = entry{Text: r.Text, Sections: cur.Sections, Base: cur.Base, Metadata: cur.Metadata}
	switch {
	case r.Sections != nil:
		base := r.Base
		if base == "" {
			base = c.Text
		}
		if !inBounds(r.Sections, len(base)) {
			return cur, false, fmt.Errorf("%w: %s made a section outside its input", ErrStageFailed, spec.Type)
		}
		next.Sections, next.Base = r.Sections, base
		assignIDs(next.Sections, "")
	case r.Text != c.Text && cur.Sections != nil:
		// The stage replaced the text: the sections would serve what it meant to replace.
		e.log.Debug("pipeline: sections dropped: a later stage changed the text", "stage", spec.Type)
		next.Sections, next.Base = nil, ""
	}
	if len(r.Metadata) > 0 {
		next.Metadata = maps.Clone(cur.Metadata)
		if next.Metadata == nil {
			next.Metadata = map[string]any{}
		}
		maps.Copy(next.Metadata, r.Metadata)
	}
	if spec.Type == "summarize-tree" && r.Sections != nil {
		next.Metadata = maps.Clone(next.Metadata)
		if next.Metadata == nil {
			next.Metadata = map[string]any{}
		}
		next.Metadata["toc"] = true // the text is the table; the footer need not repeat it
	} else if r.Sections != nil && next.Metadata["toc"] == true {
		next.Metadata = maps.Clone(next.Metadata)
		delete(next.Metadata, "toc")
	}
	return next, r.Provisional, nil
}

func inBounds(ss []Section, n int) bool {
	for _, s := range ss {
		if s.Start < 0 || s.End > n || s.Start > s.End || !inBounds(s.Children, n) {
			return false
		}
	}
	return true
}

// lookup finds a cached entry in memory, then on disk.
func (e *Engine) lookup(key string) (entry, bool) {
	en, ok := e.lookupQuiet(key)
	if ok {
		e.hits.Add(1)
	} else {
		e.misses.Add(1)
	}
	return en, ok
}

func (e *Engine) lookupQuiet(key string) (entry, bool) {
	if en, ok := e.memo.get(key); ok {
		return en, true
	}
	if e.disk == nil {
		return entry{}, false
	}
	data, ok := e.disk.Get(key)
	if !ok {
		return entry{}, false
	}
	en, err := decodeEntry(data)
	if err != nil {
		e.log.Warn("pipeline: cache entry does not decode; ignored", "key", key)
		return entry{}, false
	}
	e.memo.put(key, en)
	return en, true
}

// withOriginal fills in an entry's Base when it is the original content.
func withOriginal(en entry, orig string) entry {
	if en.baseIsOriginal {
		en.Base, en.baseIsOriginal = orig, false
	}
	return en
}

// store keeps en in memory and on disk; orig is the request's original content (see
// encodeEntry), "" when en does not depend on it.
func (e *Engine) store(key string, en entry, orig string) {
	e.memo.put(key, en)
	if e.disk != nil {
		e.disk.Put(key, encodeEntry(en, orig))
	}
}

// kv is the byte store stages get, kept in the disk cache under keys of their own.
func (e *Engine) kv() KV { return engineKV{e} }

type engineKV struct{ e *Engine }

func (k engineKV) name(key string) string { return "k-" + chainKey(k.e.llmID, key) }

func (k engineKV) Get(key string) ([]byte, bool) {
	if en, ok := k.e.lookup(k.name(key)); ok {
		return []byte(en.Text), true
	}
	return nil, false
}

func (k engineKV) Put(key string, value []byte) {
	k.e.store(k.name(key), entry{Text: string(value)}, "")
}

// MaxFooterSections bounds the lines of sections an index's footer lists: about 5 KB. Content
// of 60 MB in 8 KB pages had 7,500 of them, a 260 KB result; the rest are named by their first
// and last id, each one read_section away.
const MaxFooterSections = 100

// footer is the drill-down text after a result with sections: the ref, how to read a section,
// and, unless the text already is the table, the top-level sections (MaxFooterSections). whole
// says the text above is all the sections hold (a model of section-split alone): the footer
// said "only part" then too, and a model re-read what it had.
func footer(text, ref string, sections []Section, listed, whole bool) string {
	var b strings.Builder
	if !strings.HasSuffix(text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("\n---\n")
	if !listed {
		if whole {
			fmt.Fprintf(&b, "All of the content is shown above; %s:\n", plural(len(sections), "its one section", "its "+strconv.Itoa(len(sections))+" sections"))
		} else {
			fmt.Fprintf(&b, "Only part of the content is shown above; %s:\n", plural(len(sections), "its one section", "its "+strconv.Itoa(len(sections))+" sections"))
		}
		i := 0
		for lines := 0; i < len(sections) && lines < MaxFooterSections; lines++ {
			// Pages without a heading say nothing but their number: a run of them is one line.
			if n := plainPages(sections[i:]); n >= 3 {
				b.WriteString(pagesLine(sections[i : i+n]))
				i += n
			} else {
				b.WriteString(TableLine(sections[i]))
				i++
			}
			b.WriteString("\n")
		}
		if rest := sections[i:]; len(rest) > 0 {
			fmt.Fprintf(&b, "- … %d more, %s to %s (%s)\n", len(rest), rest[0].ID, rest[len(rest)-1].ID, HumanBytes(rest[len(rest)-1].End-rest[0].Start))
		}
	}
	fmt.Fprintf(&b, "ref: %s — read_section {\"ref\": %q, \"section\": \"ID\"} returns a section exactly as it stands in the original.\n", ref, ref)
	return b.String()
}

// ReadSection returns the section id of the content ref names, exactly as it stood in the
// original, whatever its size. It works across restarts while the cache holds the ref.
func (e *Engine) ReadSection(ctx context.Context, ref, id string) (string, error) {
	_, text, err := e.Section(ctx, ref, id)
	return text, err
}

// Section returns the section id of the content ref names, with its sub-sections, and its text
// exactly as it stood in the original; a caller that must bound what it sends (read_section)
// decides between the text, a page of it and the table of the sub-sections. The Section is
// shared with the cache: do not modify it.
func (e *Engine) Section(ctx context.Context, ref, id string) (Section, string, error) {
	if err := ctx.Err(); err != nil {
		return Section{}, "", err
	}
	en, ok := entry{}, false
	if len(ref) == 32 && validKey(ref) {
		en, ok = e.lookup("d-" + ref)
	}
	if !ok {
		return Section{}, "", &Error{Op: "read section", Path: ref, Err: fmt.Errorf("%w: this ref was not made here or has been evicted from the cache; run the original call again for a fresh ref", ErrUnknownRef)}
	}
	s, found := Find(en.Sections, id)
	if !found {
		return Section{}, "", &Error{Op: "read section", Path: ref, Err: fmt.Errorf("%w %q; %s", ErrUnknownSection, id, nearSections(en.Sections, id))}
	}
	if s.End > len(en.Text) {
		return Section{}, "", &Error{Op: "read section", Path: ref, Err: fmt.Errorf("%w: the cached entry is damaged; run the original call again", ErrUnknownRef)}
	}
	return s, en.Text[s.Start:s.End], nil
}

// nearSections says which sections there are beside the missing id: the parts of its deepest
// ancestor that exists, else the top level. Ids number a level in a run ("4.1.1.1" to
// "4.1.1.57"), so a level is named by its first and last; the tree's first ids in order would
// name none near the one asked for.
func nearSections(ss []Section, id string) string {
	level, in := ss, "the top-level sections are"
	for i := strings.LastIndexByte(id, '.'); i > 0; i = strings.LastIndexByte(id[:i], '.') {
		if s, ok := Find(ss, id[:i]); ok {
			if len(s.Children) == 0 {
				return fmt.Sprintf("section %s has no parts: read it whole with section %q", s.ID, s.ID)
			}
			level, in = s.Children, "section "+s.ID+" has parts"
			break
		}
	}
	if len(level) == 1 {
		return in + " " + level[0].ID
	}
	return in + " " + level[0].ID + " to " + level[len(level)-1].ID
}

// Document returns the original and section tree ref names, for tools that show both.
func (e *Engine) Document(ref string) (original string, sections []Section, err error) {
	if len(ref) == 32 && validKey(ref) {
		if en, ok := e.lookup("d-" + ref); ok {
			return en.Text, en.Sections, nil
		}
	}
	return "", nil, &Error{Op: "read document", Path: ref, Err: ErrUnknownRef}
}

// CacheStats describes the disk cache; it fails when there is none (CacheErr says why).
func (e *Engine) CacheStats() (CacheStats, error) {
	if e.disk == nil {
		return CacheStats{}, e.noDisk()
	}
	st, err := e.disk.Stats()
	st.Hits, st.Misses = e.hits.Load(), e.misses.Load()
	return st, err
}

// ClearCache empties the disk cache and this Engine's memory of it.
func (e *Engine) ClearCache() error {
	e.memo.clear()
	if e.disk == nil {
		return e.noDisk()
	}
	return e.disk.Clear()
}

func (e *Engine) noDisk() error {
	if e.diskErr != nil {
		return e.diskErr
	}
	return &Error{Op: "use cache", Err: errors.New("this engine has no disk cache")}
}
