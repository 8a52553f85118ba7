// Command soak runs the router for a long time under a mixed load and
// reports whether it stayed healthy: every call answered, and RSS and
// goroutines flat. See docs/benchmarks.md ("make soak").
//
// It re-executes itself as the router (`mcp-router serve`, through the
// project's cli.Main, as the bench does) with one stdio upstream, the go-sdk
// everything-server, so the router's RSS and goroutines are its own.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mcp-router/mcp-router/backend/cli"
	"github.com/mcp-router/mcp-router/backend/hotpath"
)

// routerArg as the first argument makes this binary run the router's
// cli.Main instead of the soak.
const routerArg = "__mcp-router"

func main() {
	if len(os.Args) > 1 && os.Args[1] == routerArg {
		os.Exit(runRouter(os.Args[2:]))
	}
	o := defaultOptions()
	flag.DurationVar(&o.Duration, "duration", o.Duration, "length of the soak (SOAK_DURATION in make soak)")
	flag.IntVar(&o.Sessions, "sessions", o.Sessions, "concurrent client sessions")
	flag.DurationVar(&o.Pause, "pause", o.Pause, "each session's pause between two requests (jittered ±50%)")
	flag.IntVar(&o.Churn, "churn", o.Churn, "a session is closed and re-initialized after about this many requests (jittered ±50%)")
	flag.DurationVar(&o.KillEvery, "kill-every", o.KillEvery, "kill the stdio upstream this often (SIGKILL; the router's supervisor restarts it); 0: never")
	flag.DurationVar(&o.RestartGrace, "restart-grace", o.RestartGrace, "error answers are allowed this long after each kill")
	flag.DurationVar(&o.Sample, "sample", o.Sample, "sample the router's RSS and goroutines this often")
	flag.DurationVar(&o.Window, "window", o.Window, "the verdict compares the mean of the second window with that of the last one")
	flag.Float64Var(&o.Tolerance, "tolerance", o.Tolerance, "flat: the last window's mean at most this fraction above the second window's (0.2 = 20%)")
	flag.DurationVar(&o.CallTimeout, "call-timeout", o.CallTimeout, "a request not answered within this is counted unanswered")
	flag.StringVar(&o.Upstream, "upstream", "", "the stdio upstream's binary (default: .tools/bin/everything-server of the repository)")
	flag.Parse()
	if o.Upstream == "" {
		root, err := repoRoot()
		if err != nil {
			fmt.Fprintf(os.Stderr, "soak: %v\n", err)
			os.Exit(2)
		}
		o.Upstream = root + "/.tools/bin/everything-server"
	}
	if err := o.check(); err != nil {
		fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	rep, err := Run(ctx, o, os.Stderr)
	if err != nil {
		if errors.Is(err, context.Canceled) {
			fmt.Fprintln(os.Stderr, "soak: interrupted")
		} else {
			fmt.Fprintf(os.Stderr, "soak: %v\n", err)
		}
		os.Exit(1)
	}
	rep.Print(os.Stdout)
	if !rep.Passed() {
		os.Exit(1)
	}
}

// runRouter is main for the re-executed router: what `mcp-router serve`
// runs, minus the Wails window.
func runRouter(args []string) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	return cli.Main(ctx, args, cli.Options{TuneRuntime: func() { hotpath.Setup() }})
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(dir + "/go.mod"); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory: run soak from the repository")
		}
		dir = parent
	}
}

// Options of one soak run.
type Options struct {
	Duration     time.Duration
	Sessions     int
	Pause        time.Duration
	Churn        int
	KillEvery    time.Duration
	RestartGrace time.Duration
	Sample       time.Duration
	Window       time.Duration
	Tolerance    float64
	CallTimeout  time.Duration
	Upstream     string
}

func defaultOptions() Options {
	return Options{
		Duration:     10 * time.Minute,
		Sessions:     100,
		Pause:        100 * time.Millisecond,
		Churn:        100,
		KillEvery:    45 * time.Second,
		RestartGrace: 10 * time.Second,
		Sample:       10 * time.Second,
		Window:       time.Minute,
		Tolerance:    0.2,
		CallTimeout:  30 * time.Second,
	}
}

// check bounds every option; the soak runs real processes for as long as it
// is told, so nonsense is refused before anything starts.
func (o Options) check() error {
	switch {
	case o.Duration < 3*o.Window:
		return fmt.Errorf("-duration %s: must be at least three -window (%s) long, the verdict compares the second window with the last", o.Duration, o.Window)
	case o.Duration > 24*time.Hour:
		return fmt.Errorf("-duration %s: at most 24h", o.Duration)
	case o.Sessions < 1 || o.Sessions > 1000:
		return fmt.Errorf("-sessions %d: between 1 and 1000", o.Sessions)
	case o.Pause < 0 || o.Pause > time.Minute:
		return fmt.Errorf("-pause %s: between 0 and 1m", o.Pause)
	case o.Churn < 2:
		return fmt.Errorf("-churn %d: at least 2", o.Churn)
	case o.KillEvery < 0 || (o.KillEvery > 0 && o.KillEvery < 5*time.Second):
		return fmt.Errorf("-kill-every %s: 0 (never) or at least 5s", o.KillEvery)
	case o.RestartGrace < time.Second:
		return fmt.Errorf("-restart-grace %s: at least 1s", o.RestartGrace)
	case o.Sample < 100*time.Millisecond || o.Sample > o.Window:
		return fmt.Errorf("-sample %s: between 100ms and -window (%s)", o.Sample, o.Window)
	case o.Tolerance <= 0:
		return fmt.Errorf("-tolerance %g: must be positive", o.Tolerance)
	case o.CallTimeout < time.Second:
		return fmt.Errorf("-call-timeout %s: at least 1s", o.CallTimeout)
	}
	if _, err := os.Stat(o.Upstream); err != nil {
		return fmt.Errorf("the stdio upstream %s: %w (make soak builds it: make .tools/bin/everything-server)", o.Upstream, err)
	}
	return nil
}
