package gateway

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/pipeline"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/upstream"
	"github.com/mcp-router/mcp-router/internal/testmcp"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// A call to a tool of a server that is still starting waits for it instead
// of being told the tool does not exist; a name no server will bring is
// refused once the starts have ended; and with nothing starting an unknown
// name is refused at once.
func TestCallsWaitForServersStillStarting(t *testing.T) {
	quick := everything(t, "quick", spec.PrefixAlways)
	r := newRig(t, []spec.Server{quick}, rigOptions{})
	c := connect(t, r.url, clientOptions{})

	began := time.Now()
	if _, err := call(c, "nosuch__tool", nil); err == nil {
		t.Fatal("an unknown tool was called")
	}
	if took := time.Since(began); took > 2*time.Second {
		t.Fatalf("with no server starting, an unknown tool took %v to refuse", took)
	}

	slow := testmcp.Server("slow")
	slow.Env[testmcp.EnvDelay] = "2s"
	slow.Normalize()
	if err := r.ups.Sync([]spec.Server{quick, slow}); err != nil {
		t.Fatal(err)
	}
	testpeers.Eventually(t, 10*time.Second, "slow starting", func() bool {
		for _, st := range r.ups.Statuses() {
			if st.Name == "slow" && st.State == upstream.StateStarting {
				return true
			}
		}
		return false
	})

	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	overHTTP, inProcess, unknown := make(chan answer, 1), make(chan answer, 1), make(chan answer, 1)
	go func() {
		res, err := call(c, "slow__show", nil)
		overHTTP <- answer{res, err}
	}()
	go func() {
		ctx := pipeline.WithCaller(context.Background(), Caller{})
		res, err := r.gw.CallTool(ctx, "slow__show", nil)
		inProcess <- answer{res, err}
	}()
	go func() {
		res, err := call(c, "nosuch__tool", nil)
		unknown <- answer{res, err}
	}()
	for name, ch := range map[string]chan answer{"over HTTP": overHTTP, "in process": inProcess} {
		a := <-ch
		if a.err != nil || a.res.IsError {
			t.Fatalf("%s: the call to a starting server's tool failed: %v %+v", name, a.err, a.res)
		}
	}
	a := <-unknown
	if a.err == nil || !strings.Contains(a.err.Error(), "nosuch__tool' not found") {
		t.Fatalf("an unknown tool called while servers started: %v %+v", a.err, a.res)
	}
	if took := time.Since(began); took < time.Second {
		t.Fatalf("answers came after %v; the slow server takes 2 s to start", took)
	}
}

// A router that publishes its endpoint before loading its servers holds
// calls to unknown names until they are loaded, then answers them; and a
// server is "starting" as soon as Sync returns, before its supervisor runs.
func TestCallsWaitForServersNotYetLoaded(t *testing.T) {
	r := newRig(t, nil, rigOptions{})
	c := connect(t, r.url, clientOptions{})
	r.gw.HoldForServers()
	answered := make(chan error, 1)
	go func() {
		res, err := call(c, "late__echo", map[string]any{"message": "held"})
		if err == nil && (res.IsError || !strings.Contains(text(res), "held")) {
			err = fmt.Errorf("answered %+v", res)
		}
		answered <- err
	}()
	select {
	case err := <-answered:
		t.Fatalf("answered while the servers were not loaded: %v", err)
	case <-time.After(300 * time.Millisecond): // only a window for a wrong early answer
	}
	late := everything(t, "late", spec.PrefixAlways)
	if err := r.ups.Sync([]spec.Server{late}); err != nil {
		t.Fatal(err)
	}
	for _, st := range r.ups.Statuses() {
		if st.Name == "late" && st.State != upstream.StateStarting && st.State != upstream.StateRunning {
			t.Errorf("right after Sync late is %s, want starting", st.State)
		}
	}
	r.gw.ServersLoaded()
	if err := <-answered; err != nil {
		t.Fatalf("the held call: %v", err)
	}
}
