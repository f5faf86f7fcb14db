package cmd

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// BenchmarkServeInitialize measures what a user waits for when the client starts mcpctl again:
// spawn to initialize answered (ns/op), and, once per size, how long the first prompts/list
// page after initialize takes (first-prompts-list-ms) and how many prompts it holds, and the
// server's resident memory after it has listed, searched and answered prompts/list (rss-MB).
func BenchmarkServeInitialize(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			lib := librarytest.New(b, n)
			lib.Writer.Close()
			env := append(testHome(b), "LOG_LEVEL=warn")
			// A first run reads the library and keeps its view; what is measured is a restart,
			// what a user sees every time the client starts mcpctl again.
			first := serve(b, env, "--library", lib.Dir)
			settle(b, first)
			first.Close()
			first.cmd.Wait()
			var rss, firstList, firstPage float64
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s := serve(b, env, "--library", lib.Dir)
				if i == 0 {
					b.StopTimer()
					start := time.Now()
					res, err := s.ListPromptsByPage(context.Background(), mcp.ListPromptsRequest{})
					if err != nil {
						b.Fatal(err)
					}
					firstList, firstPage = float64(time.Since(start).Microseconds())/1000, float64(len(res.Prompts))
					s.call(b, "list_prompts", map[string]any{}, nil)
					s.call(b, "search_prompts", map[string]any{"query": "reviewer"}, nil)
					s.call(b, "search_prompts", map[string]any{"query": "review go"}, nil)
					rss = residentMB(b, s.cmd.Process.Pid)
					b.StartTimer()
				}
				s.Close()
			}
			b.ReportMetric(firstList, "first-prompts-list-ms")
			b.ReportMetric(firstPage, "first-page-prompts")
			b.ReportMetric(rss, "rss-MB")
		})
	}
}

// BenchmarkToolCall measures each figure of the table through the real stdio server
// (JSON-RPC and the client included), per library size, with the bytes each answer sends. Each
// is measured twice: with mcp-go's client, and with a lean client (…/lean) that only reads the
// response line's envelope, which is what the call costs the server and the pipe. mcp-go's
// client decodes a result into maps and allocates about ten times the response's size; that is
// the client's cost, not the server's.
func BenchmarkToolCall(b *testing.B) {
	for _, n := range benchSizes(b) {
		b.Run(fmt.Sprintf("prompts=%d", n), func(b *testing.B) {
			lib := librarytest.New(b, n)
			id := lib.Data.Prompts[n/2].ID
			env := append(testHome(b), "LOG_LEVEL=warn")
			s := serve(b, env, "--library", lib.Dir)
			ctx := context.Background()
			settle(b, s)
			// MCPCTL_TEST_CPUPROFILE=path profiles the server the lean client times (TestMain);
			// testHome's environment holds nothing of the caller's.
			lean := startLean(b, append(env, "MCPCTL_TEST_CPUPROFILE="+os.Getenv("MCPCTL_TEST_CPUPROFILE")), "--library", lib.Dir)
			for _, tc := range []struct {
				name, tool string
				args       map[string]any
			}{
				{"get_prompt", "get_prompt", map[string]any{"id": id}},
				{"list_prompts", "list_prompts", map[string]any{"limit": 100}},
				{"search_everywhere", "search_prompts", map[string]any{"query": "reviewer"}},
				{"search_two_words", "search_prompts", map[string]any{"query": "refactor caching"}},
			} {
				b.Run(tc.name, func(b *testing.B) {
					var bytes int
					for i := 0; i < b.N; i++ {
						var req mcp.CallToolRequest
						req.Params.Name, req.Params.Arguments = tc.tool, tc.args
						res, err := s.CallTool(ctx, req)
						if err != nil || res.IsError {
							b.Fatal(err, res)
						}
						bytes = len(resultText(res))
					}
					b.ReportMetric(float64(bytes), "text-bytes")
				})
				b.Run(tc.name+"/lean", func(b *testing.B) {
					var bytes int
					before, ok := processCPU(b, lean.pid)
					for i := 0; i < b.N; i++ {
						bytes = lean.callTool(b, tc.tool, tc.args)
					}
					b.ReportMetric(float64(bytes), "line-bytes")
					// What the server spends per call, apart from the client, the pipe and the
					// wake-ups between them (10 ms steps: meaningful over a second or more).
					if after, _ := processCPU(b, lean.pid); ok {
						b.ReportMetric(float64((after-before).Microseconds())/float64(b.N), "server-cpu-µs/op")
					}
				})
			}
			b.Run("prompts_list_page", func(b *testing.B) {
				for i := 0; i < b.N; i++ {
					if _, err := s.ListPromptsByPage(ctx, mcp.ListPromptsRequest{}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// settle waits until a fresh server has read the library and built its search index, so a
// benchmark measures the steady state, not the start.
func settle(b *testing.B, s *session) {
	b.Helper()
	if _, err := s.ListPromptsByPage(context.Background(), mcp.ListPromptsRequest{}); err != nil {
		b.Fatal(err)
	}
	eventually(b, 5*time.Minute, "the search index is ready", func() bool {
		var h healthOut
		s.call(b, "health_check", map[string]any{}, &h)
		return h.Search.Index == "ready"
	})
	quiet(b, s.cmd.Process.Pid)
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

// leanClient speaks JSON-RPC to a child `mcpctl serve` over its stdio with no SDK.
type leanClient struct {
	in  io.Writer
	out *bufio.Reader
	id  int
	pid int
}

func startLean(b *testing.B, env []string, args ...string) *leanClient {
	b.Helper()
	cmd := exec.Command(os.Args[0], append([]string{"serve"}, args...)...)
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		in.Close()
		cmd.Wait()
	})
	c := &leanClient{in: in, out: bufio.NewReaderSize(out, 1<<20), pid: cmd.Process.Pid}
	c.request(b, "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"lean","version":"1"}}`)
	if _, err := io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n"); err != nil {
		b.Fatal(err)
	}
	// The first server has built the search index; this one opens it.
	eventually(b, 5*time.Minute, "the lean server's search index is ready", func() bool {
		return bytes.Contains(c.request(b, "tools/call", `{"name":"health_check","arguments":{}}`), []byte(`\"index\":\"ready\"`))
	})
	quiet(b, c.pid)
	return c
}

// request sends one request and returns its response line, skipping notifications.
func (c *leanClient) request(b *testing.B, method, params string) []byte {
	c.id++
	if _, err := fmt.Fprintf(c.in, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", c.id, method, params); err != nil {
		b.Fatal(err)
	}
	want := fmt.Appendf(nil, `"id":%d,`, c.id)
	for {
		line, err := c.out.ReadSlice('\n')
		if err != nil {
			b.Fatalf("%s: %v", method, err)
		}
		if bytes.Contains(line[:min(len(line), 64)], want) {
			return line
		}
	}
}

// callTool calls a tool and checks, from the envelope alone, that it answered without error.
func (c *leanClient) callTool(b *testing.B, tool string, args map[string]any) int {
	a, _ := json.Marshal(args)
	line := c.request(b, "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, a))
	if bytes.Contains(line, []byte(`"isError":true`)) || !bytes.Contains(line[:min(len(line), 64)], []byte(`"result"`)) {
		b.Fatalf("%s: %s", tool, line[:min(len(line), 500)])
	}
	return len(line)
}

// processCPU is the CPU time a process has used so far (user and system, from /proc on Linux),
// in steps of 10 ms; false where there is no /proc.
func processCPU(b *testing.B, pid int) (time.Duration, bool) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// Fields after the command name, which may hold spaces and parentheses: it ends at the
	// last ") ". utime and stime are the 12th and 13th fields after it, in clock ticks (100 per
	// second on Linux).
	rest := data[bytes.LastIndex(data, []byte(") "))+2:]
	f := strings.Fields(string(rest))
	if len(f) < 13 {
		b.Fatalf("/proc/%d/stat: %q", pid, data)
	}
	utime, _ := strconv.Atoi(f[11])
	stime, _ := strconv.Atoi(f[12])
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

// quiet waits until a server's CPU time has not moved over five samples 20 ms apart (about
// 80 ms). Its start-up work goes on after the search index reports ready (checking the restored
// library view and the index against the database: about 250 ms of CPU at 100k prompts), and
// calls measured during it cost twice as much. Where /proc is missing it returns at once.
func quiet(b *testing.B, pid int) {
	b.Helper()
	last, ok := processCPU(b, pid)
	if !ok {
		return
	}
	still := 0
	eventually(b, time.Minute, "the server is idle", func() bool {
		if now, _ := processCPU(b, pid); now != last {
			last, still = now, 0
		} else {
			still++
		}
		return still >= 5
	})
}
