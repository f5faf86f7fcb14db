package gate

import (
	"container/list"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/mcpctl/mcpctl/promptlib"
)

// Completer is a chat model: it answers prompt, instructed by system. The pipeline's LLM client
// (config.yaml's llm, DESIGN §9) is one.
type Completer interface {
	Complete(ctx context.Context, system, prompt string) (string, error)
}

// DefaultRerankTimeout bounds one re-ranking request. A briefing waits for it, and
// begin_session's own time limit is a few seconds: past this the deterministic order is sent.
const DefaultRerankTimeout = 2 * time.Second

// rerankCacheSize is how many answers an LLMReranker remembers. A session asks a handful of
// questions; the bound only keeps a long-running process from growing.
const rerankCacheSize = 512

// ErrRerankAnswer means the model answered, but neither named a candidate nor said "none".
var ErrRerankAnswer = errors.New("gate: the re-ranking answer names no candidate")

// LLMReranker is a Reranker that asks a chat model which of the candidates the task needs, most
// important first (DESIGN §9):
//   - the question is the task (the assistant's sentence, or an intercepted call as made; then
//     the tags) and, for each candidate, its number, name, summary and headings;
//     the answer is candidate numbers, most important first, or "none" when the task needs none
//     of them (every candidate is then named, not sent);
//   - answers are cached by the hash of the question (which holds everything the answer depends
//     on), so the same task over the same prompts asks once; failures are not cached;
//   - each request is time-boxed (the timeout given to NewLLMReranker), and any failure —
//     timeout, transport error, an answer that is neither numbers nor "none" — returns an
//     error, so SelectReranked keeps the deterministic order. Priority 10 is never a candidate.
//
// It is safe for concurrent use.
type LLMReranker struct {
	llm     Completer
	timeout time.Duration
	log     *slog.Logger

	mu    sync.Mutex
	order *list.List               // cache keys, most recently used first
	cache map[string]*list.Element // key → element holding a rerankAnswer
}

type rerankAnswer struct {
	key string
	ids []string
}

// NewLLMReranker re-ranks with llm, each request bounded by timeout (≤ 0: DefaultRerankTimeout).
// Failures are logged to log at warn level (nil: discarded).
func NewLLMReranker(llm Completer, timeout time.Duration, log *slog.Logger) *LLMReranker {
	if timeout <= 0 {
		timeout = DefaultRerankTimeout
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &LLMReranker{llm: llm, timeout: timeout, log: log, order: list.New(), cache: map[string]*list.Element{}}
}

var _ Reranker = (*LLMReranker)(nil)

// rerankSystem instructs the model. It asks for numbers only: they cannot be misspelt like
// names, and an answer in any other shape is refused rather than guessed at.
const rerankSystem = `You pick the guidance an AI coding assistant must read before it starts a task in a team's codebase.
You are given the task as tags, with the assistant's own sentence when it gave one (or as the first tool call the assistant makes, with key terms taken from it), and a numbered list of the team's prompts (name, summary, headings).
Answer with the numbers of the prompts this task needs, most important first, separated by commas, and nothing else.
Leave out prompts that only share a word with the task. If the task needs none of them, answer: none`

// Rerank asks the model, or answers from the cache.
func (r *LLMReranker) Rerank(ctx context.Context, task Task, candidates []Entry) ([]string, error) {
	q := rerankQuestion(task, candidates)
	sum := sha256.Sum256([]byte(rerankSystem + "\x00" + q))
	key := hex.EncodeToString(sum[:])
	if ids, ok := r.cached(key); ok {
		return ids, nil
	}
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	answer, err := r.llm.Complete(ctx, rerankSystem, q)
	if err != nil {
		r.log.Warn("gate: re-ranking failed; the deterministic order stands", "err", err)
		return nil, err
	}
	ids, ok := parseRerank(answer, candidates)
	if !ok {
		r.log.Warn("gate: re-ranking answer unusable; the deterministic order stands", "answerBytes", len(answer))
		return nil, ErrRerankAnswer
	}
	r.remember(key, ids)
	return ids, nil
}

// rerankQuestion is the user message: the task (the assistant's sentence or an intercepted call
// as made, then the tags), then one block per candidate. Summaries and headings are what the
// index already shows; bodies are not sent (the gate does not hold them, and the question stays
// small).
func rerankQuestion(task Task, candidates []Entry) string {
	var b strings.Builder
	if task.Text != "" {
		fmt.Fprintf(&b, "The task: %s\n", task.Text)
	}
	if task.Call != "" {
		fmt.Fprintf(&b, "The assistant's first call: %s\n", task.Call)
	}
	fmt.Fprintf(&b, "Task tags: %s\n\nPrompts:\n", strings.Join(task.Tags, ", "))
	for i, e := range candidates {
		fmt.Fprintf(&b, "%d. %s", i+1, e.Name)
		if e.Title != "" && promptlib.Slug(e.Title) != e.Name { // the title says more than the name
			fmt.Fprintf(&b, " (%s)", e.Title)
		}
		if e.Summary != "" {
			fmt.Fprintf(&b, ": %s", clip(e.Summary, 200))
		}
		if len(e.Chapters) > 0 {
			fmt.Fprintf(&b, " [sections: %s]", clip(strings.Join(e.Chapters, "; "), 200))
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// maxTaskText bounds, in characters, the task sentence a Reranker is told (Task.Text): a task
// said in a sentence or two, not a pasted issue.
const maxTaskText = 600

// taskText is the assistant's task sentence as a Reranker is told it: on one line (a line break
// cannot start a line of the question's own) and clipped to maxTaskText.
func taskText(s string) string {
	return clip(strings.Join(strings.Fields(s), " "), maxTaskText)
}

// parseRerank reads candidate numbers from an answer, in order, each once; numbers out of range
// are ignored. It returns the candidates' ids, and whether the answer is usable: it names a
// candidate, or it is "none" (then ids is empty). Anything else is not guessed at: "none of
// these but 3" names 3, and "I cannot tell" is refused, not taken for none.
func parseRerank(answer string, candidates []Entry) (ids []string, ok bool) {
	if a := strings.ToLower(strings.Trim(answer, " \t\r\n.\"'`*")); a == "none" {
		return []string{}, true
	}
	seen := map[int]bool{}
	for _, f := range strings.FieldsFunc(answer, func(r rune) bool { return !unicode.IsDigit(r) }) {
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > len(candidates) || seen[n] {
			continue
		}
		seen[n] = true
		ids = append(ids, candidates[n-1].ID)
	}
	return ids, len(ids) > 0
}

func (r *LLMReranker) cached(key string) ([]string, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	el, ok := r.cache[key]
	if !ok {
		return nil, false
	}
	r.order.MoveToFront(el)
	return el.Value.(rerankAnswer).ids, true
}

func (r *LLMReranker) remember(key string, ids []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if el, ok := r.cache[key]; ok {
		r.order.MoveToFront(el)
		return
	}
	r.cache[key] = r.order.PushFront(rerankAnswer{key: key, ids: ids})
	for r.order.Len() > rerankCacheSize {
		last := r.order.Back()
		r.order.Remove(last)
		delete(r.cache, last.Value.(rerankAnswer).key)
	}
}
