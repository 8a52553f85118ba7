package discovery

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"
)

// maxDoc bounds one document read while probing.
const maxDoc = 1 << 20

// Step is one thing Discover tried, and what came of it.
type Step struct {
	What   string `json:"what"` // "ai-catalog", "server-card", "well-known", "resource-metadata", "streamable-http", "sse"
	URL    string `json:"url"`
	OK     bool   `json:"ok"`
	Result string `json:"result"` // what was found, or why not
}

// Found is what Discover learned about the server behind a URL.
type Found struct {
	Input     string `json:"input"`
	Endpoint  string `json:"endpoint,omitempty"`  // the MCP endpoint to add; "" when none answered
	Transport string `json:"transport,omitempty"` // streamable-http or sse
	// NeedsAuth: the endpoint answered 401; AuthorizationServers and
	// ResourceMetadata say where to log in, when it said.
	NeedsAuth            bool     `json:"needsAuth,omitempty"`
	ResourceMetadata     string   `json:"resourceMetadata,omitempty"`
	AuthorizationServers []string `json:"authorizationServers,omitempty"`
	Name                 string   `json:"name,omitempty"` // from a card or the well-known document
	Title                string   `json:"title,omitempty"`
	Version              string   `json:"version,omitempty"`
	MCPVersion           string   `json:"mcpVersion,omitempty"`
	Steps                []Step   `json:"steps"`
}

// ErrNotFound is returned (wrapped) when no MCP endpoint answered.
var ErrNotFound = errors.New("no MCP endpoint found")

// Prober finds the endpoint behind a URL.
type Prober struct {
	Client *http.Client // default: 10 s timeout, at most 5 redirects
}

func (p *Prober) client() *http.Client {
	if p != nil && p.Client != nil {
		return p.Client
	}
	return &http.Client{Timeout: 10 * time.Second}
}

// Discover reads, in order, the AI catalog (/.well-known/ai-catalog.json)
// and the server cards it lists, the server card at <url>/server-card,
// /.well-known/mcp and /.well-known/mcp.json, and the protected-resource
// metadata (RFC 9728); then it tries an MCP initialize over streamable
// HTTP at each endpoint those named and at the URL itself (and <url>/mcp
// for a bare base URL), then the legacy SSE transport (the URL, <url>/sse).
// The first endpoint that answers, or answers 401, wins. Every step is in
// Found.Steps. The documents are only hints: nothing is trusted until an
// endpoint answers.
func (p *Prober) Discover(ctx context.Context, raw string) (Found, error) {
	f := Found{Input: raw}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
		return f, fmt.Errorf("%q is not an http(s) URL", raw)
	}
	u.Fragment, u.RawQuery = "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	u.RawPath = ""
	origin := u.Scheme + "://" + u.Host
	self := u.String()
	bare := u.Path == ""

	var streamable, sse []string // candidate endpoints, in order
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	useCard := func(c ServerCard, from string) {
		if f.Name == "" {
			f.Name, f.Title, f.Version = c.Name, c.Title, c.Version
		}
		for _, r := range c.Remotes {
			abs := resolve(from, r.URL)
			if strings.Contains(abs, "{") { // a templated URL needs user input
				continue
			}
			if r.Type == TransportSSE {
				add(&sse, abs)
			} else {
				add(&streamable, abs)
			}
		}
	}

	// 1. AI catalog.
	catURL := origin + PathAICatalog
	var cat Catalog
	step := p.getJSON(ctx, "ai-catalog", catURL, &cat)
	var cardSteps []Step
	if step.OK {
		n := 0
		for _, e := range cat.Entries {
			if e.Type != ServerCardType {
				continue
			}
			n++
			var c ServerCard
			if len(e.Data) > 0 {
				if json.Unmarshal(e.Data, &c) == nil {
					useCard(c, catURL)
				}
				continue
			}
			cardURL := resolve(catURL, e.URL)
			if cardURL == "" {
				continue
			}
			cs := p.getJSON(ctx, "server-card", cardURL, &c)
			if cs.OK {
				if err := c.Validate(); err != nil {
					cs.Result = "card with problems (" + err.Error() + "); using its remotes"
				} else {
					cs.Result = fmt.Sprintf("card %s, %d remote(s)", c.Name, len(c.Remotes))
				}
				useCard(c, cardURL)
			}
			cardSteps = append(cardSteps, cs)
		}
		step.Result = fmt.Sprintf("catalog with %d server card(s)", n)
	}
	f.Steps = append(append(f.Steps, step), cardSteps...)

	// 2. The server card next to the URL.
	cardURLs := []string{self + ServerCardSuffix}
	if bare {
		cardURLs = append(cardURLs, origin+"/mcp"+ServerCardSuffix)
	}
	for _, cu := range cardURLs {
		if slices.ContainsFunc(f.Steps, func(s Step) bool { return s.URL == cu }) {
			continue
		}
		var c ServerCard
		step := p.getJSON(ctx, "server-card", cu, &c)
		if step.OK {
			if c.Schema != ServerCardSchema && len(c.Remotes) == 0 {
				step.OK, step.Result = false, "not a server card"
			} else {
				step.Result = fmt.Sprintf("card %s, %d remote(s)", c.Name, len(c.Remotes))
				useCard(c, cu)
			}
		}
		f.Steps = append(f.Steps, step)
	}

	// 3. /.well-known/mcp, /.well-known/mcp.json: the seed's document, or
	// a server card (older drafts served one at mcp.json).
	for _, wu := range []string{origin + PathWellKnownMCP, origin + PathWellKnownMCPJSON} {
		var doc struct {
			WellKnownMCP
			Schema  string   `json:"$schema"`
			Remotes []Remote `json:"remotes"`
		}
		step := p.getJSON(ctx, "well-known", wu, &doc)
		if step.OK {
			switch {
			case doc.MCPVersion != "":
				if f.MCPVersion == "" {
					f.MCPVersion = doc.MCPVersion
				}
				if f.Name == "" {
					f.Name, f.Version = doc.Name, doc.Version
				}
				add(&streamable, resolve(wu, doc.Endpoint))
				for _, t := range doc.Transports {
					if t.Type == TransportSSE {
						add(&sse, resolve(wu, t.URL))
					} else {
						add(&streamable, resolve(wu, t.URL))
					}
				}
				if a := doc.Authentication; a != nil && a.ResourceMetadata != "" && f.ResourceMetadata == "" {
					f.ResourceMetadata = resolve(wu, a.ResourceMetadata)
				}
				step.Result = "mcpVersion " + doc.MCPVersion
				if doc.Authentication != nil {
					step.Result += ", authentication " + doc.Authentication.Type
				}
			case len(doc.Remotes) > 0:
				useCard(ServerCard{Schema: doc.Schema, Name: doc.Name, Version: doc.Version, Remotes: doc.Remotes}, wu)
				step.Result = fmt.Sprintf("server card, %d remote(s)", len(doc.Remotes))
			default:
				step.OK, step.Result = false, "neither an mcpVersion document nor a server card"
			}
		}
		f.Steps = append(f.Steps, step)
	}

	// 4. Protected-resource metadata: path-specific, then the bare one.
	prmURLs := []string{}
	if f.ResourceMetadata != "" {
		prmURLs = append(prmURLs, f.ResourceMetadata)
	}
	if !bare {
		prmURLs = append(prmURLs, origin+"/.well-known/oauth-protected-resource"+u.EscapedPath())
	}
	prmURLs = append(prmURLs, origin+"/.well-known/oauth-protected-resource")
	for _, pu := range dedupe(prmURLs) {
		if p.readPRM(ctx, &f, pu, &streamable) {
			break
		}
	}

	// 5. Try the transports.
	add(&streamable, self)
	if bare {
		add(&streamable, origin+"/mcp")
	}
	for _, ep := range streamable {
		step, ok, unauthorized, prm := p.tryStreamable(ctx, ep)
		f.Steps = append(f.Steps, step)
		if ok || unauthorized {
			f.Endpoint, f.Transport, f.NeedsAuth = ep, TransportStreamable, unauthorized
			if prm != "" && len(f.AuthorizationServers) == 0 {
				p.readPRM(ctx, &f, resolve(ep, prm), nil)
			}
			return f, nil
		}
	}
	add(&sse, self)
	if bare {
		add(&sse, origin+"/sse")
	}
	for _, ep := range sse {
		step, ok, unauthorized := p.trySSE(ctx, ep)
		f.Steps = append(f.Steps, step)
		if ok || unauthorized {
			f.Endpoint, f.Transport, f.NeedsAuth = ep, TransportSSE, unauthorized
			return f, nil
		}
	}
	return f, fmt.Errorf("%w at %s (%d attempts)", ErrNotFound, raw, len(f.Steps))
}

// readPRM reads protected-resource metadata at pu into f; its resource
// becomes a candidate endpoint when list is not nil.
func (p *Prober) readPRM(ctx context.Context, f *Found, pu string, list *[]string) bool {
	if slices.ContainsFunc(f.Steps, func(s Step) bool { return s.URL == pu }) {
		return false
	}
	var md struct {
		Resource             string   `json:"resource"`
		AuthorizationServers []string `json:"authorization_servers"`
	}
	step := p.getJSON(ctx, "resource-metadata", pu, &md)
	if step.OK && md.Resource == "" {
		step.OK, step.Result = false, "no resource member"
	}
	if step.OK {
		f.ResourceMetadata, f.AuthorizationServers = pu, md.AuthorizationServers
		step.Result = fmt.Sprintf("resource %s, authorization servers %s", md.Resource, strings.Join(md.AuthorizationServers, ", "))
		if list != nil {
			if r, err := url.Parse(md.Resource); err == nil && strings.Trim(r.Path, "/") != "" && (r.Scheme == "http" || r.Scheme == "https") {
				if !slices.Contains(*list, md.Resource) {
					*list = append(*list, md.Resource)
				}
			}
		}
	}
	f.Steps = append(f.Steps, step)
	return step.OK
}

// getJSON fetches a document into v.
func (p *Prober) getJSON(ctx context.Context, what, u string, v any) Step {
	step := Step{What: what, URL: u}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		step.Result = err.Error()
		return step
	}
	req.Header.Set("Accept", "application/json")
	resp, err := p.client().Do(req)
	if err != nil {
		step.Result = shortErr(err)
		return step
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		step.Result = "HTTP " + resp.Status
		return step
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxDoc+1))
	if err != nil {
		step.Result = shortErr(err)
		return step
	}
	if len(b) > maxDoc {
		step.Result = "document larger than 1 MiB"
		return step
	}
	if err := json.Unmarshal(b, v); err != nil {
		step.Result = "not JSON: " + shortErr(err)
		return step
	}
	step.OK, step.Result = true, "found"
	return step
}

// tryStreamable posts an initialize to u. ok: it answered as an MCP
// server; unauthorized: it answered 401 (prm is its resource_metadata).
func (p *Prober) tryStreamable(ctx context.Context, u string) (step Step, ok, unauthorized bool, prm string) {
	step = Step{What: TransportStreamable, URL: u}
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"mcp-router-discover","version":"1"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, strings.NewReader(body))
	if err != nil {
		step.Result = err.Error()
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2025-11-25")
	resp, err := p.client().Do(req)
	if err != nil {
		step.Result = shortErr(err)
		return
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		defer p.endSession(u, sid)
	}
	if resp.StatusCode == http.StatusUnauthorized {
		prm = challengeParam(resp.Header.Get("WWW-Authenticate"), "resource_metadata")
		step.OK, step.Result = true, "401: needs authorization"
		if prm != "" {
			step.Result += " (resource_metadata " + prm + ")"
		}
		return step, false, true, prm
	}
	if resp.StatusCode != http.StatusOK {
		step.Result = "HTTP " + resp.Status
		return
	}
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxDoc))
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b = firstSSEData(b)
	}
	var msg struct {
		Result *struct {
			ProtocolVersion string `json:"protocolVersion"`
			ServerInfo      struct {
				Name    string `json:"name"`
				Version string `json:"version"`
			} `json:"serverInfo"`
		} `json:"result"`
	}
	if json.Unmarshal(b, &msg) != nil || msg.Result == nil || msg.Result.ProtocolVersion == "" {
		step.Result = "answered, but not an MCP initialize result"
		return
	}
	step.OK = true
	step.Result = fmt.Sprintf("MCP server %s %s, protocol %s", msg.Result.ServerInfo.Name, msg.Result.ServerInfo.Version, msg.Result.ProtocolVersion)
	return step, true, false, ""
}

// endSession closes the session the probe's initialize opened.
func (p *Prober) endSession(u, sid string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodDelete, u, nil)
	if err != nil {
		return
	}
	req.Header.Set("Mcp-Session-Id", sid)
	if resp, err := p.client().Do(req); err == nil {
		resp.Body.Close()
	}
}

// trySSE opens the legacy SSE stream at u and waits for its endpoint event.
func (p *Prober) trySSE(ctx context.Context, u string) (step Step, ok, unauthorized bool) {
	step = Step{What: TransportSSE, URL: u}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		step.Result = err.Error()
		return
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := p.client().Do(req)
	if err != nil {
		step.Result = shortErr(err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusUnauthorized {
		step.OK, step.Result = true, "401: needs authorization"
		return step, false, true
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		step.Result = fmt.Sprintf("HTTP %s, %s", resp.Status, resp.Header.Get("Content-Type"))
		return
	}
	sc := bufio.NewScanner(io.LimitReader(resp.Body, 64<<10))
	event := ""
	for sc.Scan() {
		line := sc.Text()
		if e, found := strings.CutPrefix(line, "event:"); found {
			event = strings.TrimSpace(e)
		}
		if d, found := strings.CutPrefix(line, "data:"); found && event == "endpoint" {
			step.OK, step.Result = true, "legacy SSE, messages to "+strings.TrimSpace(d)
			return step, true, false
		}
	}
	step.Result = "event stream without an endpoint event"
	return
}

func firstSSEData(b []byte) []byte {
	for _, line := range bytes.Split(b, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data:")); ok {
			return bytes.TrimSpace(d)
		}
	}
	return nil
}

// challengeParam returns a parameter of a WWW-Authenticate value.
func challengeParam(h, name string) string {
	i := strings.Index(h, name+`="`)
	if i < 0 {
		return ""
	}
	rest := h[i+len(name)+2:]
	if j := strings.IndexByte(rest, '"'); j >= 0 {
		return rest[:j]
	}
	return ""
}

// resolve makes ref absolute against base; "" stays "".
func resolve(base, ref string) string {
	if ref == "" {
		return ""
	}
	b, err := url.Parse(base)
	if err != nil {
		return ref
	}
	r, err := url.Parse(ref)
	if err != nil {
		return ""
	}
	out := b.ResolveReference(r)
	if out.Scheme != "http" && out.Scheme != "https" {
		return ""
	}
	return out.String()
}

func dedupe(in []string) []string {
	var out []string
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

func shortErr(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
