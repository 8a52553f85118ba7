package upstream

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"
)

// pipePeer is the server end of a pipeTransport.
type pipePeer struct {
	lines *bufio.Scanner
	out   io.Writer
}

func newPipePair(t *testing.T) (*pipeTransport, *pipePeer) {
	t.Helper()
	return newPipePairWith(t, func(*pipeTransport) {})
}

// newPipePairWith lets set change the transport's fields before it starts.
func newPipePairWith(t *testing.T, set func(*pipeTransport)) (*pipeTransport, *pipePeer) {
	t.Helper()
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	p := newPipeTransport(toClientR, toServerW)
	set(p)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); toClientW.Close(); toServerR.Close(); p.Close() })
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return p, &pipePeer{lines: bufio.NewScanner(toServerR), out: toClientW}
}

func (s *pipePeer) next(t *testing.T) map[string]any {
	t.Helper()
	if !s.lines.Scan() {
		t.Fatal("the transport wrote nothing")
	}
	var m map[string]any
	if err := json.Unmarshal(s.lines.Bytes(), &m); err != nil {
		t.Fatalf("not JSON: %s", s.lines.Bytes())
	}
	return m
}

func (s *pipePeer) say(t *testing.T, line string) {
	t.Helper()
	if _, err := io.WriteString(s.out, line+"\n"); err != nil {
		t.Fatal(err)
	}
}

// Answers reach their own requests whatever their order, results stay
// byte for byte, errors come back as errors, and notifications and the
// server's own requests go to their handlers in between.
func TestPipeTransportRoutesEveryLine(t *testing.T) {
	p, srv := newPipePair(t)
	notes := make(chan mcp.JSONRPCNotification, 1)
	p.SetNotificationHandler(func(n mcp.JSONRPCNotification) { notes <- n })
	p.SetRequestHandler(func(_ context.Context, r transport.JSONRPCRequest) (*transport.JSONRPCResponse, error) {
		return &transport.JSONRPCResponse{JSONRPC: "2.0", ID: r.ID, Result: json.RawMessage(`{"roots":[]}`)}, nil
	})
	type answer struct {
		r   *transport.JSONRPCResponse
		err error
	}
	send := func(id any, params any) chan answer {
		ch := make(chan answer, 1)
		go func() {
			r, err := p.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: "tools/call", Params: params})
			ch <- answer{r, err}
		}()
		return ch
	}
	a := send("mcpr-1", map[string]any{"name": "echo"})
	if m := srv.next(t); m["id"] != "mcpr-1" || m["method"] != "tools/call" || m["params"].(map[string]any)["name"] != "echo" {
		t.Fatalf("request line %v", m)
	}
	b := send(int64(2), nil)
	if m := srv.next(t); m["id"] != float64(2) || m["params"] != nil {
		t.Fatalf("request line %v", m)
	}
	srv.say(t, `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"x","progress":1}}`)
	srv.say(t, `{"jsonrpc":"2.0","id":"s1","method":"roots/list"}`)
	srv.say(t, `{"jsonrpc":"2.0","id":2,"error":{"code":-32602,"message":"bad","data":{"k":1}}}`)
	srv.say(t, `{"jsonrpc":"2.0","id":"mcpr-1","result":{"content":[{"type":"text","text":"a \u003c b"}]}}`)
	if got := <-a; got.err != nil || string(got.r.Result) != `{"content":[{"type":"text","text":"a \u003c b"}]}` || got.r.ID.String() != "string:mcpr-1" {
		t.Errorf("answer 1: %+v %v", got.r, got.err)
	}
	if got := <-b; got.err != nil || got.r.Error == nil || got.r.Error.Code != -32602 || got.r.Error.Message != "bad" {
		t.Errorf("answer 2: %+v %v", got.r, got.err)
	}
	select {
	case n := <-notes:
		if n.Method != "notifications/progress" || n.Params.AdditionalFields["progressToken"] != "x" {
			t.Errorf("notification %+v", n)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no notification")
	}
	if m := srv.next(t); m["id"] != "s1" || m["result"] == nil {
		t.Errorf("answer to the server's request: %v", m)
	}
}

// A request whose context ends gives up; one in flight when the pipe ends
// fails instead of waiting forever.
func TestPipeTransportGivesUp(t *testing.T) {
	p, srv := newPipePair(t)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 1)
	go func() {
		_, err := p.SendRequest(ctx, transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("a"), Method: "x"})
		errs <- err
	}()
	srv.next(t)
	cancel()
	if err := <-errs; err != context.Canceled {
		t.Errorf("cancelled request: %v", err)
	}
	srv.say(t, `{"jsonrpc":"2.0","id":"a","result":{}}`) // too late: dropped
	go func() {
		_, err := p.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("b"), Method: "x"})
		errs <- err
	}()
	srv.next(t)
	srv.out.(io.Closer).Close()
	select {
	case err := <-errs:
		if err == nil || !strings.Contains(err.Error(), "closed") {
			t.Errorf("request when the pipe ended: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request waited past the end of the pipe")
	}
}

// Lines longer than the read buffer arrive whole, results stay intact when
// later lines reuse the buffer, raw JSON params go out compacted on one
// line, and ids encoding/json would escape still find their answers.
func TestPipeTransportLongLinesRawParamsAndOddIDs(t *testing.T) {
	p, srv := newPipePair(t)
	srv.lines.Buffer(make([]byte, 1<<20), 1<<20)
	send := func(id any, params any) chan *transport.JSONRPCResponse {
		ch := make(chan *transport.JSONRPCResponse, 1)
		go func() {
			r, err := p.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId(id), Method: "tools/call", Params: params})
			if err != nil {
				t.Error(err)
			}
			ch <- r
		}()
		return ch
	}
	a := send("mcpr-1", json.RawMessage("{\n  \"name\": \"echo\",\n  \"arguments\": {\"message\": \"line\\nbreak\"}\n}"))
	if m := srv.next(t); m["id"] != "mcpr-1" {
		t.Fatalf("request line %v", m)
	}
	if got := string(srv.lines.Bytes()); got != `{"jsonrpc":"2.0","id":"mcpr-1","method":"tools/call","params":{"name":"echo","arguments":{"message":"line\nbreak"}}}` {
		t.Errorf("raw params went out as %s", got)
	}
	long := strings.Repeat("x", 200<<10)
	srv.say(t, `{"jsonrpc":"2.0","id":"mcpr-1","result":{"content":[{"type":"text","text":"`+long+`"}]}}`)
	first := <-a
	want := `{"content":[{"type":"text","text":"` + long + `"}]}`
	if first == nil || string(first.Result) != want {
		t.Fatalf("long answer: %d bytes", len(first.Result))
	}
	for i, id := range []any{"a<b&c>", "é", int64(-7)} {
		ch := send(id, nil)
		m := srv.next(t)
		raw, _ := json.Marshal(m["id"])
		srv.say(t, `{"jsonrpc":"2.0","id":`+string(raw)+`,"result":{"n":`+strings.Repeat("1", i+1)+`}}`)
		if r := <-ch; r == nil || r.ID.String() != mcp.NewRequestId(id).String() || string(r.Result) != `{"n":`+strings.Repeat("1", i+1)+`}` {
			t.Errorf("id %v: answer %+v", id, r)
		}
	}
	if string(first.Result) != want {
		t.Error("a later line changed an earlier result")
	}
}

// A request the pipe cannot carry (the server's stdin gone: EPIPE, here
// io.ErrClosedPipe) or answer (its stdout ended) is a lost connection, so
// the client hears "server down", not a bad response, even before the
// process's exit is reaped. Found by make soak: under load the bare write
// error went out as -32003, which go-sdk clients read as their own
// connection closing.
func TestPipeTransportLostPipeIsConnectionLost(t *testing.T) {
	toServerR, toServerW := io.Pipe()
	toClientR, toClientW := io.Pipe()
	p := newPipeTransport(toClientR, toServerW)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() { cancel(); toClientW.Close(); p.Close() })
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	toServerR.Close() // the server stopped reading its stdin
	_, err := p.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("w"), Method: "tools/call"})
	if !errors.Is(err, ErrConnectionLost) || !strings.Contains(err.Error(), "tools/call: ") || !strings.Contains(err.Error(), io.ErrClosedPipe.Error()) {
		t.Errorf("write to a closed stdin: %v, want a lost connection naming the method and the pipe's error", err)
	}

	q, srv := newPipePair(t)
	errs := make(chan error, 1)
	go func() {
		_, err := q.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("r"), Method: "tools/list"})
		errs <- err
	}()
	srv.next(t)
	srv.out.(io.Closer).Close() // the server's stdout ended
	select {
	case err := <-errs:
		if !errors.Is(err, ErrConnectionLost) {
			t.Errorf("request when stdout ended: %v, want a lost connection", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a request waited past the end of the pipe")
	}
	_, err = q.SendRequest(context.Background(), transport.JSONRPCRequest{JSONRPC: "2.0", ID: mcp.NewRequestId("s"), Method: "ping"})
	if !errors.Is(err, ErrConnectionLost) {
		t.Errorf("request after the pipe ended: %v, want a lost connection", err)
	}
}
