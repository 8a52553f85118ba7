package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// session is one MCP client connection (client.go): every path is driven
// by the same lean client.
type session struct {
	c      conn
	nextID atomic.Int64
	info   implementation // the server's serverInfo
	tails  sync.Map       // tool name → the echo request after its id
}

type implementation struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// request sends one request with params marshalled by encoding/json (for
// setting up, not for timed calls) and returns its result.
func (s *session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := s.nextID.Add(1)
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	r, err := s.c.call(ctx, id, body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	defer replyPool.Put(r)
	if r.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, r.Error.Code, r.Error.Message)
	}
	if len(r.Result) == 0 {
		return nil, fmt.Errorf("%s: an answer without a result", method)
	}
	return append(json.RawMessage(nil), r.Result...), nil
}

// protocolVersion is the revision the bench speaks.
const protocolVersion = "2025-11-25"

// initialize runs the 2025-11-25 handshake.
func (s *session) initialize(ctx context.Context) (string, error) {
	res, err := s.request(ctx, "initialize", map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpr-bench", "version": "1"},
	})
	if err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	var ir struct {
		ProtocolVersion string         `json:"protocolVersion"`
		ServerInfo      implementation `json:"serverInfo"`
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		return "", fmt.Errorf("initialize: %w", err)
	}
	s.info = ir.ServerInfo
	return ir.ProtocolVersion, nil
}

func (s *session) initialized(ctx context.Context) error {
	return s.c.notify(ctx, []byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
}

// toolNames lists the tools the server offers (first page is enough here).
func (s *session) toolNames(ctx context.Context) ([]string, error) {
	res, err := s.request(ctx, "tools/list", map[string]any{})
	if err != nil {
		return nil, err
	}
	var lr struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(res, &lr); err != nil {
		return nil, err
	}
	names := make([]string, 0, len(lr.Tools))
	for _, t := range lr.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}

// waitTools polls tools/list until every name in want is offered.
func (s *session) waitTools(ctx context.Context, timeout time.Duration, want ...string) error {
	deadline := time.Now().Add(timeout)
	var last []string
	for {
		names, err := s.toolNames(ctx)
		if err == nil {
			last = names
			if hasAll(names, want) {
				return nil
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("tools %v not offered after %s (have %v, last error %v)", want, timeout, last, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func hasAll(have, want []string) bool {
	set := map[string]bool{}
	for _, h := range have {
		set[h] = true
	}
	for _, w := range want {
		if !set[w] {
			return false
		}
	}
	return true
}

func (s *session) close() { s.c.close() }

const echoMessage = "mcpr-bench"

var errToolError = errors.New("the tool returned isError")

// echoBufs are the request buffers of echo calls (sessions may be shared
// by concurrent workers).
var echoBufs = sync.Pool{New: func() any { b := make([]byte, 0, 256); return &b }}

// echo calls the echo tool once and checks the answer: the call's id (the
// connection matches it), a result and no error, not a tool error, and the
// echoed message in it.
func (s *session) echo(ctx context.Context, tool string) error {
	id := s.nextID.Add(1)
	bp := echoBufs.Get().(*[]byte)
	b := append((*bp)[:0], `{"jsonrpc":"2.0","id":`...)
	b = strconv.AppendInt(b, id, 10)
	b = append(b, s.tail(tool)...)
	r, err := s.c.call(ctx, id, b)
	*bp = b
	echoBufs.Put(bp)
	if err != nil {
		return err
	}
	defer replyPool.Put(r)
	switch {
	case r.Error != nil:
		return fmt.Errorf("tools/call: JSON-RPC error %d: %s", r.Error.Code, r.Error.Message)
	case len(r.Result) == 0 || r.Result[0] != '{':
		return fmt.Errorf("echo: no result object: %.200s", r.Result)
	case bytes.Contains(r.Result, []byte(`"isError":true`)):
		return errToolError
	case !bytes.Contains(r.Result, []byte(echoMessage)):
		return fmt.Errorf("echo: unexpected result %.200s", r.Result)
	}
	return nil
}

// tail is the echo request after its id, made once per tool.
func (s *session) tail(tool string) []byte {
	if t, ok := s.tails.Load(tool); ok {
		return t.([]byte)
	}
	name, _ := json.Marshal(tool)
	t := []byte(`,"method":"tools/call","params":{"name":` + string(name) + `,"arguments":{"message":"` + echoMessage + `"}}}`)
	s.tails.Store(tool, t)
	return t
}

func newSession(c conn) *session { return &session{c: c} }

// dialStdio starts command with args as a stdio MCP server and initializes.
func dialStdio(ctx context.Context, p *procs, name, command string, args []string, deathSig syscall.Signal) (*session, error) {
	cmd, _ := p.commandFunc(name, deathSig)(ctx, command, nil, args)
	c, err := newStdioConn(cmd)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := newSession(c)
	if _, err := s.initialize(ctx); err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if err := s.initialized(ctx); err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// dialHTTP opens one streamable HTTP session to url. Each session has its
// own connection, as separate client processes would.
func dialHTTP(ctx context.Context, url, token string) (*session, error) {
	c, err := newHTTPConn(ctx, url, token)
	if err != nil {
		return nil, err
	}
	s := newSession(c)
	version, err := s.initialize(ctx)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	c.initialized(version)
	if err := s.initialized(ctx); err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return s, nil
}

// dialMcpgo opens a session with mcp-go's streamable HTTP client (the
// reference path only).
func dialMcpgo(ctx context.Context, url string) (*session, error) {
	c, err := newMcpgoConn(ctx, url)
	if err != nil {
		return nil, err
	}
	s := newSession(c)
	version, err := s.initialize(ctx)
	if err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	c.tr.SetProtocolVersion(version)
	if err := s.initialized(ctx); err != nil {
		c.close()
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	return s, nil
}

// stats summarises one run.
type stats struct {
	P50, P99, Mean float64 // milliseconds
	Rate           float64 // successful calls per second
	Calls, Errors  int
	CPU            float64 // cores the measured process used (concurrent router runs only)
	CPUPerCall     float64 // its CPU microseconds per call
	// ClientCPUPerCall is the bench process's own CPU microseconds per
	// call (the client side; concurrent router runs only).
	ClientCPUPerCall float64
}

func summarize(lat []time.Duration, elapsed time.Duration, errs int) stats {
	st := stats{Calls: len(lat), Errors: errs}
	if len(lat) == 0 {
		return st
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	st.P50 = ms(percentile(lat, 0.50))
	st.P99 = ms(percentile(lat, 0.99))
	st.Mean = ms(sum / time.Duration(len(lat)))
	st.Rate = float64(len(lat)) / elapsed.Seconds()
	return st
}

// percentile of sorted values, nearest rank.
func percentile(sorted []time.Duration, q float64) time.Duration {
	i := int(q*float64(len(sorted))+0.5) - 1
	if i < 0 {
		i = 0
	}
	if i >= len(sorted) {
		i = len(sorted) - 1
	}
	return sorted[i]
}

// sequential makes warmup untimed calls, then n timed ones, one at a time.
func sequential(ctx context.Context, s *session, tool string, warmup, n int) (stats, error) {
	for i := 0; i < warmup; i++ {
		if err := s.echo(ctx, tool); err != nil {
			return stats{}, fmt.Errorf("warm-up call %d: %w", i+1, err)
		}
	}
	lat := make([]time.Duration, 0, n)
	errs := 0
	start := time.Now()
	for i := 0; i < n; i++ {
		if ctx.Err() != nil {
			return stats{}, ctx.Err()
		}
		t0 := time.Now()
		if err := s.echo(ctx, tool); err != nil {
			errs++
			continue
		}
		lat = append(lat, time.Since(t0))
	}
	return summarize(lat, time.Since(start), errs), nil
}

// concurrent runs one worker per session (the same session may appear
// several times: workers then share it) calling echo in a loop for d,
// after a warm-up of about warmup calls spread over the workers.
func concurrent(ctx context.Context, sessions []*session, tool string, warmup int, d time.Duration) (stats, error) {
	workers := len(sessions)
	per := (warmup + workers - 1) / workers
	var wg sync.WaitGroup
	var warmErr atomic.Value
	for _, s := range sessions {
		wg.Add(1)
		go func(s *session) {
			defer wg.Done()
			for i := 0; i < per; i++ {
				if err := s.echo(ctx, tool); err != nil {
					warmErr.Store(err)
					return
				}
			}
		}(s)
	}
	wg.Wait()
	if err, _ := warmErr.Load().(error); err != nil {
		return stats{}, fmt.Errorf("warm-up: %w", err)
	}
	lats := make([][]time.Duration, workers)
	errs := make([]int, workers)
	start := time.Now()
	deadline := start.Add(d)
	for w, s := range sessions {
		wg.Add(1)
		go func(w int, s *session) {
			defer wg.Done()
			lat := make([]time.Duration, 0, 4096)
			for ctx.Err() == nil {
				t0 := time.Now()
				if t0.After(deadline) {
					break
				}
				if err := s.echo(ctx, tool); err != nil {
					errs[w]++
					continue
				}
				lat = append(lat, time.Since(t0))
			}
			lats[w] = lat
		}(w, s)
	}
	wg.Wait()
	elapsed := time.Since(start)
	if ctx.Err() != nil {
		return stats{}, ctx.Err()
	}
	var all []time.Duration
	total := 0
	for w := range lats {
		all = append(all, lats[w]...)
		total += errs[w]
	}
	return summarize(all, elapsed, total), nil
}

// median of each field over rounds, taken separately.
func median(runs []stats) stats {
	pick := func(f func(stats) float64) float64 {
		v := make([]float64, len(runs))
		for i, r := range runs {
			v[i] = f(r)
		}
		sort.Float64s(v)
		if len(v)%2 == 1 {
			return v[len(v)/2]
		}
		return (v[len(v)/2-1] + v[len(v)/2]) / 2
	}
	m := stats{
		P50:              pick(func(s stats) float64 { return s.P50 }),
		P99:              pick(func(s stats) float64 { return s.P99 }),
		Mean:             pick(func(s stats) float64 { return s.Mean }),
		Rate:             pick(func(s stats) float64 { return s.Rate }),
		CPU:              pick(func(s stats) float64 { return s.CPU }),
		CPUPerCall:       pick(func(s stats) float64 { return s.CPUPerCall }),
		ClientCPUPerCall: pick(func(s stats) float64 { return s.ClientCPUPerCall }),
	}
	for _, r := range runs {
		m.Calls += r.Calls
		m.Errors += r.Errors
	}
	return m
}
