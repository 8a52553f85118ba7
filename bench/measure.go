package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// Every path is driven the same way: a raw mcp-go transport and a
// SendRequest loop, so no path pays for client-side work another skips.

const callTimeout = 30 * time.Second

// session is one MCP client connection.
type session struct {
	tr     transport.Interface
	nextID atomic.Int64
	info   mcp.Implementation // the server's serverInfo
}

func (s *session) request(ctx context.Context, method string, params any) (json.RawMessage, error) {
	id := s.nextID.Add(1)
	ctx, cancel := context.WithTimeout(ctx, callTimeout)
	defer cancel()
	resp, err := s.tr.SendRequest(ctx, transport.JSONRPCRequest{
		JSONRPC: mcp.JSONRPC_VERSION, ID: mcp.NewRequestId(id), Method: method, Params: params})
	if err != nil {
		return nil, err
	}
	if resp.Error != nil {
		return nil, fmt.Errorf("%s: JSON-RPC error %d: %s", method, resp.Error.Code, resp.Error.Message)
	}
	return resp.Result, nil
}

// initialize runs the 2025-11-25 handshake.
func (s *session) initialize(ctx context.Context) error {
	res, err := s.request(ctx, string(mcp.MethodInitialize), map[string]any{
		"protocolVersion": mcp.ProtocolVersion20251125,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "mcpr-bench", "version": "1"},
	})
	if err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	var ir struct {
		ProtocolVersion string             `json:"protocolVersion"`
		ServerInfo      mcp.Implementation `json:"serverInfo"`
	}
	if err := json.Unmarshal(res, &ir); err != nil {
		return fmt.Errorf("initialize: %w", err)
	}
	s.info = ir.ServerInfo
	if hc, ok := s.tr.(transport.HTTPConnection); ok {
		hc.SetProtocolVersion(ir.ProtocolVersion)
	}
	return s.tr.SendNotification(ctx, mcp.JSONRPCNotification{JSONRPC: mcp.JSONRPC_VERSION,
		Notification: mcp.Notification{Method: "notifications/initialized"}})
}

// toolNames lists the tools the server offers (first page is enough here).
func (s *session) toolNames(ctx context.Context) ([]string, error) {
	res, err := s.request(ctx, string(mcp.MethodToolsList), map[string]any{})
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

func (s *session) close() { _ = s.tr.Close() }

const echoMessage = "mcpr-bench"

var errToolError = errors.New("the tool returned isError")

// echo calls the echo tool once and checks the answer is a tool result.
func (s *session) echo(ctx context.Context, tool string) error {
	res, err := s.request(ctx, string(mcp.MethodToolsCall), map[string]any{
		"name": tool, "arguments": map[string]any{"message": echoMessage}})
	if err != nil {
		return err
	}
	if bytes.Contains(res, []byte(`"isError":true`)) {
		return errToolError
	}
	if !bytes.Contains(res, []byte(echoMessage)) {
		return fmt.Errorf("echo: unexpected result %.200s", res)
	}
	return nil
}

// dialStdio starts command with args as a stdio MCP server and initializes.
func dialStdio(ctx context.Context, p *procs, name, command string, args []string, deathSig syscall.Signal) (*session, error) {
	tr := transport.NewStdioWithOptions(command, nil, args,
		transport.WithCommandFunc(p.commandFunc(name, deathSig)))
	if err := tr.Start(ctx); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s := &session{tr: tr}
	if err := s.initialize(ctx); err != nil {
		tr.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return s, nil
}

// dialHTTP opens one streamable HTTP session to url. Each session has its
// own connection pool, as separate client processes would.
func dialHTTP(ctx context.Context, url, token string) (*session, error) {
	hc := &http.Client{Transport: &http.Transport{
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        8,
		MaxIdleConnsPerHost: 8,
		IdleConnTimeout:     90 * time.Second,
	}}
	opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc)}
	if token != "" {
		opts = append(opts, transport.WithHTTPHeaders(map[string]string{"Authorization": "Bearer " + token}))
	}
	tr, err := transport.NewStreamableHTTP(url, opts...)
	if err != nil {
		return nil, err
	}
	if err := tr.Start(ctx); err != nil {
		return nil, err
	}
	s := &session{tr: tr}
	if err := s.initialize(ctx); err != nil {
		tr.Close()
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
