package upstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/mcpctl/mcpctl/gate"
)

// The test binary plays three parts, chosen by environment variables before any test runs:
// an upstream MCP server (envUpstream), a parent process running a Supervisor that the test
// kills with SIGKILL (envParent), and a plain sleeper a server starts as its grandchild.
const (
	envUpstream = "MCPCTL_TEST_UPSTREAM" // be an upstream server
	envMark     = "MCPCTL_TEST_MARK"     // a directory where the server leaves files for the test
	envSlow     = "MCPCTL_TEST_SLOW"     // a duration the server waits before it serves
	envHold     = "MCPCTL_TEST_HOLD"     // "1": ignore SIGTERM and stay alive after stdin ends
	envParent   = "MCPCTL_TEST_PARENT"   // be a parent running a supervisor
	envSleeper  = "MCPCTL_TEST_SLEEPER"  // sleep until killed
	envGarbage  = "MCPCTL_TEST_GARBAGE"  // "1": write lines that are not JSON-RPC to stdout first
	envExit     = "MCPCTL_TEST_EXIT"     // "1": say why on stderr and exit 1 without serving
	envComplete = "MCPCTL_TEST_COMPLETE" // "1": declare completions and complete greet and item
	// a file: crash creates it, and while it exists the server says so on stderr and exits 1
	// as it starts, so that it stays down after a crash until the test removes the file
	envDead = "MCPCTL_TEST_DEAD"
	// "1": also serve the tools that break the connection: stop_reading, deep, stderr_flood
	envMisbehave = "MCPCTL_TEST_MISBEHAVE"
)

// bigResult is the size of the big tool's result.
const bigResult = 200 * 1024

func TestMain(m *testing.M) {
	switch {
	case os.Getenv(envUpstream) == "1":
		os.Exit(runTestUpstream())
	case os.Getenv(envParent) == "1":
		os.Exit(runTestParent())
	case os.Getenv(envSleeper) == "1":
		signal.Ignore(syscall.SIGTERM)
		select {}
	}
	os.Exit(m.Run())
}

// mark writes a file into the mark directory, for the test to wait on.
func mark(name, text string) {
	if dir := os.Getenv(envMark); dir != "" {
		tmp := filepath.Join(dir, "."+name)
		_ = os.WriteFile(tmp, []byte(text), 0o600)
		_ = os.Rename(tmp, filepath.Join(dir, name))
	}
}

// runTestUpstream is a small MCP server over stdio with tools that exercise what the supervisor
// must handle.
func runTestUpstream() int {
	if os.Getenv(envHold) == "1" {
		signal.Ignore(syscall.SIGTERM)
	}
	fmt.Fprintln(os.Stderr, "test upstream: starting")
	if os.Getenv(envExit) == "1" {
		fmt.Fprintln(os.Stderr, "test upstream: cannot open the database")
		return 1
	}
	if dead := os.Getenv(envDead); dead != "" {
		if _, err := os.Stat(dead); err == nil {
			fmt.Fprintln(os.Stderr, "test upstream: cannot start after the crash")
			return 1
		}
	}
	if os.Getenv(envGarbage) == "1" {
		fmt.Println("Server starting on stdio... (a log line on the wrong stream)")
		fmt.Println(`{"not": "json-rpc"}`)
		fmt.Println(`{"jsonrpc": "2.0", "id": 9999, "result": {}}`) // a reply to nothing
	}
	if d, err := time.ParseDuration(os.Getenv(envSlow)); err == nil {
		time.Sleep(d) // the slow start under test, not synchronisation
	}
	// Count tools/list pages, so the test sees that every page was asked for.
	hooks := &server.Hooks{}
	pages := 0
	hooks.AddAfterListTools(func(ctx context.Context, id any, req *mcp.ListToolsRequest, res *mcp.ListToolsResult) {
		pages++
		mark("tools-pages", strconv.Itoa(pages))
	})
	// A call or prompt the test marks as badly asked is answered -32602, as servers refuse a
	// missing argument: pointed, before mcp-go looks it up, at a name that does not exist.
	hooks.AddBeforeCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest) {
		if req.GetString("word", "") == "invalid" {
			req.Params.Name = "missing required argument: query"
		}
	})
	hooks.AddBeforeGetPrompt(func(ctx context.Context, id any, req *mcp.GetPromptRequest) {
		if req.Params.Name == "greet" && req.Params.Arguments["name"] == "" {
			req.Params.Name = "greet needs its argument name"
		}
	})
	s := server.NewMCPServer("test-upstream", "1.0", server.WithPaginationLimit(2), server.WithHooks(hooks),
		server.WithToolCapabilities(true), server.WithPromptCapabilities(true), server.WithResourceCapabilities(false, true))
	text := func(t string) *mcp.CallToolResult { return mcp.NewToolResultText(t) }
	s.AddTool(mcp.NewTool("small", mcp.WithDescription("a small result"), mcp.WithString("word"),
		mcp.WithReadOnlyHintAnnotation(true)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("small: " + req.GetString("word", "")), nil
		})
	s.AddTool(mcp.NewTool("big", mcp.WithDescription("a 200 KB result")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			line := strings.Repeat("x", 99) + "\n"
			return text(strings.Repeat(line, bigResult/100)), nil
		})
	s.AddTool(mcp.NewTool("block", mcp.WithDescription("blocks until cancelled")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mark("block-started", "")
			<-ctx.Done()
			mark("block-cancelled", ctx.Err().Error())
			return nil, ctx.Err()
		})
	s.AddTool(mcp.NewTool("crash", mcp.WithDescription("exits the process")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if dead := os.Getenv(envDead); dead != "" {
				_ = os.WriteFile(dead, nil, 0o600)
			}
			fmt.Fprintln(os.Stderr, "fatal: crash requested")
			os.Exit(3)
			return nil, nil
		})
	s.AddTool(mcp.NewTool("fail", mcp.WithDescription("an isError result")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultError("fail: as asked"), nil
		})
	s.AddTool(mcp.NewTool("broken", mcp.WithDescription("a handler error, which mcp-go answers as a JSON-RPC error")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, errors.New("broken: handler failed")
		})
	s.AddTool(mcp.NewTool("env", mcp.WithDescription("returns $TOKEN")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(os.Getenv("TOKEN")), nil
		})
	s.AddTool(mcp.NewTool("spawn", mcp.WithDescription("starts a grandchild and returns its pid")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			exe, _ := os.Executable()
			c := exec.Command(exe)
			c.Env = append(os.Environ(), envUpstream+"=", envSleeper+"=1")
			if err := c.Start(); err != nil {
				return mcp.NewToolResultError(err.Error()), nil
			}
			go c.Wait()
			return text(strconv.Itoa(c.Process.Pid)), nil
		})
	s.AddTool(mcp.NewTool("progress", mcp.WithDescription("reports progress three times; or ticks times, every so often"),
		mcp.WithNumber("ticks"), mcp.WithString("every")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			tok := req.Params.Meta.ProgressToken
			if ticks := req.GetInt("ticks", 0); ticks > 0 {
				every, _ := time.ParseDuration(req.GetString("every", "10ms"))
				for i := 1; i <= ticks; i++ {
					select {
					case <-time.After(every): // the slow work under test, not synchronisation
					case <-ctx.Done():
						return nil, ctx.Err()
					}
					_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress",
						map[string]any{"progressToken": tok, "progress": i, "total": ticks})
				}
				return text("ticked"), nil
			}
			for i := 1; i <= 3; i++ {
				_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress",
					map[string]any{"progressToken": tok, "progress": i, "total": 3, "message": fmt.Sprintf("step %d", i)})
			}
			// mcp-go may write the response before queued notifications; answer only once the
			// test has seen the last step (it leaves a file), or give up after a while.
			seen := filepath.Join(os.Getenv(envMark), "progress-seen")
			for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				if _, err := os.Stat(seen); err == nil {
					break
				}
			}
			return text("done"), nil
		})
	var rootsChanged atomic.Int64
	s.AddNotificationHandler("notifications/roots/list_changed", func(context.Context, mcp.JSONRPCNotification) { rootsChanged.Add(1) })
	s.AddTool(mcp.NewTool("ask", mcp.WithDescription("asks its client for sampling, elicitation or roots"), mcp.WithString("what")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			srv := server.ServerFromContext(ctx)
			switch req.GetString("what", "") {
			case "sampling":
				var r mcp.CreateMessageRequest
				r.Messages = []mcp.SamplingMessage{{Role: mcp.RoleUser, Content: mcp.NewTextContent("say hi")}}
				r.MaxTokens = 10
				//lint:ignore SA1019 a server of a protocol that has sampling, as the relay serves
				res, err := srv.RequestSampling(ctx, r)
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				tc, _ := res.Content.(mcp.TextContent)
				return text("sampled: " + tc.Text), nil
			case "elicitation":
				var r mcp.ElicitationRequest
				r.Params.Message = "your name?"
				r.Params.RequestedSchema = map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}
				res, err := srv.RequestElicitation(ctx, r)
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				return text(fmt.Sprintf("elicited: %s %v", res.Action, res.Content)), nil
			case "roots":
				res, err := srv.RequestRoots(ctx, mcp.ListRootsRequest{})
				if err != nil {
					return mcp.NewToolResultError(err.Error()), nil
				}
				var uris []string
				for _, r := range res.Roots {
					uris = append(uris, r.URI)
				}
				return text("roots: " + strings.Join(uris, " ")), nil
			case "rootsChanged":
				return text(fmt.Sprintf("roots changed: %d", rootsChanged.Load())), nil
			}
			return mcp.NewToolResultError("ask what?"), nil
		})
	s.AddTool(mcp.NewTool("add_tool", mcp.WithDescription("adds the tool extra, so the server sends list_changed")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			s.AddTool(mcp.NewTool("extra"), func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return text("extra"), nil
			})
			return text("added"), nil
		})
	s.AddTool(mcp.NewToolWithRawSchema("schema", "a schema with $defs",
		[]byte(`{"type":"object","$defs":{"id":{"type":"string","pattern":"^[a-z]+$"}},"properties":{"id":{"$ref":"#/$defs/id"}},"required":["id"]}`)),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("ok"), nil
		})
	s.AddTool(mcp.NewTool(strings.Repeat("long", 17)+".name"), // 73 characters and a dot
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("long"), nil
		})
	s.AddTool(mcp.NewTool("secret_admin"),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("should be denied"), nil
		})
	s.AddPrompt(mcp.NewPrompt("greet", mcp.WithPromptDescription("greets"), mcp.WithArgument("name", mcp.RequiredArgument())),
		func(ctx context.Context, req mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return mcp.NewGetPromptResult("greeting", []mcp.PromptMessage{
				mcp.NewPromptMessage(mcp.RoleUser, mcp.NewTextContent("Hello, "+req.Params.Arguments["name"])),
			}), nil
		})
	s.AddResource(mcp.NewResource("test://readme", "readme", mcp.WithMIMEType("text/markdown")),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, MIMEType: "text/markdown", Text: "# Read me"}}, nil
		})
	s.AddResourceTemplate(mcp.NewResourceTemplate("test://item/{id}", "item"),
		func(ctx context.Context, req mcp.ReadResourceRequest) ([]mcp.ResourceContents, error) {
			return []mcp.ResourceContents{mcp.TextResourceContents{URI: req.Params.URI, Text: "item " + req.Params.URI}}, nil
		})
	if os.Getenv(envComplete) == "1" {
		server.WithCompletions()(s)
		server.WithPromptCompletionProvider(testCompleter{})(s)
		server.WithResourceCompletionProvider(testCompleter{})(s)
	}
	stdin := &stoppableReader{r: os.Stdin, stop: make(chan struct{})}
	if os.Getenv(envMisbehave) == "1" {
		addMisbehaviours(s, hooks, stdin)
	}
	err := server.NewStdioServer(s).Listen(context.Background(), stdin, os.Stdout)
	if os.Getenv(envHold) == "1" {
		select {} // outlive stdin: only a signal it cannot ignore ends it
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "test upstream:", err)
		return 1
	}
	return 0
}

// stoppableReader is the test server's stdin, which the tool stop_reading stops reading, and
// the tool busy pauses.
type stoppableReader struct {
	r    io.Reader
	stop chan struct{}
	once sync.Once

	pause sync.RWMutex // held by busy while it reads nothing
}

func (r *stoppableReader) Read(b []byte) (int, error) {
	// Waits while busy holds the pause; holding it through the read would make busy wait for
	// input instead.
	r.pause.RLock()
	r.pause.RUnlock() //lint:ignore SA2001 the section is the wait
	select {
	case <-r.stop:
		// The misbehaviour under test: never read again. A sleep, not a bare select{}, so that
		// the runtime does not take the idle process for a deadlock and end it.
		for {
			time.Sleep(time.Hour)
		}
	default:
		return r.r.Read(b)
	}
}

// addMisbehaviours adds the tools that break the connection in ways the supervisor must notice.
func addMisbehaviours(s *server.MCPServer, hooks *server.Hooks, stdin *stoppableReader) {
	s.AddTool(mcp.NewTool("stop_reading", mcp.WithDescription("stops reading stdin, as a wedged server does")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			stdin.once.Do(func() { close(stdin.stop) })
			return mcp.NewToolResultText("stopped"), nil
		})
	// A single-threaded server at work: it reads no input for three of its timeouts (the test
	// spec's 2 s), and says it is alive with progress meanwhile.
	s.AddTool(mcp.NewTool("busy", mcp.WithDescription("reads nothing for 6 s, reporting progress")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			stdin.pause.Lock()
			defer stdin.pause.Unlock()
			end := time.Now().Add(6 * time.Second)
			for i := 1; time.Now().Before(end); i++ {
				if req.Params.Meta != nil && req.Params.Meta.ProgressToken != nil {
					_ = server.ServerFromContext(ctx).SendNotificationToClient(ctx, "notifications/progress",
						map[string]any{"progressToken": req.Params.Meta.ProgressToken, "progress": i})
				}
				time.Sleep(200 * time.Millisecond) // the fake server's own pace, not the test's sync
			}
			return mcp.NewToolResultText("done"), nil
		})
	// mcp-go refuses to send a reply nested this deep, so the hook writes it by hand, under the
	// call's id; the handler then answers nothing more.
	hooks.AddBeforeCallTool(func(ctx context.Context, id any, req *mcp.CallToolRequest) {
		if req.Params.Name == "deep" {
			idJSON, _ := json.Marshal(id)
			fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","id":%s,"result":{"content":[],"structuredContent":{"v":%s0%s}}}`+"\n",
				idJSON, strings.Repeat("[", 10001), strings.Repeat("]", 10001))
		}
	})
	s.AddTool(mcp.NewTool("deep", mcp.WithDescription("a reply nested deeper than encoding/json parses")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(mcp.NewTool("stderr_flood", mcp.WithDescription("writes mib MiB of stderr lines, then 'flood: end'"), mcp.WithNumber("mib")),
		func(ctx context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			w := bufio.NewWriterSize(os.Stderr, 64<<10)
			line := strings.Repeat("f", 99) + "\n"
			for range req.GetInt("mib", 1) << 20 / len(line) {
				w.WriteString(line)
			}
			w.WriteString("flood: end\n")
			if err := w.Flush(); err != nil {
				return nil, err
			}
			return mcp.NewToolResultText("flooded"), nil
		})
}

// testCompleter completes greet's name and the item template's id by prefix, under the names
// the test server gives them: a completion asked by the served name would find none.
type testCompleter struct{}

func (testCompleter) CompletePromptArgument(_ context.Context, prompt string, arg mcp.CompleteArgument, _ mcp.CompleteContext) (*mcp.Completion, error) {
	if prompt != "greet" || arg.Name != "name" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	return prefixed(arg.Value, "Alice", "Alan", "Bob"), nil
}

func (testCompleter) CompleteResourceArgument(_ context.Context, uri string, arg mcp.CompleteArgument, cc mcp.CompleteContext) (*mcp.Completion, error) {
	if uri != "test://item/{id}" || arg.Name != "id" {
		return &mcp.Completion{Values: []string{}}, nil
	}
	// The arguments already filled in reach the server: "kind" picks the ids.
	if cc.Arguments["kind"] == "old" {
		return prefixed(arg.Value, "17", "19"), nil
	}
	return prefixed(arg.Value, "41", "42", "7"), nil
}

func prefixed(typed string, values ...string) *mcp.Completion {
	out := []string{}
	for _, v := range values {
		if strings.HasPrefix(v, typed) {
			out = append(out, v)
		}
	}
	return &mcp.Completion{Values: out}
}

// runTestParent runs a supervisor with one held test server, writes the server's pid to
// child.pid in the mark directory once it is ready, and waits to be killed.
func runTestParent() int {
	exe, _ := os.Executable()
	spec := gate.ServerSpec{Command: exe, Env: map[string]string{envUpstream: "1", envParent: "", envHold: "1"}}
	sup := New(map[string]gate.ServerSpec{"held": spec}, Options{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))})
	ready := make(chan struct{}, 1)
	sup.OnChange(func() {
		select {
		case ready <- struct{}{}:
		default:
		}
	})
	sup.Start(context.Background())
	for sup.Server("held").State().State != Ready {
		<-ready
	}
	mark("child.pid", strconv.Itoa(sup.Server("held").State().PID))
	select {}
}
