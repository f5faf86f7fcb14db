package cmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mcpctl/mcpctl/promptlib/librarytest"
)

// pane is a tmux pane on a tmux server of the test's own.
type pane struct {
	tb     testing.TB
	socket string
}

// startPane runs the built binary with args in a cols×24 tmux pane, in dir ("" for the
// test's), with HOME and the XDG directories under home; it skips where tmux is missing.
func startPane(t *testing.T, cols int, dir, home string, args ...string) *pane {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary and runs it in tmux")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (apt-get install -y tmux); the terminal tests need it")
	}
	command := fmt.Sprintf("env HOME=%q XDG_STATE_HOME=%q XDG_CACHE_HOME=%q XDG_CONFIG_HOME=%q NO_COLOR=1 %q",
		home, filepath.Join(home, "state"), filepath.Join(home, "cache"), filepath.Join(home, "config"), mcpctlBinary(t))
	for _, a := range args {
		command += fmt.Sprintf(" %q", a)
	}
	session := []string{"new-session", "-d", "-s", "console", "-x", fmt.Sprint(cols), "-y", "24"}
	if dir != "" {
		session = append(session, "-c", dir)
	}
	p := &pane{tb: t, socket: fmt.Sprintf("mcpctl-test-%d-%d", os.Getpid(), time.Now().UnixNano())}
	if out, err := p.tmux(append(session, command)...); err != nil {
		t.Fatalf("tmux new-session: %v: %s", err, out)
	}
	t.Cleanup(func() { p.tmux("kill-server") })
	return p
}

func (p *pane) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-L", p.socket, "-f", "/dev/null"}, args...)...).CombinedOutput()
	return string(out), err
}

// waitFor polls the pane until it shows every one of texts, failing after a deadline.
func (p *pane) waitFor(texts ...string) {
	p.tb.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen, _ = p.tmux("capture-pane", "-p", "-t", "console")
		ok := true
		for _, t := range texts {
			ok = ok && strings.Contains(screen, t)
		}
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
	p.tb.Fatalf("the pane never showed %q; it shows:\n%s", texts, screen)
}

func (p *pane) keys(keys ...string) {
	p.tb.Helper()
	for _, k := range keys {
		if out, err := p.tmux("send-keys", "-t", "console", k); err != nil {
			p.tb.Fatalf("send-keys %s: %v: %s", k, err, out)
		}
	}
}

// TestConsoleInTmux runs the built binary's console in a real terminal: every screen shows,
// a prompt the app adds appears on the Library screen and a server's traffic on the Traffic
// screen, without a key press, and q quits.
func TestConsoleInTmux(t *testing.T) {
	lib := librarytest.New(t, 40)
	home := t.TempDir()
	state := filepath.Join(home, "state")
	p := startPane(t, 80, "", home, "console", "--library", lib.Dir)

	p.waitFor("[1 Library]", "All prompts (40)")
	for _, s := range []struct{ key, want string }{
		{"2", "The queue is empty"},
		{"3", "No traffic yet"},
		{"4", "Projects"},
		{"5", "default"},
		{"Tab", "All prompts (40)"},
	} {
		p.keys(s.key)
		p.waitFor(s.want)
	}

	// The app adds a prompt: a second connection writes the database.
	now := time.Now().Unix()
	lib.Exec(t, `INSERT INTO prompts (id, title, body, folder_id, icon, color, url, created_at, updated_at)
		VALUES ('ABCDEF01-0000-4000-8000-000000000002', 'Added while watching', 'From the app.', NULL, NULL, NULL, NULL, ?, ?)`, now, now)
	p.waitFor("All prompts (41)", "Added while watching")

	// A real server session on the same library: its calls appear on the Traffic screen.
	p.keys("3")
	p.waitFor("No traffic yet")
	env := []string{"MCPCTL_BE_MAIN=1", "HOME=" + home, "XDG_STATE_HOME=" + state, "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "PATH=" + os.Getenv("PATH")}
	s := serve(t, env, "--library", lib.Dir)
	s.call(t, "search_prompts", map[string]any{"query": "review"}, nil)
	s.call(t, "list_folders", map[string]any{}, nil)
	p.waitFor("search_prompts", "list_folders", "tools/call")

	p.keys("q")
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := p.tmux("has-session", "-t", "console"); err != nil {
			break // the console ended and its session with it
		}
		if time.Now().After(deadline) {
			t.Fatal("q did not end the console within 20s")
		}
		time.Sleep(50 * time.Millisecond) // polling a condition with a deadline
	}
}

// The Traffic screen's empty state gives a command that writes traffic where the console
// reads it: run as the screen shows it, its request appears there.
func TestConsoleTrafficAdviceWorks(t *testing.T) {
	lib := librarytest.New(t, 3)
	home := t.TempDir()
	p := startPane(t, 80, "", home, "console", "--library", lib.Dir)
	p.waitFor("[1 Library]")
	p.keys("3")
	p.waitFor("No traffic yet")
	screen, _ := p.tmux("capture-pane", "-p", "-t", "console")
	var advice string
	for _, l := range strings.Split(screen, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, "echo ") && strings.Contains(l, "| mcpctl serve") {
			advice = l
		}
	}
	if advice == "" {
		t.Fatalf("the empty Traffic screen gives no command that writes traffic:\n%s", screen)
	}
	sh := exec.Command("sh", "-c", advice)
	sh.Dir = t.TempDir() // no repository project above it
	sh.Env = []string{"HOME=" + home, "XDG_STATE_HOME=" + filepath.Join(home, "state"), "XDG_CACHE_HOME=" + filepath.Join(home, "cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"), "XDG_DATA_HOME=" + filepath.Join(home, "data"),
		"PATH=" + filepath.Dir(mcpctlBinary(t)) + string(os.PathListSeparator) + os.Getenv("PATH")}
	if out, err := sh.CombinedOutput(); err != nil {
		t.Fatalf("%s: %v\n%s", advice, err, out)
	}
	p.waitFor("ping", "2 of 2 events")
}

// With --project, the Pipeline screen starts on the proxymodel the project's file sets, the
// one its sessions get, not on the default.
func TestConsolePipelineStartsOnTheProjectModel(t *testing.T) {
	lib := librarytest.New(t, 3)
	home := t.TempDir()
	writeProject(t, []string{"XDG_CONFIG_HOME=" + filepath.Join(home, "config")}, "web", "proxyModel: subindex\n")
	p := startPane(t, 80, t.TempDir(), home, "console", "--library", lib.Dir, "--project", "web")
	p.waitFor("[1 Library]")
	p.keys("5")
	p.waitFor("model subindex of project web")
}

func TestConsoleUsage(t *testing.T) {
	if code, out, _ := run(t, nil, "console", "-h"); code != 0 || !strings.Contains(out, "--library") || !strings.Contains(out, "--project") {
		t.Errorf("console -h: exit %d, output %q", code, out)
	}
	if code, _, stderr := run(t, nil, "console", "extra"); code != 2 || !strings.Contains(stderr, "hint:") {
		t.Errorf("console extra: exit %d, stderr %q; want 2 with a hint", code, stderr)
	}
	// Without a terminal (run's stdout is a buffer) it says so, not bubbletea's "could not
	// open a new TTY".
	if code, _, stderr := run(t, nil, "console"); code != 1 || !strings.Contains(stderr, "console needs a terminal") ||
		!strings.Contains(stderr, "hint: run 'mcpctl console' in a terminal window") {
		t.Errorf("console without a terminal: exit %d, stderr %q; want 1, saying it needs one", code, stderr)
	}
}

// serve run by hand in a terminal says it waits for an MCP client and how one starts it,
// rather than sitting silent.
func TestServeByHandSaysWhatItIs(t *testing.T) {
	lib := librarytest.New(t, 3)
	// Wide, so that the log line is one line of the pane.
	p := startPane(t, 400, "", t.TempDir(), "serve", "--library", lib.Dir)
	p.waitFor("is waiting for a client", "'mcpctl mcp-config' prints the entry")
}

// Run in a repository, the console's Gate screen lists the repository's project and starts on
// it, as serve would serve it there.
func TestConsoleStartsOnTheRepositoryProject(t *testing.T) {
	lib := projectLibrary(t)
	_, sub := repoWithProject(t, "Shop Front", webProject)
	p := startPane(t, 80, sub, t.TempDir(), "console", "--library", lib.Dir)

	p.waitFor("[1 Library]")
	p.keys("4")
	p.waitFor("▸ shop-front (repo)")
	p.keys("t", "sql", "Enter")
	p.waitFor("budget", "/200B") // the repository file's byte budget
}
