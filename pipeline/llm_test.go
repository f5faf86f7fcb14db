package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// chatServer is an httptest server speaking the chat-completions API; reply decides each answer
// by the request's number (1-based).
func chatServer(tb testing.TB, reply func(n int, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int64) {
	tb.Helper()
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" || r.Method != http.MethodPost {
			http.NotFound(w, r)
			return
		}
		reply(int(n.Add(1)), w, r)
	}))
	tb.Cleanup(srv.Close)
	return srv, &n
}

func answer(w http.ResponseWriter, text string) {
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": text}}}})
}

func testClient(url string, timeoutMs int) *LLMClient {
	c := NewLLMClient(LLMConfig{URL: url + "/v1", Model: "m", APIKeyEnv: "TEST_KEY", TimeoutMs: timeoutMs},
		func(k string) string { return map[string]string{"TEST_KEY": "sk-secret"}[k] }, nil)
	c.backoff = time.Millisecond
	return c
}

func TestLLMClient(t *testing.T) {
	release := make(chan struct{})
	t.Cleanup(func() { close(release) })
	for _, tc := range []struct {
		name     string
		reply    func(n int, w http.ResponseWriter, r *http.Request)
		want     string // the answer, or a part of the error
		requests int64
	}{
		{"answers", func(_ int, w http.ResponseWriter, r *http.Request) {
			var req chatRequest
			json.NewDecoder(r.Body).Decode(&req)
			if r.Header.Get("Authorization") != "Bearer sk-secret" || req.Model != "m" || req.Messages[1].Content != "prompt" {
				http.Error(w, "bad request", 400)
				return
			}
			answer(w, "hello")
		}, "hello", 1},
		{"retries 429 and 5xx", func(n int, w http.ResponseWriter, _ *http.Request) {
			switch n {
			case 1:
				http.Error(w, "slow down", http.StatusTooManyRequests)
			case 2:
				http.Error(w, "oops", http.StatusBadGateway)
			default:
				answer(w, "third time")
			}
		}, "third time", 3},
		{"gives up after three", func(int, http.ResponseWriter, *http.Request) {}, "", 0},
		{"does not retry 400", func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", 400) }, "400 Bad Request", 1},
		{"bad key", func(_ int, w http.ResponseWriter, _ *http.Request) { http.Error(w, "no", http.StatusUnauthorized) }, "check the key in $TEST_KEY", 1},
		{"garbage", func(_ int, w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "<html>not json") }, "did not answer as an OpenAI-compatible chat completion", 1},
		{"no choices", func(_ int, w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, `{"choices": []}`) }, "did not answer", 1},
		{"slow", func(_ int, w http.ResponseWriter, r *http.Request) {
			io.Copy(io.Discard, r.Body) // the server notices a closed connection only after the body
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}, "gave no answer within 200ms", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reply := tc.reply
			if tc.name == "gives up after three" {
				reply = func(_ int, w http.ResponseWriter, _ *http.Request) {
					http.Error(w, "down", http.StatusServiceUnavailable)
				}
				tc.want, tc.requests = "503", 3
			}
			srv, n := chatServer(t, reply)
			got, err := testClient(srv.URL, 200).Complete(t.Context(), "system", "prompt")
			if n.Load() != tc.requests {
				t.Errorf("made %d requests, want %d", n.Load(), tc.requests)
			}
			if err != nil {
				if !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrLLM) {
					t.Errorf("error %q, want ErrLLM saying %q", err, tc.want)
				}
				if strings.Contains(err.Error(), "sk-secret") {
					t.Errorf("the error reveals the key: %v", err)
				}
				return
			}
			if got != tc.want {
				t.Errorf("answer %q, want %q", got, tc.want)
			}
		})
	}
}

func TestSummarizeTreeWithLLM(t *testing.T) {
	srv, n := chatServer(t, func(_ int, w http.ResponseWriter, r *http.Request) {
		var req chatRequest
		json.NewDecoder(r.Body).Decode(&req)
		if strings.Contains(req.Messages[1].Content, "Part 3") {
			answer(w, "not two lines")
			return
		}
		answer(w, "A Fine Title\nThis part explains the steps in order.")
	})
	te := newTestEngine(t)
	writeFile(t, te.config+"/config.yaml", "llm:\n  url: "+srv.URL+"/v1\n  model: m\n  timeoutMs: 5000\n", 0o600)
	e := te.reopen(t)
	// A model whose top-level sections are the parts, so each is summarized.
	te.writeModel(t, "parts", "minBytes: 1\nstages:\n  - type: section-split\n  - type: summarize-tree\n")
	text := strings.Join(strings.Split(markdownDoc(t), "# Guide\n")[1:], "")
	text = strings.ReplaceAll(text, "## Part", "# Part")
	out := transform(t, e, "parts", text)
	if !strings.Contains(out.Text, "This part explains the steps in order.") {
		t.Errorf("no LLM summary in:\n%s", out.Text)
	}
	if !strings.Contains(out.Text, "Part 3 starts here.") {
		t.Errorf("the section the LLM answered badly lost its structural summary:\n%s", out.Text)
	}
	requests := n.Load()
	if requests == 0 {
		t.Fatal("the LLM was not asked")
	}
	// Summaries are cached by content hash, also across restarts.
	e2 := te.reopen(t)
	e2.memo.clear()
	te.writeModel(t, "parts", "minBytes: 1\nstages:\n  - type: section-split\n  - type: summarize-tree\n    config: {budgetBytes: 5000}\n")
	transform(t, e2, "parts", text)
	if got := n.Load() - requests; got > 1 { // only the unusable answer is asked again
		t.Errorf("after a restart the LLM was asked %d more times, want the summaries from the cache", got)
	}
}

func TestLLMOutageIsNotCachedForever(t *testing.T) {
	var down atomic.Bool
	down.Store(true)
	srv, _ := chatServer(t, func(_ int, w http.ResponseWriter, _ *http.Request) {
		if down.Load() {
			http.Error(w, "no", http.StatusBadRequest) // not retried: fails at once
			return
		}
		answer(w, "Title\nA summary from the model.")
	})
	te := newTestEngine(t)
	writeFile(t, te.config+"/config.yaml", "llm: {url: "+srv.URL+"/v1, model: m}\n", 0o600)
	e := te.reopen(t)
	text := proseDoc(t)
	if out := transform(t, e, "subindex", text); strings.Contains(out.Text, "A summary from the model.") {
		t.Fatal("a summary while the LLM is down")
	}
	down.Store(false)
	out := transform(t, e, "subindex", text)
	if out.Metrics.CacheHit || !strings.Contains(out.Text, "A summary from the model.") {
		t.Errorf("after the LLM came back: hit %v, text:\n%s\nwant the fallback not cached and the model's summaries", out.Metrics.CacheHit, out.Text)
	}
	if again := transform(t, e, "subindex", text); !again.Metrics.CacheHit {
		t.Error("the LLM's result was not cached")
	}
}
