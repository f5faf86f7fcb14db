package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// LLM client limits.
const (
	defaultLLMTimeout = 20 * time.Second
	llmAttempts       = 3                      // one try and two retries on 429 and 5xx
	llmBackoff        = 250 * time.Millisecond // doubled after each retry
	maxRetryAfter     = 5 * time.Second
	maxLLMReply       = 1 << 20
)

// ErrLLM wraps every failure of the LLM client.
var ErrLLM = errors.New("pipeline: LLM request failed")

// LLMClient speaks OpenAI-compatible chat completions (llama.cpp, Ollama, vLLM and hosted
// services). Each request has a timeout; 429 and 5xx answers and network errors are retried
// with backoff; the API key is read from the environment per request and never logged nor put
// in an error.
type LLMClient struct {
	cfg     LLMConfig
	getenv  func(string) string
	http    *http.Client
	url     string
	timeout time.Duration
	backoff time.Duration
}

// NewLLMClient makes a client for cfg. getenv reads the key's variable; hc nil means a default
// client.
func NewLLMClient(cfg LLMConfig, getenv func(string) string, hc *http.Client) *LLMClient {
	if hc == nil {
		hc = &http.Client{}
	}
	c := &LLMClient{cfg: cfg, getenv: getenv, http: hc, timeout: defaultLLMTimeout, backoff: llmBackoff}
	if cfg.TimeoutMs > 0 {
		c.timeout = time.Duration(cfg.TimeoutMs) * time.Millisecond
	}
	c.url = strings.TrimRight(cfg.URL, "/")
	if !strings.HasSuffix(c.url, "/chat/completions") {
		c.url += "/chat/completions"
	}
	return c
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model       string        `json:"model"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
}

type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
}

// Complete asks the model; it returns the first choice's text.
func (c *LLMClient) Complete(ctx context.Context, system, prompt string) (string, error) {
	body, err := json.Marshal(chatRequest{Model: c.cfg.Model, Temperature: 0, Messages: []chatMessage{
		{Role: "system", Content: system}, {Role: "user", Content: prompt},
	}})
	if err != nil {
		return "", err
	}
	wait := c.backoff
	var last error
	for attempt := 1; attempt <= llmAttempts; attempt++ {
		text, retryAfter, err := c.once(ctx, body)
		if err == nil {
			return text, nil
		}
		last = err
		if retryAfter < 0 || attempt == llmAttempts || ctx.Err() != nil {
			break
		}
		d := wait
		if retryAfter > 0 {
			d = min(retryAfter, maxRetryAfter)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return "", fmt.Errorf("%w: %v", ErrLLM, ctx.Err())
		case <-t.C:
		}
		wait *= 2
	}
	return "", last
}

// once makes one request. retryAfter < 0 means do not retry; > 0 is the server's Retry-After.
func (c *LLMClient) once(ctx context.Context, body []byte) (text string, retryAfter time.Duration, err error) {
	ctx, cancel := context.WithTimeout(ctx, c.timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return "", -1, fmt.Errorf("%w: %v", ErrLLM, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if c.cfg.APIKeyEnv != "" {
		if key := c.getenv(c.cfg.APIKeyEnv); key != "" {
			req.Header.Set("Authorization", "Bearer "+key)
		}
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return "", 0, fmt.Errorf("%w: %s gave no answer within %v (llm.timeoutMs in config.yaml sets the limit)", ErrLLM, c.cfg.URL, c.timeout)
		}
		return "", 0, fmt.Errorf("%w: %s: %v", ErrLLM, c.cfg.URL, redact(err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxLLMReply+1))
	if err != nil {
		return "", 0, fmt.Errorf("%w: reading the answer from %s: %v", ErrLLM, c.cfg.URL, err)
	}
	switch {
	case resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500:
		ra := time.Duration(0)
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && s > 0 {
			ra = time.Duration(s) * time.Second
		}
		return "", ra, fmt.Errorf("%w: %s answered %s", ErrLLM, c.cfg.URL, resp.Status)
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return "", -1, fmt.Errorf("%w: %s answered %s; check the key in $%s", ErrLLM, c.cfg.URL, resp.Status, c.cfg.APIKeyEnv)
	case resp.StatusCode != http.StatusOK:
		return "", -1, fmt.Errorf("%w: %s answered %s", ErrLLM, c.cfg.URL, resp.Status)
	case len(data) > maxLLMReply:
		return "", -1, fmt.Errorf("%w: the answer from %s is over %d bytes", ErrLLM, c.cfg.URL, maxLLMReply)
	}
	var cr chatResponse
	if err := json.Unmarshal(data, &cr); err != nil || len(cr.Choices) == 0 || strings.TrimSpace(cr.Choices[0].Message.Content) == "" {
		return "", -1, fmt.Errorf("%w: %s did not answer as an OpenAI-compatible chat completion (%d bytes)", ErrLLM, c.cfg.URL, len(data))
	}
	return cr.Choices[0].Message.Content, 0, nil
}

// redact keeps a transport error's kind but drops the URL's query, where some services take keys.
func redact(err error) string {
	s := err.Error()
	if i := strings.Index(s, "?"); i >= 0 {
		if j := strings.IndexAny(s[i:], " \""); j >= 0 {
			return s[:i] + s[i+j:]
		}
		return s[:i]
	}
	return s
}
