package cmd

import (
	"context"
	"fmt"

	"github.com/mcpctl/mcpctl/pipeline"
)

func runCache(_ context.Context, env Env, args []string) error {
	if len(args) == 0 || (args[0] != "stats" && args[0] != "clear") {
		return &usageError{msg: "cache: want 'stats' or 'clear'", hint: "mcpctl cache stats | mcpctl cache clear"}
	}
	fs := newFlagSet("cache "+args[0], "mcpctl cache stats | mcpctl cache clear",
		"Shows or empties the content pipeline's cache in $XDG_CACHE_HOME/mcpctl/pipeline. Clearing is\n"+
			"always safe: results are made anew on the next request, and read_section refs made before are forgotten.")
	if err := fs.parseFlagsOnly(env, args[1:]); err != nil {
		return err
	}
	e, err := newEngine(env, false)
	if err != nil {
		return err
	}
	defer e.Close()
	st, err := e.CacheStats()
	if err != nil {
		return err
	}
	if args[0] == "clear" {
		if err := e.ClearCache(); err != nil {
			return err
		}
		fmt.Fprintf(env.Stdout, "removed %d %s (%s) from %s\n", st.Entries, countNoun(st.Entries, "entry", "entries"), pipeline.HumanBytes(int(st.Bytes)), st.Dir)
		return nil
	}
	fmt.Fprintf(env.Stdout, "Directory: %s\nEntries:   %d\nSize:      %s of %s (%d bytes)\nRequests:  %d since the cache was cleared, %d answered from the cache\n",
		st.Dir, st.Entries, pipeline.HumanBytes(int(st.Bytes)), fmt.Sprintf("%.0f MiB", float64(st.Cap)/(1<<20)), st.Bytes, st.Requests, st.RequestHits)
	return nil
}
