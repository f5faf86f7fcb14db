package cmd

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mcpctl/mcpctl/cmd/internal/mcpserver"
	"github.com/mcpctl/mcpctl/cmd/internal/trust"
	"github.com/mcpctl/mcpctl/cmd/internal/upstream"
	"github.com/mcpctl/mcpctl/gate"
	"github.com/mcpctl/mcpctl/pipeline"
	"github.com/mcpctl/mcpctl/tui/traffic"
)

func runServe(ctx context.Context, env Env, args []string) error {
	fs := newFlagSet("serve", "mcpctl serve [--library DIR | --db FILE] [--queue DIR] [--project NAME] [--trace-content]",
		"Runs the stdio MCP server that Claude Code, Claude Desktop or Cursor start from .mcp.json.\n"+
			"With --project, a coding assistant first receives the project's guidance (gated session).\n"+
			"Stdout carries only the protocol; logs go to stderr as JSON (LOG_LEVEL=debug|info|warn|error).\n"+
			"With nothing configured it serves the standalone library in $XDG_DATA_HOME/mcpctl/library,\n"+
			"creating it with a few sample prompts on first run.")
	lf := addLibraryFlags(fs)
	projectName := fs.String("project", "", "serve "+projectHelp)
	trace := fs.Bool("trace-content", false, "record payloads in the traffic events, not only their sizes (also MCPCTL_TRACE=content)")
	if err := fs.parseFlagsOnly(env, args); err != nil {
		return err
	}
	log := newLogger(env)
	if isTerminal(env.Stdin) {
		// Run by hand, serve would sit silent: it speaks MCP to a client, not to a person.
		log.Info("serve speaks MCP (JSON-RPC) on stdin and stdout and is waiting for a client: " +
			"an MCP client starts it from its config ('mcpctl mcp-config' prints the entry); 'mcpctl demo' shows a session")
	}
	tuneGC(env)
	lib, err := lf.resolve(ctx, env, true)
	var libraryProblem string
	if ue := (*usageError)(nil); errors.As(err, &ue) {
		return err // a command line that contradicts itself (--library with --db): Main says so
	} else if err != nil {
		libraryProblem = unservedLibrary(log, lib, err)
	}
	// Without a named project, a repository's own .mcpctl/project.yaml (Claude Code and Cursor
	// start servers in the project's directory) serves; its servers start only once trusted.
	choice, err := chooseProject(env, *projectName)
	var projectProblem string
	if err != nil {
		projectProblem = unservedProject(log, err)
	}
	project := choice.Project
	// A server started as a project's own (upstream.ParentEnv) runs in the project's directory:
	// it serves no repository project whose servers started it, and never starts the servers
	// of a project named that did, or they would start it again without end.
	var untrusted string
	chain := env.Getenv(upstream.ParentEnv)
	switch {
	case choice.repo && upstream.InChain(chain, project.File):
		log.Info("started as a server of the repository's project: serving the library without it", "project", project.File)
		project = nil
	case choice.untrusted() != "" && len(project.Servers) > 0:
		untrusted = choice.untrusted()
	case project != nil && upstream.InChain(chain, project.File) && len(project.Servers) > 0:
		untrusted = "this server is itself started by mcpctl for this project's servers: starting them here would loop"
	}
	var up upstream.Options
	if project != nil {
		up = upstream.Options{Dir: upstream.BaseDir(*project), Getenv: env.Getenv, Project: project.File, Environ: childEnviron(os.Environ())}
	}
	engine, llmProblem, err := serveEngine(env, log)
	if err != nil {
		return err
	}
	defer engine.Close()
	// With an LLM configured, a project's briefings are re-ranked by it (DESIGN §9).
	var rr gate.Reranker
	if llm := engine.LLM(); llm != nil && project != nil {
		rr = gate.NewLLMReranker(llm, gate.DefaultRerankTimeout, log)
	}
	cfg := mcpserver.Config{
		Library:        lib,
		Project:        project,
		CacheDir:       filepath.Join(cacheHome(env), "mcpctl"),
		TrafficDir:     traffic.Dir(stateHome(env)),
		TraceContent:   *trace || env.Getenv("MCPCTL_TRACE") == "content",
		Version:        version(),
		Logger:         log,
		Upstream:       up,
		Untrusted:      untrusted,
		LLMProblem:     llmProblem,
		ProjectProblem: projectProblem,
		LibraryProblem: libraryProblem,
		Pipeline:       engine,
		Reranker:       rr,
	}
	if libraryProblem != "" {
		// Without a library there is no project to serve either, nor its servers to start.
		withoutProject(&cfg)
	}
	err = mcpserver.Run(ctx, cfg, env.Stdin, env.Stdout)
	switch {
	case errors.Is(err, mcpserver.ErrOpenLibrary):
		// Nothing was read from stdin yet: the session starts again, saying why.
		withoutProject(&cfg)
		cfg.LibraryProblem = unservedLibrary(log, lib, err)
		err = mcpserver.Run(ctx, cfg, env.Stdin, env.Stdout)
	case errors.Is(err, gate.ErrNoFolder):
		// Nothing was read from stdin yet: the session starts again, without the project.
		withoutProject(&cfg)
		cfg.ProjectProblem = unservedProject(log, err)
		err = mcpserver.Run(ctx, cfg, env.Stdin, env.Stdout)
	}
	return err
}

// withoutProject makes cfg serve no project: neither its gate, its servers nor its re-ranker.
func withoutProject(cfg *mcpserver.Config) {
	cfg.Project, cfg.Upstream, cfg.Untrusted, cfg.Reranker = nil, upstream.Options{}, "", nil
}

// unservedLibrary logs why the library serve was started for cannot be opened (err: from
// resolving it, or from opening its database) and returns it for the session, which then says
// so, with the path looked at, what chose it (a flag, the environment, the default) and the
// command that fixes it, and serves nothing else (mcpserver.Config.LibraryProblem). Exiting
// instead would leave the user a client's "failed to connect" and the reason in a log file.
func unservedLibrary(log *slog.Logger, lib Library, err error) string {
	msg := err.Error()
	if errors.Is(err, mcpserver.ErrOpenLibrary) {
		// dbread's words alone name neither the path nor what chose it.
		msg = fmt.Sprintf("cannot open the library at %s (found by %s): %s", lib.DB, lib.Source,
			strings.TrimPrefix(msg, mcpserver.ErrOpenLibrary.Error()+": "))
	}
	// The CLI's messages put their advice on a line of their own; the session's text is one line.
	msg = strings.Join(strings.Fields(msg), " ")
	hint := libraryHint(err) // a file that is no library, or another program's database
	if h := (*hintError)(nil); errors.As(err, &h) {
		hint = h.hint // no library there, or one mcpctl may not read
	}
	log.Error("the library cannot be opened: only health_check is served until it is fixed",
		"library", lib.DB, "source", lib.Source, "problem", msg, "fix", hint)
	return sessionProblem(msg, hint)
}

// unservedProject logs why the project serve was started for cannot be served (err: its file
// is invalid or missing, or its folder is not in the library) and returns it for the session,
// which then says so and serves nothing else (mcpserver.Config.ProjectProblem). Exiting instead
// would leave the user a client's "failed to connect" and the reason in a log file.
func unservedProject(log *slog.Logger, err error) string {
	msg, hint := err.Error(), ""
	var h interface{ UserHint() string } // gate.Error for a missing folder, say
	if errors.As(err, &h) {
		hint = h.UserHint()
	}
	log.Error("the project cannot be served: only health_check is served until it is fixed", "problem", msg, "fix", hint)
	return sessionProblem(msg, hint)
}

// sessionProblem is what a session that cannot be served says (health_check, and every call):
// the problem, its fix, and that the server must start again to see the fix, in one line.
func sessionProblem(msg, hint string) string {
	problem := strings.TrimSuffix(msg, ".") + "."
	if hint != "" {
		problem += " To fix: " + strings.TrimSuffix(hint, ".") + "."
	}
	return problem + " Then restart the MCP server (or reconnect it in the client)."
}

// newLogger writes JSON lines to stderr at LOG_LEVEL (default info).
func newLogger(env Env) *slog.Logger {
	var level slog.Level
	switch strings.ToLower(env.Getenv("LOG_LEVEL")) {
	case "debug":
		level = slog.LevelDebug
	case "warn", "warning":
		level = slog.LevelWarn
	case "error":
		level = slog.LevelError
	case "", "info":
		level = slog.LevelInfo
	default:
		log := slog.New(slog.NewJSONHandler(env.Stderr, nil))
		log.Warn("LOG_LEVEL not understood; logging at info", "value", env.Getenv("LOG_LEVEL"), "want", "debug, info, warn or error")
		return log
	}
	return slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
}

// projectEnv names the project the commands that take --project use without it (chooseProject).
const projectEnv = "MCPCTL_PROJECT"

// childEnviron is the environment a project's servers inherit: environ without mcpctl's own
// choice of project, which is this process's. An mcpctl serve among them serves what its spec
// says (args, or env: {MCPCTL_PROJECT: …}), not the project that started it.
func childEnviron(environ []string) []string {
	return slices.DeleteFunc(slices.Clone(environ), func(kv string) bool { return strings.HasPrefix(kv, projectEnv+"=") })
}

// projectsDir is where project files live.
func projectsDir(env Env) string { return filepath.Join(configHome(env), "mcpctl", "projects") }

// loadProject loads the named project, or $MCPCTL_PROJECT; none named is nil (no gate).
func loadProject(env Env, name string) (*gate.Project, error) {
	if name == "" {
		name = env.Getenv(projectEnv)
	}
	if name == "" {
		return nil, nil
	}
	p, err := gate.LoadProject(projectsDir(env), name)
	if errors.Is(err, gate.ErrNoProject) {
		return nil, fmt.Errorf("no project %q: create %s (see the README's Projects section), or run 'mcpctl get projects'",
			name, filepath.Join(projectsDir(env), name+".yaml"))
	}
	if err != nil {
		return nil, err
	}
	return &p, nil
}

// projectChoice is the project a command works on, and whether it may start its servers.
type projectChoice struct {
	*gate.Project        // nil: none named, and no repository project
	repo          bool   // the repository's .mcpctl/project.yaml, not a file of the projects directory
	trusted       bool   // a repository file must be trusted to start servers; the user's own files are
	why           string // when not trusted, why, and the command that trusts it
}

// untrusted says why the project's servers may not be started, "" when they may: only a
// repository's project file needs its user's trust.
func (c projectChoice) untrusted() string {
	if c.repo && !c.trusted {
		return c.why
	}
	return ""
}

// chooseProject is how every command that takes --project finds its project, serve's way:
// --project NAME (name), else $MCPCTL_PROJECT, from the projects directory; else the repository
// project found from the working directory upwards; else none (a nil Project). A command run in
// a repository so works on the project that 'mcpctl serve' there would serve.
func chooseProject(env Env, name string) (projectChoice, error) {
	if name == "" {
		name = env.Getenv(projectEnv)
	}
	var r *trust.Repo
	var err error
	if isProjectDir(name) {
		// A repository named by its directory: for a client that does not start its servers
		// in the project's directory (Claude Desktop).
		dir := expandHome(env, name)
		// A directory mistyped must not serve the project of one above it.
		if fi, serr := os.Stat(dir); serr != nil || !fi.IsDir() {
			return projectChoice{}, fmt.Errorf("--project %s: no such directory: give a repository's directory, or a project's NAME", dir)
		}
		if r, err = repoProjectIn(env, dir); err == nil && r == nil {
			err = fmt.Errorf("no project in %s: no .mcpctl/project.yaml there or in a directory above it", dir)
		}
	} else {
		var p *gate.Project
		if p, err = loadProject(env, name); err != nil || p != nil {
			return projectChoice{Project: p, trusted: true}, err
		}
		r, err = repoProject(env)
	}
	if err != nil || r == nil {
		return projectChoice{}, err
	}
	return projectChoice{Project: &r.Project, repo: true, trusted: r.Trusted, why: r.Reason}, nil
}

// isProjectDir reports whether a --project value is a repository's directory, not a name: a
// project's name has no slash, and is neither . nor ~.
func isProjectDir(name string) bool {
	return strings.ContainsRune(name, filepath.Separator) || strings.ContainsRune(name, '/') || name == "." || name == ".." || name == "~"
}

// repoProject is the repository project found from the working directory upwards; nil when
// there is none.
func repoProject(env Env) (*trust.Repo, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, nil // no working directory (removed under us): no repository either
	}
	return repoProjectIn(env, wd)
}

// repoProjectIn is the repository project found from dir upwards; nil when there is none.
func repoProjectIn(env Env, dir string) (*trust.Repo, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	r, err := trustStore(env).LoadRepo(abs)
	switch {
	case errors.Is(err, trust.ErrNotFound):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &r, nil
}

// needProject is chooseProject for the commands that want a project: none is a usage error,
// saying how the command takes a NAME (arg: "--project NAME", or "NAME" where it is the command's
// argument).
func needProject(env Env, name, arg string) (projectChoice, error) {
	c, err := chooseProject(env, name)
	if err == nil && c.Project == nil {
		err = &usageError{msg: "no project: give " + arg + " (or set " + projectEnv + "), or run this inside a repository with .mcpctl/project.yaml",
			hint: "mcpctl get projects lists the projects in " + projectsDir(env)}
	}
	return c, err
}

// projectHelp is the help of --project for the commands that use chooseProject, after a verb.
const projectHelp = "the project `NAME` ($XDG_CONFIG_HOME/mcpctl/projects/NAME.yaml), or a repository's DIR (its .mcpctl/project.yaml); default $MCPCTL_PROJECT, else the repository's .mcpctl/project.yaml"

// serveEngine is the content pipeline a server runs: the proxymodels and custom stages under
// $XDG_CONFIG_HOME/mcpctl, the cache under $XDG_CACHE_HOME/mcpctl, and the LLM config.yaml
// names, if any. A config.yaml that cannot be read or is invalid does not stop serve: the LLM
// is optional (summaries and re-ranking work without it), and a typo in it took down every
// tool, prompt and the gate, seen in a client only as "failed to connect". Serve runs without
// the LLM and says why in its log, naming the file, the field and the fix; problem says the
// same for health_check.
func serveEngine(env Env, log *slog.Logger) (engine *pipeline.Engine, problem string, err error) {
	dir := filepath.Join(configHome(env), "mcpctl")
	file := filepath.Join(dir, "config.yaml")
	opts := pipeline.Options{ConfigDir: dir, CacheDir: filepath.Join(cacheHome(env), "mcpctl"), Logger: log, Getenv: env.Getenv, NoLLM: true}
	cfg, err := pipeline.LoadConfig(file)
	switch {
	case err != nil:
		// A file that cannot be read (its mode, say) is not one to fix field by field.
		what, fix := "is not valid", configFix
		if pe := (*pipeline.Error)(nil); errors.As(err, &pe) {
			what, fix = "cannot be read", "make it readable by the user serve runs as, or remove it, then restart serve"
		}
		const without = "serving without the LLM (summaries stay deterministic, briefings are not re-ranked)"
		detail := strings.TrimPrefix(err.Error(), "schemas: ")
		log.Warn("config.yaml "+what+": "+without, "file", file, "problem", detail, "fix", fix)
		problem = fmt.Sprintf("%s %s (%s): %s. To fix: %s.", file, what, detail, without, fix)
	case cfg.LLM != nil:
		opts.LLM = pipeline.NewLLMClient(*cfg.LLM, env.Getenv, nil)
	}
	engine, err = pipeline.NewEngine(opts)
	return engine, problem, err
}

// configFix is what to do about an invalid config.yaml.
const configFix = "fix the named field (llm: {url, model, apiKeyEnv, timeoutMs}; see the README's Content pipelines section) or remove the file, then restart serve"
