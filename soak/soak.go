package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// kinds of request a session makes, in the order the report prints them.
const (
	kindInit    = iota // initialize (a new session, at the start and after each churn)
	kindCall           // tools/call test_simple_text
	kindList           // tools/list
	kindNotify         // tools/call test_tool_with_progress with a progress token: notifications on the way
	kindLog            // tools/call test_tool_with_logging: notifications/message on the way
	kindPrompts        // prompts/list
	numKinds
)

var kindNames = [numKinds]string{"initialize", "tools/call", "tools/list", "call+progress", "call+logging", "prompts/list"}

// tally counts the outcome of every request of one kind.
type tally struct {
	sent, ok, errRestart, errUnexpected, unanswered atomic.Int64
}

// soak is the state of one run, shared by its goroutines.
type soak struct {
	o      Options
	r      *router
	start  time.Time
	kinds  [numKinds]tally
	notes  atomic.Int64 // progress and log notifications received
	listCh atomic.Int64 // tools/list_changed notifications received
	opened atomic.Int64 // sessions initialized
	closed atomic.Int64 // sessions closed by churn or at the end

	mu        sync.Mutex
	kills     []time.Time
	restarts  int            // upstream processes seen after a kill
	failures  []string       // the first few unanswered or unexpected outcomes, for the report
	failSorts map[string]int // failures by sort, to keep the first few of each
	samples   []Sample
}

// Sample is one point of the curve.
type Sample struct {
	At         time.Duration
	RSS        int64
	Goroutines int
	Requests   int64
}

// Run starts the router, runs o.Sessions sessions and the upstream killer
// for o.Duration, samples the router meanwhile, stops everything and
// returns the report. progress gets a line per sample.
func Run(ctx context.Context, o Options, progress io.Writer) (*Report, error) {
	dataDir, err := os.MkdirTemp("", "mcpr-soak-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dataDir)
	if err := prepareDataDir(ctx, dataDir, o.Upstream); err != nil {
		return nil, err
	}
	marker := strconv.FormatInt(time.Now().UnixNano(), 36)
	r, err := startRouter(ctx, dataDir, marker)
	if err != nil {
		return nil, err
	}
	defer r.stop()
	s := &soak{o: o, r: r}
	if err := s.waitUpstream(ctx); err != nil {
		return nil, err
	}
	baseline, err := goroutines(ctx, r.base)
	if err != nil {
		return nil, err
	}

	fmt.Fprintf(progress, "soak: %d sessions for %s against %s (pid %d), upstream killed every %s\n", o.Sessions, o.Duration, r.url, r.cmd.Process.Pid, o.KillEvery)
	runCtx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	s.start = time.Now()
	var wg sync.WaitGroup
	for i := range o.Sessions {
		wg.Add(1)
		go func() { defer wg.Done(); s.session(runCtx, i) }()
	}
	var bg sync.WaitGroup
	bg.Add(2)
	go func() { defer bg.Done(); s.killer(runCtx) }()
	sampleErr := make(chan error, 1)
	go func() { defer bg.Done(); sampleErr <- s.sampler(runCtx, progress) }()
	wg.Wait()
	bg.Wait()
	if err := <-sampleErr; err != nil {
		return nil, err
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	select {
	case <-r.done:
		return nil, fmt.Errorf("the router exited during the soak: %s", r.stderrT)
	default:
	}
	// Once every session is closed the router should be back near where it
	// started; the report prints both.
	time.Sleep(2 * time.Second)
	after, err := goroutines(ctx, r.base)
	if err != nil {
		return nil, err
	}
	rep := s.report(baseline, after)
	rep.Marker = marker
	return rep, nil
}

// waitUpstream waits until the upstream runs and its tools are in the
// router's catalog, so the first kill has something to kill and the first
// calls find their tools.
func (s *soak) waitUpstream(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpr-soak-probe", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.StreamableClientTransport{Endpoint: s.r.url, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		return fmt.Errorf("the router's first session: %w", err)
	}
	defer cs.Close()
	want := upstreamName + "__test_simple_text"
	for {
		if len(s.r.upstreamPIDs(s.o.Upstream)) > 0 {
			if res, err := cs.ListTools(ctx, nil); err == nil && hasTool(res.Tools, want) {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			if err := context.Cause(ctx); err != nil && !errors.Is(err, context.DeadlineExceeded) {
				return err
			}
			return fmt.Errorf("the router did not list %s of its stdio upstream %s within 60s: %s", want, s.o.Upstream, s.r.stderrT)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

func hasTool(tools []*sdk.Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// killer SIGKILLs the stdio upstream every o.KillEvery and checks that the
// supervisor starts a new one.
func (s *soak) killer(ctx context.Context) {
	if s.o.KillEvery == 0 {
		return
	}
	t := time.NewTicker(s.o.KillEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// A kill too near the end would have no time to see its restart
		// (the run stops watching at its end): the last RestartGrace of the
		// run has none, so every kill counted is one the soak could check.
		if end, ok := ctx.Deadline(); ok && time.Until(end) < s.o.RestartGrace {
			continue
		}
		pids := s.r.upstreamPIDs(s.o.Upstream)
		if len(pids) == 0 {
			s.fail("kill: no upstream process to kill (the last restart has not happened)")
			continue
		}
		s.mu.Lock()
		s.kills = append(s.kills, time.Now())
		s.mu.Unlock()
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		go s.watchRestart(ctx, pids)
	}
}

// watchRestart waits for an upstream process other than the killed ones.
func (s *soak) watchRestart(ctx context.Context, killed []int) {
	deadline := time.Now().Add(s.o.RestartGrace)
	for time.Now().Before(deadline) {
		for _, pid := range s.r.upstreamPIDs(s.o.Upstream) {
			if !contains(killed, pid) {
				s.mu.Lock()
				s.restarts++
				s.mu.Unlock()
				return
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
	s.fail(fmt.Sprintf("the supervisor did not restart the upstream within -restart-grace %s", s.o.RestartGrace))
}

func contains(list []int, v int) bool {
	for _, x := range list {
		if x == v {
			return true
		}
	}
	return false
}

func (s *soak) sampler(ctx context.Context, progress io.Writer) error {
	t := time.NewTicker(s.o.Sample)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		rss, err := rssBytes(s.r.cmd.Process.Pid)
		if err != nil {
			return fmt.Errorf("sampling the router's RSS: %w", err)
		}
		g, err := goroutines(ctx, s.r.base)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("sampling the router's goroutines: %w", err)
		}
		var n int64
		for i := range s.kinds {
			n += s.kinds[i].sent.Load()
		}
		sm := Sample{At: time.Since(s.start), RSS: rss, Goroutines: g, Requests: n}
		s.mu.Lock()
		s.samples = append(s.samples, sm)
		s.mu.Unlock()
		fmt.Fprintf(progress, "soak: %6s  RSS %6.1f MiB  goroutines %5d  requests %d\n", sm.At.Round(time.Second), float64(rss)/(1<<20), g, n)
	}
}

// fail keeps the first failures of each sort (by the message's first
// word) for the report, each with its time and the time since the last kill.
func (s *soak) fail(msg string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	sort, _, _ := strings.Cut(msg, " ")
	if s.failSorts == nil {
		s.failSorts = map[string]int{}
	}
	s.failSorts[sort]++
	if s.failSorts[sort] > 5 {
		return
	}
	since := "no kill yet"
	if n := len(s.kills); n > 0 {
		since = fmt.Sprintf("%s after kill %d", time.Since(s.kills[n-1]).Round(time.Millisecond), n)
	}
	s.failures = append(s.failures, fmt.Sprintf("%s (%s): %s", time.Since(s.start).Round(time.Millisecond), since, msg))
}

// duringRestart reports whether a request that ran from t0 to t1 overlapped
// the window after a kill in which error answers are allowed.
func (s *soak) duringRestart(t0, t1 time.Time) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, k := range s.kills {
		if !k.After(t1) && !t0.After(k.Add(s.o.RestartGrace)) {
			return true
		}
	}
	return false
}

// record classifies one request's outcome. An answer is a result or a
// JSON-RPC error (or a tool result with isError); anything else (a timeout,
// a broken connection, an HTTP error) is unanswered.
func (s *soak) record(kind int, t0 time.Time, isError bool, err error) {
	k := &s.kinds[kind]
	switch {
	case err == nil && !isError:
		k.ok.Add(1)
		return
	case err != nil && !isAnswer(err):
		k.unanswered.Add(1)
		s.fail(fmt.Sprintf("%s unanswered: %v", kindNames[kind], err))
		return
	}
	if s.duringRestart(t0, time.Now()) {
		k.errRestart.Add(1)
		return
	}
	k.errUnexpected.Add(1)
	what := "a tool result with isError"
	if err != nil {
		what = err.Error()
	}
	s.fail(fmt.Sprintf("%s: error answer outside an upstream restart: %s", kindNames[kind], what))
}

func isAnswer(err error) bool {
	var wire *jsonrpc.Error
	return errors.As(err, &wire)
}

// session is one client: it initializes, makes requests with a pause in
// between, and after about o.Churn of them closes its session and starts a
// new one, until ctx ends.
func (s *soak) session(ctx context.Context, n int) {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(s.start.UnixNano())))
	httpClient := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second}}
	defer httpClient.CloseIdleConnections()
	client := sdk.NewClient(&sdk.Implementation{Name: "mcpr-soak", Version: "1"}, &sdk.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *sdk.ProgressNotificationClientRequest) { s.notes.Add(1) },
		LoggingMessageHandler:       func(context.Context, *sdk.LoggingMessageRequest) { s.notes.Add(1) },
		ToolListChangedHandler:      func(context.Context, *sdk.ToolListChangedRequest) { s.listCh.Add(1) },
	})
	for ctx.Err() == nil {
		t0 := time.Now()
		s.kinds[kindInit].sent.Add(1)
		cctx, cancel := context.WithTimeout(ctx, s.o.CallTimeout)
		cs, err := client.Connect(cctx, &sdk.StreamableClientTransport{Endpoint: s.r.url, HTTPClient: httpClient, MaxRetries: -1}, nil)
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				s.kinds[kindInit].sent.Add(-1) // cut by the end of the run, not by the router
				return
			}
			s.record(kindInit, t0, false, err)
			sleep(ctx, s.o.Pause)
			continue
		}
		s.record(kindInit, t0, false, nil)
		s.opened.Add(1)
		s.use(ctx, cs, rng)
		_ = cs.Close()
		s.closed.Add(1)
	}
}

// use makes requests on one session until its churn count or ctx ends.
func (s *soak) use(ctx context.Context, cs *sdk.ClientSession, rng *rand.Rand) {
	left := s.o.Churn/2 + rng.IntN(s.o.Churn)
	for ; left > 0; left-- {
		sleep(ctx, jitter(rng, s.o.Pause))
		if ctx.Err() != nil {
			return
		}
		kind := pick(rng)
		t0 := time.Now()
		s.kinds[kind].sent.Add(1)
		// The run's end does not cut a request short: it gets its full
		// timeout, so one cut at the end is not miscounted as unanswered.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.o.CallTimeout)
		isError, err := s.request(cctx, cs, kind, rng)
		cancel()
		s.record(kind, t0, isError, err)
	}
}

func (s *soak) request(ctx context.Context, cs *sdk.ClientSession, kind int, rng *rand.Rand) (bool, error) {
	switch kind {
	case kindList:
		_, err := cs.ListTools(ctx, nil)
		return false, err
	case kindPrompts:
		_, err := cs.ListPrompts(ctx, nil)
		return false, err
	}
	p := &sdk.CallToolParams{Name: upstreamName + "__test_simple_text", Arguments: map[string]any{}}
	switch kind {
	case kindNotify:
		p.Name = upstreamName + "__test_tool_with_progress"
		p.SetProgressToken("soak-" + strconv.FormatUint(rng.Uint64(), 36))
	case kindLog:
		p.Name = upstreamName + "__test_tool_with_logging"
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		return false, err
	}
	return res.IsError, nil
}

// pick chooses the next request: mostly calls, then lists and calls that
// send notifications.
func pick(rng *rand.Rand) int {
	switch x := rng.IntN(20); {
	case x < 10:
		return kindCall
	case x < 13:
		return kindList
	case x < 16:
		return kindNotify
	case x < 18:
		return kindLog
	default:
		return kindPrompts
	}
}

func jitter(rng *rand.Rand, d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return d/2 + time.Duration(rng.Int64N(int64(d)))
}

func sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}
