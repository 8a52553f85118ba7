// Package cli is the mcp-router command line: one binary that is the
// desktop app when run bare and a CLI with subcommands otherwise. Every
// command reports bad input as one line on stderr and a non-zero exit.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/applog"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/single"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // the command failed
	ExitUsage = 2 // the command line was wrong
)

// Options connect the CLI to its surroundings; tests swap the streams.
type Options struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// RunDesktop runs the desktop window until it closes or ctx ends. Nil in
	// builds without a GUI (the Docker image), where the bare command says so.
	// api is the UI facade the window binds; the browser UI at /ui/ of the
	// same process shares it.
	RunDesktop func(ctx context.Context, c *core.Core, api *appapi.API) error
	// Assets is the built frontend (the contents of frontend/dist), served
	// at /ui/; nil in builds without one.
	Assets fs.FS
	// LoginItem writes (on) or removes (off) the OS login item that starts
	// the desktop app; nil: this binary's own (tests swap it).
	LoginItem func(on bool) error
	// TuneRuntime is run first by the commands that serve the HTTP endpoint
	// (the desktop app and serve): main passes hotpath.Setup. Not by stdio
	// and connect, which block reading stdin — with one P such a read holds
	// the only P until the runtime's monitor takes it back. Nil in tests, so
	// a test process keeps its own runtime settings.
	TuneRuntime func()
	// UserEnv gives the desktop app, before any server starts, the
	// environment the user's shell would have (PATH from the login shell;
	// main passes shellenv.ForGUI) and names what it changed. Nil in tests.
	UserEnv func(ctx context.Context) ([]string, error)
	// ReadSecret reads a secret value the user types, without echo (an
	// import asking for the values of its secret entries). Nil: from
	// Stdin when it is a terminal, else nothing is asked. Tests set it.
	ReadSecret func(prompt string) (string, error)
	// ReadLine reads a value the user types, with echo (a bundle's
	// user_config entry that is not sensitive). Nil: from Stdin when it is
	// a terminal, else nothing is asked. Tests set it.
	ReadLine func(prompt string) (string, error)
	// Confirm asks a yes/no question (clients add before writing a
	// client's config). Nil: on Stdin when it is a terminal, else nothing
	// is asked. Tests set it.
	Confirm func(prompt string) (bool, error)
	// ShowDesktop brings the desktop window forward; it is called when the
	// app is launched again for the same data directory (package single),
	// which then exits. Nil: the second launch only exits.
	ShowDesktop func()
}

// usageError marks errors in how the command was called (exit 2).
type usageError struct{ error }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// EnvRedis is the environment variable --redis defaults to.
const EnvRedis = "MCP_ROUTER_REDIS"

// env carries what every command needs.
type env struct {
	opts     Options
	dataDir  string
	database string // --database, else $MCP_ROUTER_DATABASE
	logLevel string
	logFile  io.Closer // the desktop app's log file
	team     teamFlags // --redis, --replica, --advertise (cluster.go)
}

// Main runs the command line and returns the process exit code.
func Main(ctx context.Context, args []string, o Options) int {
	if o.Stdin == nil {
		o.Stdin = os.Stdin
	}
	if o.Stdout == nil {
		o.Stdout = os.Stdout
	}
	if o.Stderr == nil {
		o.Stderr = os.Stderr
	}
	e := &env{opts: o}
	root := e.rootCommand()
	root.SetArgs(args)
	root.SetIn(o.Stdin)
	root.SetOut(o.Stdout)
	root.SetErr(o.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintf(o.Stderr, "mcp-router: %s\n", oneLine(err))
	var ue usageError
	if errors.As(err, &ue) || isCobraUsage(err) {
		return ExitUsage
	}
	return ExitError
}

// oneLine keeps an error on one line: joined errors become "; "-separated.
func oneLine(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; ")
}

// isCobraUsage recognises cobra's own complaints about flags and arguments.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument",
		"invalid argument", "accepts ", "requires at least", "requires at most", "required flag"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

func (e *env) rootCommand() *cobra.Command {
	root := &cobra.Command{
		Use:   "mcp-router",
		Short: "One endpoint for all your MCP servers, with control over every request",
		Long: "MCP Router runs your MCP servers, aggregates their tools, resources and prompts behind one\n" +
			"endpoint and lets you control every request. Run without a command to open the desktop app.",
		Args:          cobra.NoArgs,
		Version:       core.Version, // --version, as the version command
		SilenceErrors: true,
		SilenceUsage:  true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			level, err := logrus.ParseLevel(e.logLevel)
			if err != nil {
				return usagef("bad --log-level %q: want debug, info, warn or error", e.logLevel)
			}
			logrus.SetLevel(level)
			logrus.SetOutput(e.opts.Stderr)
			if e.database == "" {
				e.database = os.Getenv(databaseEnv)
			}
			if err := store.CheckDatabaseURL(e.database); err != nil {
				return usagef("--database (or $%s): %w", databaseEnv, err)
			}
			if !cmd.Flags().Changed("redis") {
				e.team.redis = strings.TrimSpace(os.Getenv(EnvRedis))
			}
			if e.team.redis != "" {
				if err := core.CheckRedisURL(e.team.redis); err != nil {
					return usagef("--redis (or $%s): %v", EnvRedis, err)
				}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return e.runDesktop(cmd.Context()) },
	}
	root.PersistentFlags().StringVar(&e.dataDir, "data-dir", "", "data directory (default $MCP_ROUTER_DATA_DIR, else the user config dir)")
	root.PersistentFlags().StringVar(&e.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	root.PersistentFlags().StringVar(&e.database, "database", "",
		"postgres://user:password@host:port/db to share one PostgreSQL database between replicas (default $"+databaseEnv+", else the SQLite file in the data dir)")
	e.addTeamFlags(root)
	root.SetVersionTemplate("mcp-router {{.Version}}\n")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError{err} })
	root.AddCommand(e.serversCommand(), e.versionCommand(),
		e.tokensCommand(), e.settingsCommand(), e.snippetCommand(), e.logsCommand(),
		e.serveCommand(), e.stdioCommand(), e.connectCommand(),
		e.hooksCommand(), e.stategateCommand(), e.policyCommand(), e.auditCommand(), e.profilesCommand(), e.toolsCommand(), e.importCommand(),
		e.clientsCommand())
	root.AddCommand(e.chatCommand())     // cmd_chat.go
	root.AddCommand(e.registryCommand()) // cmd_registry.go
	return root
}

func (e *env) versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(cmd.OutOrStdout(), "mcp-router %s\n", core.Version)
			return nil
		},
	}
}

func (e *env) resolveDataDir() (string, error) {
	return config.ResolveDataDir(e.dataDir)
}

// openStore opens the database for a short CLI command.
func (e *env) openStore() (*store.Store, error) {
	dir, err := e.resolveDataDir()
	if err != nil {
		return nil, err
	}
	return store.OpenDatabase(context.Background(), e.database, config.DBPath(dir), store.Options{})
}

// databaseEnv is --database's environment variable (the flag wins).
const databaseEnv = "MCP_ROUTER_DATABASE"

// withStore runs fn with an open store and closes it afterwards.
func (e *env) withStore(fn func(*store.Store) error) error {
	st, err := e.openStore()
	if err != nil {
		return err
	}
	defer st.Close()
	return fn(st)
}

func (e *env) runDesktop(ctx context.Context) error {
	if e.opts.RunDesktop == nil {
		return errors.New("this build has no desktop UI; see `mcp-router --help` for the commands it has")
	}
	// One desktop app per data directory: a second launch brings the
	// first one's window forward and exits before it opens anything.
	dir, err := e.resolveDataDir()
	if err != nil {
		return err
	}
	hold, err := single.Claim(dir, e.showDesktop)
	var running *single.Running
	if errors.As(err, &running) {
		fmt.Fprintln(e.opts.Stdout, running.Error())
		return nil
	}
	if err != nil {
		return err
	}
	defer hold.Close()
	e.tuneRuntime()
	logFile := e.openLogFile()
	if logFile != "" {
		defer e.closeLogFile()
	}
	// The login shell's environment is taken while the window opens; the
	// servers start once it is there (a profile loading nvm or pyenv takes
	// a second or more).
	var o core.Options
	if e.opts.UserEnv != nil {
		o.BeforeServers = e.userEnv
	}
	return e.runCoreWith(ctx, o, func(c *core.Core) error {
		api := appapi.New(c, appapi.Options{Autostart: e.setLoginItem, LogFile: logFile})
		defer appapi.Close(api)
		// The window is useful without the endpoint (say, when the port is
		// taken), so a failure to listen is logged, not fatal, and a change
		// of the port or listen setting moves the endpoint in place.
		serveCtx, stopServe := context.WithCancel(ctx)
		served := make(chan struct{})
		go func() {
			defer close(served)
			err := c.ServeFollowing(serveCtx, core.ServeOptions{UI: e.uiHandler(api, false), Ready: func(addr string) {
				logrus.Infof("MCP endpoint listening on http://%s/mcp (browser UI at http://%s/ui/)", addr, addr)
			}}, true)
			if err != nil {
				logrus.Errorf("MCP endpoint: %v", err)
			}
		}()
		defer func() { stopServe(); <-served }()
		return e.opts.RunDesktop(ctx, c, api)
	})
}

func (e *env) showDesktop() {
	logrus.Info("the app was launched again: bringing the window forward")
	if e.opts.ShowDesktop != nil {
		e.opts.ShowDesktop()
	}
}

// newAPI is the UI facade of this process. Without a desktop UI there is
// nothing to start at login, so the setting is refused rather than writing
// a login item that would only print an error.
func (e *env) newAPI(c *core.Core) *appapi.API {
	return appapi.New(c, appapi.Options{Autostart: e.setLoginItem})
}

// setLoginItem writes or removes the login item; the settings page and
// `settings set startAtLogin` both go through it.
func (e *env) setLoginItem(on bool) error {
	switch {
	case e.opts.LoginItem != nil:
		return e.opts.LoginItem(on)
	case e.opts.RunDesktop == nil:
		// Nothing to start at login: refused rather than writing a login
		// item that would only print an error.
		return errors.New("this build has no desktop app to start at login")
	}
	return appapi.DefaultAutostart(on)
}

func (e *env) uiHandler(api *appapi.API, noAuth bool) http.Handler {
	return appapi.Handler(api, appapi.HTTPOptions{Assets: e.opts.Assets, NoAuth: noAuth})
}

// openLogFile sends the log to <data dir>/logs as well as to stderr, which
// no one reads when the app was started from a desktop menu, and returns
// the file's path ("" when it cannot be written: the app runs anyway).
func (e *env) openLogFile() string {
	dir, err := e.resolveDataDir()
	if err != nil {
		return ""
	}
	w, err := applog.Open(dir)
	if err != nil {
		logrus.Warnf("no log file: %v", err)
		return ""
	}
	e.logFile = w
	logrus.SetOutput(io.MultiWriter(e.opts.Stderr, w))
	logrus.Infof("MCP Router %s; log file %s", core.Version, applog.Path(dir))
	return applog.Path(dir)
}

func (e *env) closeLogFile() {
	logrus.SetOutput(e.opts.Stderr)
	if e.logFile != nil {
		_ = e.logFile.Close()
	}
}

// userEnv runs Options.UserEnv, if any; a failure keeps the environment
// the app was started with.
func (e *env) userEnv(ctx context.Context) {
	if e.opts.UserEnv == nil {
		return
	}
	changed, err := e.opts.UserEnv(ctx)
	switch {
	case err != nil:
		logrus.Warnf("keeping the environment the app was started with: %v", err)
	case len(changed) > 0:
		logrus.Infof("from the login shell's environment: %s", strings.Join(changed, ", "))
	}
}

// tuneRuntime runs Options.TuneRuntime, if any.
func (e *env) tuneRuntime() {
	if e.opts.TuneRuntime != nil {
		e.opts.TuneRuntime()
	}
}
