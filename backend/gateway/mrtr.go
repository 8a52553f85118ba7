package gateway

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// Multi-round-trip requests (MRTR, SEP-2322) for a 2026-07-28 client whose
// upstream speaks 2025-11-25. Such an upstream asks its client mid-call
// (elicitation/create, sampling/createMessage, roots/list) and waits; a
// stateless client has no stream to receive that on. So the router holds
// the upstream call: the client's request is answered with an
// input_required result carrying the upstream's requests and a signed
// requestState naming the held call, and the client's retry (inputResponses
// plus that requestState) hands the answers to the waiting upstream, whose
// next question or final result answers the retry. An upstream that itself
// returns inputRequests (a 2026-07-28 server, or a 2025 one that asks
// again after its own bridging) is passed on with its requestState wrapped
// in the router's, and the retry re-runs the call with the client's answers
// and the upstream's own state.

// Bounds of held calls. Constants, documented in docs/limits.md.
const (
	// mrtrHeldWait is how long a held upstream call waits for the client's
	// retry after the router answered input_required; then it is cancelled.
	mrtrHeldWait = 60 * time.Second
	// mrtrHeldPerCredential and mrtrHeldTotal cap the held calls of one
	// credential and of all together; past either, the call is cancelled
	// and the client gets an error naming the cap.
	mrtrHeldPerCredential = 16
	mrtrHeldTotal         = 256
	// mrtrGather is how long the router waits after an upstream's
	// question for others it asks at the same time (the go-sdk asks every
	// input of a round concurrently), so that one input_required result
	// carries them all; the window restarts while more come, 10 times at
	// most.
	mrtrGather = 50 * time.Millisecond
)

// mrtrState is what a requestState the router gives out says, signed.
type mrtrState struct {
	Held     string `json:"h,omitempty"` // id of a held call
	Upstream string `json:"u,omitempty"` // the upstream's own requestState
	Relayed  bool   `json:"r,omitempty"` // the upstream returned inputRequests itself
	Owner    string `json:"o"`           // credential the state was given to
	Server   string `json:"s"`
	Item     string `json:"i"`
	Method   string `json:"m"`
	// Replica holds the held call (a cluster's replica name; "" on a
	// single router): a retry landing elsewhere is forwarded there
	// (clusterfront.go).
	Replica string `json:"p,omitempty"`
}

// errTamperedState refuses a requestState that fails verification.
var errTamperedState = mrtrError(pipeline.ReasonRequestState, mcp.INVALID_PARAMS,
	"invalid requestState: it fails the router's integrity check (tampered, or from another router process)", nil)

// errNothingToAsk: a held call's questions were all withdrawn before the
// input_required answer was made; awaitHeld waits on.
var errNothingToAsk = errors.New("no question left to ask")

// mrtrError is the router's own error about a multi-round-trip request.
func mrtrError(reason string, code int, what string, extra map[string]any) *pipeline.RouteError {
	return &pipeline.RouteError{Server: pipeline.RouterServer, What: what, Reason: reason, Code: code, Extra: extra}
}

// heldCalls are the upstream calls waiting for a stateless client's retry.
type heldCalls struct {
	key     []byte // HMAC key: the cluster's (the same on every replica), else random per process
	replica string // the cluster's name of this replica, put in held calls' states
	// The bounds (the mrtrHeld constants; tests shrink them).
	wait                 time.Duration
	perCredential, total int

	mu      sync.Mutex
	m       map[string]*heldCall
	byOwner map[string]int
	seq     uint64
}

func newHeldCalls(c *cluster.Cluster) *heldCalls {
	key := make([]byte, 32)
	if c != nil {
		// A retry may land on any replica: each must verify the state.
		key = c.MRTRKey()
	} else if _, err := rand.Read(key); err != nil {
		panic(fmt.Errorf("mrtr: reading a random key: %w", err))
	}
	replica := ""
	if c != nil {
		replica = c.Replica()
	}
	return &heldCalls{key: key, replica: replica, m: map[string]*heldCall{}, byOwner: map[string]int{},
		wait: mrtrHeldWait, perCredential: mrtrHeldPerCredential, total: mrtrHeldTotal}
}

func (h *heldCalls) sign(st mrtrState) string {
	body, _ := json.Marshal(st)
	mac := hmac.New(sha256.New, h.key)
	mac.Write(body)
	return base64.RawURLEncoding.EncodeToString(body) + "." + base64.RawURLEncoding.EncodeToString(mac.Sum(nil))
}

func (h *heldCalls) verify(s string) (mrtrState, error) {
	var st mrtrState
	i := len(s) - 1
	for i >= 0 && s[i] != '.' {
		i--
	}
	// The decoder skips '\r' and '\n': without this check a state with
	// one inserted would pass as a second spelling of a signed one.
	if i < 0 || strings.ContainsAny(s, "\r\n") {
		return st, errTamperedState
	}
	// Strict: only the one spelling the router signed passes, not the
	// variants that differ in the last character's spare bits.
	body, err1 := base64.RawURLEncoding.Strict().DecodeString(s[:i])
	sum, err2 := base64.RawURLEncoding.Strict().DecodeString(s[i+1:])
	if err1 != nil || err2 != nil {
		return st, errTamperedState
	}
	mac := hmac.New(sha256.New, h.key)
	mac.Write(body)
	if !hmac.Equal(sum, mac.Sum(nil)) || json.Unmarshal(body, &st) != nil {
		return st, errTamperedState
	}
	return st, nil
}

// heldCall is one upstream call run for a stateless client, held while it
// waits for the client's answers.
type heldCall struct {
	id, owner string
	cancel    context.CancelFunc
	wake      chan struct{} // a question arrived or the call ended (cap 1)

	mu       sync.Mutex
	seq      int
	pending  map[string]*heldAsk // questions awaiting the client's answer, by key
	done     bool
	res      pipeline.Result
	err      error
	busy     bool // a retry is being served
	expired  bool
	timer    *time.Timer
	finished chan struct{}
}

type heldAsk struct {
	method string
	params any
	answer chan json.RawMessage // cap 1
	// until: the asker waits for the answer until then (the router's own
	// approval question, bounded by the approval timeout), so the call is
	// held that long and mrtrHeldWait past it; zero for an upstream's
	// question, held mrtrHeldWait.
	until time.Time
}

func newHeldCall(cancel context.CancelFunc, owner string) *heldCall {
	return &heldCall{owner: owner, cancel: cancel, wake: make(chan struct{}, 1),
		pending: map[string]*heldAsk{}, finished: make(chan struct{})}
}

func (c *heldCall) signal() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// parked reports whether c waits for the client's retry: its questions
// went out in an input_required result and no retry has resumed it.
func (c *heldCall) parked() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.id != "" && !c.busy && !c.done
}

// finish records the call's outcome; the first one counts.
func (c *heldCall) finish(res pipeline.Result, err error) {
	c.mu.Lock()
	if !c.done {
		c.done, c.res, c.err = true, res, err
		close(c.finished)
	}
	c.mu.Unlock()
	c.signal()
}

// ask is the upstream's question, put to the client in the next
// input_required result; it waits for the client's answer (raw JSON), the
// upstream giving up (ctx) or the call being cancelled (held too long).
func (c *heldCall) ask(ctx context.Context, method string, params any) (json.RawMessage, error) {
	return c.askUntil(ctx, method, params, time.Time{})
}

// askUntil is ask for a question its asker waits for until the given time
// (zero: no such bound; see heldAsk.until). A question whose asker stops
// waiting is withdrawn: a retry does not get it again, and an answer to
// it is ignored.
func (c *heldCall) askUntil(ctx context.Context, method string, params any, until time.Time) (json.RawMessage, error) {
	a := &heldAsk{method: method, params: params, answer: make(chan json.RawMessage, 1), until: until}
	c.mu.Lock()
	if c.done {
		c.mu.Unlock()
		return nil, errCallEnded
	}
	c.seq++
	key := inputKey(method) + "_" + strconv.Itoa(c.seq)
	c.pending[key] = a
	c.mu.Unlock()
	c.signal()
	select {
	case raw := <-a.answer:
		return raw, nil
	case <-ctx.Done():
		c.withdraw(key, a)
		return nil, ctx.Err()
	case <-c.finished:
		return nil, errCallEnded
	}
}

// withdraw takes a question nobody waits for any more out of the open ones.
func (c *heldCall) withdraw(key string, a *heldAsk) {
	c.mu.Lock()
	if c.pending[key] == a {
		delete(c.pending, key)
	}
	c.mu.Unlock()
}

func inputKey(method string) string {
	switch method {
	case string(mcp.MethodElicitationCreate):
		return "elicitation"
	case string(mcp.MethodSamplingCreateMessage):
		return "sampling"
	case string(mcp.MethodListRoots):
		return "roots"
	}
	return "input"
}

// deliver hands the client's answers to the questions they answer; an
// answer to no waiting question is ignored (the retry is then answered
// with the questions still open).
func (c *heldCall) deliver(responses mcp.InputResponses) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for key, resp := range responses {
		a, ok := c.pending[key]
		if !ok {
			continue
		}
		raw, err := json.Marshal(resp)
		if err != nil {
			continue
		}
		delete(c.pending, key)
		a.answer <- raw
	}
}

// serveModern serves a 2026-07-28 client's tools/call or prompts/get
// (run sends it through the chain): the upstream call's result, or the
// input_required result its questions become.
func (g *Gateway) serveModern(ctx context.Context, r *pipeline.Request, mp mcp.MultiRoundTripParams,
	run func(context.Context) (pipeline.Result, error)) (pipeline.Result, *mcp.MultiRoundTripResult, error) {
	owner := g.sessions.credential(ctx)
	if mp.RequestState != "" {
		st, err := g.held.verify(mp.RequestState)
		if err != nil {
			return pipeline.Result{}, nil, err
		}
		if st.Owner != owner || st.Server != r.Server || st.Item != r.Item || st.Method != r.Method {
			return pipeline.Result{}, nil, mrtrError(pipeline.ReasonRequestState, mcp.INVALID_PARAMS,
				"invalid requestState: it was given for another request or caller", nil)
		}
		if st.Held != "" {
			return g.resumeHeld(ctx, r, st, mp.InputResponses)
		}
		r.RequestState = st.Upstream
	}
	if len(mp.InputResponses) > 0 {
		raw, err := json.Marshal(mp.InputResponses)
		if err != nil {
			return pipeline.Result{}, nil, fmt.Errorf("encoding inputResponses: %w", err)
		}
		r.InputResponses = raw
	}
	callCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	c := newHeldCall(cancel, owner)
	go func() {
		res, err := run(withHeldCall(callCtx, c))
		c.finish(res, err)
		cancel()
	}()
	return g.awaitHeld(ctx, r, c)
}

// resumeHeld hands a retry's answers to the held call its state names and
// waits for what the upstream does next.
func (g *Gateway) resumeHeld(ctx context.Context, r *pipeline.Request, st mrtrState, responses mcp.InputResponses) (pipeline.Result, *mcp.MultiRoundTripResult, error) {
	g.held.mu.Lock()
	c := g.held.m[st.Held]
	g.held.mu.Unlock()
	if c == nil {
		return pipeline.Result{}, nil, mrtrError(pipeline.ReasonRequestState, mcp.INVALID_PARAMS, fmt.Sprintf(
			"the upstream call this requestState resumes is no longer waiting: it ended, or it was cancelled %s after the last input_required answer without a retry (mrtrHeldWait, a constant; docs/limits.md); call again without requestState",
			g.held.wait), nil)
	}
	c.mu.Lock()
	if c.busy || c.expired {
		c.mu.Unlock()
		return pipeline.Result{}, nil, mrtrError(pipeline.ReasonRequestState, mcp.INVALID_PARAMS,
			"the upstream call this requestState resumes is being resumed by another retry", nil)
	}
	c.busy = true
	c.timer.Stop()
	c.mu.Unlock()
	c.deliver(responses)
	return g.awaitHeld(ctx, r, c)
}

// awaitHeld waits for c's outcome: its result (the call leaves the held
// set) or its open questions (the call is held, bounded by mrtrHeldWait,
// and the client gets them in an input_required result).
func (g *Gateway) awaitHeld(ctx context.Context, r *pipeline.Request, c *heldCall) (pipeline.Result, *mcp.MultiRoundTripResult, error) {
	for {
		c.mu.Lock()
		done, open := c.done, len(c.pending)
		c.mu.Unlock()
		if done {
			g.release(c)
			return c.res, nil, c.err
		}
		if open > 0 {
			// The upstream may ask several things at once: gather them
			// while more keep coming (a few windows at most).
			for range 10 {
				select {
				case <-time.After(mrtrGather):
				case <-c.finished:
				}
				c.mu.Lock()
				more := len(c.pending) > open && !c.done
				open = len(c.pending)
				c.mu.Unlock()
				if !more {
					break
				}
			}
			c.mu.Lock()
			done, open = c.done, len(c.pending)
			c.mu.Unlock()
			if done || open == 0 {
				continue // ended, or its questions were withdrawn meanwhile
			}
			res, ask, err := g.holdAndAsk(r, c)
			if errors.Is(err, errNothingToAsk) {
				continue
			}
			return res, ask, err
		}
		select {
		case <-c.wake:
		case <-ctx.Done():
			// The client went away. Before any requestState went out
			// (its questions, if any, were withdrawn before they were
			// sent) nobody will retry; else the retry may still come.
			c.mu.Lock()
			held := c.timer != nil
			c.busy = false
			if held {
				c.timer.Reset(g.held.wait)
			}
			c.mu.Unlock()
			if !held {
				c.cancel()
				g.release(c)
			}
			return pipeline.Result{}, nil, ctx.Err()
		}
	}
}

// holdAndAsk puts c in the held set (within its caps) and answers the
// client with c's open questions.
func (g *Gateway) holdAndAsk(r *pipeline.Request, c *heldCall) (pipeline.Result, *mcp.MultiRoundTripResult, error) {
	h := g.held
	h.mu.Lock()
	c.mu.Lock()
	fresh := c.id == ""
	c.mu.Unlock()
	if fresh {
		if len(h.m) >= h.total || h.byOwner[c.owner] >= h.perCredential {
			cap, n := "mrtrHeldTotal (all credentials)", h.total
			if h.byOwner[c.owner] >= h.perCredential {
				cap, n = "mrtrHeldPerCredential", h.perCredential
			}
			h.mu.Unlock()
			c.cancel()
			return pipeline.Result{}, nil, mrtrError(pipeline.ReasonHeldLimit, mcp.INTERNAL_ERROR, fmt.Sprintf(
				"the upstream asks for input, but the router already holds %d calls waiting for retries (%s, a constant; docs/limits.md): the call is cancelled; retry once other calls have finished",
				n, cap), map[string]any{"limit": n})
		}
		h.seq++
		newID := strconv.FormatUint(h.seq, 10)
		c.mu.Lock()
		c.id = newID
		c.mu.Unlock()
		h.m[newID] = c
		h.byOwner[c.owner]++
	}
	h.mu.Unlock()

	c.mu.Lock()
	if len(c.pending) == 0 {
		// Withdrawn since awaitHeld looked (the UI decided an approval).
		c.mu.Unlock()
		return pipeline.Result{}, nil, errNothingToAsk
	}
	id := c.id
	reqs := make(mcp.InputRequests, len(c.pending))
	var encErr error
	for key, a := range c.pending {
		ir, err := inputRequest(a.method, a.params)
		if err != nil {
			encErr = err
			break
		}
		reqs[key] = ir
	}
	c.busy = false
	wait := h.wait
	for _, a := range c.pending {
		if !a.until.IsZero() {
			wait = max(wait, time.Until(a.until)+h.wait)
		}
	}
	if c.timer == nil {
		c.timer = time.AfterFunc(wait, func() { g.expire(c) })
	} else {
		c.timer.Reset(wait)
	}
	c.mu.Unlock()
	if encErr != nil {
		g.expire(c)
		return pipeline.Result{}, nil, fmt.Errorf("the upstream's input request: %w", encErr)
	}
	state := h.sign(mrtrState{Held: id, Owner: c.owner, Server: r.Server, Item: r.Item, Method: r.Method, Replica: h.replica})
	return pipeline.Result{}, &mcp.MultiRoundTripResult{InputRequests: reqs, RequestState: state}, nil
}

// expire cancels a held call the client did not come back for.
func (g *Gateway) expire(c *heldCall) {
	c.mu.Lock()
	if c.busy {
		c.mu.Unlock()
		return
	}
	c.expired = true
	c.mu.Unlock()
	c.cancel()
	g.release(c)
}

// release takes c out of the held set.
func (g *Gateway) release(c *heldCall) {
	h := g.held
	c.mu.Lock()
	id := c.id
	c.mu.Unlock()
	h.mu.Lock()
	if id != "" && h.m[id] == c {
		delete(h.m, id)
		if h.byOwner[c.owner]--; h.byOwner[c.owner] <= 0 {
			delete(h.byOwner, c.owner)
		}
	}
	h.mu.Unlock()
	c.mu.Lock()
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
}

// inputRequest is an upstream's request as an entry of inputRequests.
func inputRequest(method string, params any) (mcp.InputRequest, error) {
	b, err := json.Marshal(struct {
		Method string `json:"method"`
		Params any    `json:"params"`
	}{method, params})
	if err != nil {
		return mcp.InputRequest{}, err
	}
	var ir mcp.InputRequest
	if err := json.Unmarshal(b, &ir); err != nil {
		return mcp.InputRequest{}, err
	}
	return ir, nil
}

// relayState wraps the requestState of an upstream's own input_required
// result in the router's, so that the retry comes back to the same
// upstream item from the same caller, untampered.
func (g *Gateway) relayState(ctx context.Context, r *pipeline.Request, upstreamState string) string {
	return g.held.sign(mrtrState{Upstream: upstreamState, Relayed: true, Owner: g.sessions.credential(ctx),
		Server: r.Server, Item: r.Item, Method: r.Method})
}

type heldCallKey struct{}

func withHeldCall(ctx context.Context, c *heldCall) context.Context {
	return context.WithValue(ctx, heldCallKey{}, c)
}

func heldCallFrom(ctx context.Context) *heldCall {
	c, _ := ctx.Value(heldCallKey{}).(*heldCall)
	return c
}

// missingCapability is the -32021 error of a request whose upstream asks
// for something the client did not declare.
func missingCapability(what string) *pipeline.RouteError {
	return mrtrError(pipeline.ReasonMissingCapability, mcp.MISSING_REQUIRED_CLIENT_CAPABILITY,
		fmt.Sprintf("the upstream asks the client for %s, which the client did not declare in its capabilities", what),
		map[string]any{"requiredCapabilities": map[string]any{what: map[string]any{}}})
}
