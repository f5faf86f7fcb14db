package cmd

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/mcpctl/mcpctl/tui/traffic"
)

func runTraffic(ctx context.Context, env Env, args []string) error {
	if len(args) == 0 || args[0] != "tail" {
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			args = []string{"tail", "-h"}
		} else {
			return &usageError{msg: "traffic: want 'tail'", hint: "mcpctl traffic tail [-n N] [--follow] [--session S] [--method M]"}
		}
	}
	fs := newFlagSet("traffic tail", "mcpctl traffic tail [-n N] [--follow] [--session S] [--method M]",
		"Prints the traffic events of every 'mcpctl serve' session (requests, responses and notifications,\n"+
			"from $XDG_STATE_HOME/mcpctl/traffic) as a table, oldest first. With --follow it keeps printing\n"+
			"new events as servers write them, until interrupted.")
	// A tail: the log keeps up to 20 MB of events, which printed whole by default scrolled what
	// was asked for out of sight.
	last := fs.Int("n", 20, "print only the last `N` events that match (with --follow, then the new ones); 0 for all")
	follow := fs.Bool("follow", false, "keep printing new events as they are written")
	session := fs.String("session", "", "only events of the session `S` (a prefix is enough)")
	method := fs.String("method", "", "only events of the method `M` (tools/call), or of the tool, prompt or resource of that name (search_prompts)")
	if err := fs.parseFlagsOnly(env, args[1:]); err != nil {
		return err
	}
	if *last < 0 {
		return fs.usageError("-n %d: want a number of events, 0 for all", *last)
	}
	dir := traffic.Dir(stateHome(env))
	keep := func(e traffic.Event) bool {
		// The table's METHOD says tools/call, its NAME which tool: either is what a user names.
		return strings.HasPrefix(e.Session, *session) && (*method == "" || e.Method == *method || e.Name == *method)
	}
	var events, kept []traffic.Event
	var read traffic.Position // where the history ends: --follow goes on from there
	if !*follow || *last > 0 {
		var err error
		if events, read, err = traffic.ReadDir(dir); err != nil {
			return err
		}
		for _, e := range events {
			if keep(e) {
				kept = append(kept, e)
			}
		}
		if *last > 0 && len(kept) > *last {
			kept = kept[len(kept)-*last:]
		}
	}
	out := env.Stdout
	if *follow {
		// Without -n, Follow prints the history itself (read is nil).
		fmt.Fprintln(out, trafficHeader)
		for _, e := range kept {
			fmt.Fprintln(out, trafficRow(e))
		}
		return traffic.Follow(ctx, dir, read, func(e traffic.Event) {
			if keep(e) {
				fmt.Fprintln(out, trafficRow(e))
			}
		})
	}
	if len(kept) == 0 {
		noTraffic(env.Stderr, dir, len(events) > 0)
		return nil
	}
	fmt.Fprintln(out, trafficHeader)
	for _, e := range kept {
		fmt.Fprintln(out, trafficRow(e))
	}
	return nil
}

func noTraffic(w io.Writer, dir string, filtered bool) {
	if filtered {
		fmt.Fprintln(w, "no traffic events match; drop --session or --method to see them all")
		return
	}
	fmt.Fprintf(w, "no traffic yet in %s: servers write it while they run ('mcpctl serve');\n"+
		"run 'mcpctl traffic tail --follow' to watch it arrive\n", dir)
}

const trafficHeader = "TIME          SESSION   KIND          METHOD                    NAME                        MS      IN     OUT  STATUS     CODE"

// trafficRow is one event as a table row; the gate's and the pipeline's part follow when present.
func trafficRow(e traffic.Event) string {
	ms := ""
	if e.DurationMs > 0 || e.Kind == traffic.KindResponse {
		ms = strconv.FormatFloat(e.DurationMs, 'f', 1, 64)
	}
	row := fmt.Sprintf("%-12s  %-8s  %-12s  %-24s  %-24s  %6s  %6d  %6d  %-9s  %s",
		e.TS.Local().Format("15:04:05.000"), clip(cell(e.Session), 8), cell(string(e.Kind)), clip(cell(e.Method), 24), clip(cell(e.Name), 24),
		ms, e.BytesIn, e.BytesOut, orDash(cell(e.Status)), orDash(cell(e.ErrorCode)))
	if g := e.Gate; g != nil {
		row += fmt.Sprintf("  gate=%s matched=%d sent=%d", cell(string(g.State)), g.Matched, g.Sent)
		if g.Critical > 0 {
			// Priority 10, sent whatever the tags and not among the matched: "sent 1 of 0 matched".
			row += fmt.Sprintf(" (%d critical)", g.Critical)
		}
		row += fmt.Sprintf(" %dB", g.Bytes)
	}
	if p := e.Pipeline; p != nil {
		cache := "miss"
		if p.CacheHit {
			cache = "hit"
		}
		row += fmt.Sprintf("  pipeline=%s %dB→%dB cache %s", cell(p.Model), p.BytesBefore, p.BytesAfter, cache)
	}
	if e.Upstream != "" {
		row += "  upstream=" + cell(e.Upstream)
	}
	return strings.TrimRight(row, " ")
}

// clip shortens s to n runes, marking the cut with an ellipsis.
func clip(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
