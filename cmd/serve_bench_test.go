package cmd

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// BenchmarkServeInitialize measures what a user waits for when the client starts mcpctl: spawn
// to initialize answered, per library size; and the server's resident memory after it has
// listed, searched and read (rss-MB), and once every prompt is served as an MCP prompt
// (rss-loaded-MB).
func BenchmarkServeInitialize(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			lib := librarytest.New(b, n)
			lib.Writer.Close()
			env := testHome(b) // LOG_LEVEL=debug: the surface logs when it has loaded
			var rss, loaded float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s := serve(b, env, "--library", lib.Dir)
				if i == 0 {
					b.StopTimer()
					s.call(b, "list_prompts", map[string]any{"limit": 100}, nil)
					s.call(b, "search_prompts", map[string]any{"query": "review go"}, nil)
					s.call(b, "list_folders", map[string]any{}, nil)
					rss = residentMB(b, s.cmd.Process.Pid)
					eventually(b, 2*time.Minute, "the prompt surface has loaded", func() bool {
						return len(s.stderr.logLines(b, "prompt surface loaded")) > 0
					})
					loaded = residentMB(b, s.cmd.Process.Pid)
					b.StartTimer()
				}
				s.Close()
			}
			b.ReportMetric(rss, "rss-MB")
			b.ReportMetric(loaded, "rss-loaded-MB")
		})
	}
}

// BenchmarkToolCall measures a tool call through the real stdio server (JSON-RPC included).
func BenchmarkToolCall(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			lib := librarytest.New(b, n)
			s := serve(b, append(testHome(b), "LOG_LEVEL=warn"), "--library", lib.Dir)
			ctx := context.Background()
			for _, tc := range []struct {
				name string
				args map[string]any
			}{
				{"list_prompts", map[string]any{"limit": 100}},
				{"search_prompts", map[string]any{"query": "refactor caching"}},
			} {
				b.Run(tc.name, func(b *testing.B) {
					for i := 0; i < b.N; i++ {
						var req mcp.CallToolRequest
						req.Params.Name, req.Params.Arguments = tc.name, tc.args
						if _, err := s.CallTool(ctx, req); err != nil {
							b.Fatal(err)
						}
					}
				})
			}
		})
	}
}

func benchSizes(b *testing.B) []int {
	if testing.Short() {
		return []int{1000, 10000}
	}
	return []int{1000, 10000, 100000}
}

// residentMB reads a process's resident set size from /proc (Linux).
func residentMB(tb testing.TB, pid int) float64 {
	tb.Helper()
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
			return float64(kb) / 1024
		}
	}
	return 0
}
