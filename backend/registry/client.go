package registry

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// Caps of what the client sends and accepts (docs/limits.md, "MCP
// Registry"). The answer size is a setting (Options.MaxBytes); the rest are
// the API's own bounds.
const (
	// MaxLimit is the largest page the v0 API serves (openapi: limit
	// maximum 100); a larger limit is refused before asking.
	MaxLimit = 100
	// DefaultLimit is the page size when none is asked for.
	DefaultLimit = 30
	// MaxCursorLen bounds a cursor given back to the registry.
	MaxCursorLen = 1024
	// MaxQueryLen bounds a search string.
	MaxQueryLen = 200
	// MinQueryLen: the v0 API wants at least 3 characters in a search.
	MinQueryLen = 3
	// DefaultMaxBytes caps one answer when Options.MaxBytes is 0.
	DefaultMaxBytes = 4 << 20
	// DefaultTimeout bounds one request when Options.HTTP is nil.
	DefaultTimeout = 30 * time.Second
	// maxErrorBody is how much of an error answer is quoted.
	maxErrorBody = 512
)

// Sentinel errors, for errors.Is.
var (
	// ErrNotFound: the registry has no such server (or version).
	ErrNotFound = errors.New("not found in the registry")
	// ErrBadAnswer: the registry's answer broke the contract (malformed,
	// too large, a name or version outside the schema).
	ErrBadAnswer = errors.New("bad answer from the registry")
	// ErrBadInput: a name, version, cursor or limit the caller gave is
	// outside what the API takes.
	ErrBadInput = errors.New("bad registry request")
)

// Options configure a Client.
type Options struct {
	// BaseURL is the registry's base (the registryURL setting), without
	// /v0.
	BaseURL string
	// MaxBytes caps one answer (the registryMaxKB setting); 0:
	// DefaultMaxBytes.
	MaxBytes int64
	// HTTP sends the requests; nil: a client with DefaultTimeout.
	HTTP *http.Client
}

// Client asks one registry.
type Client struct {
	base     *url.URL
	maxBytes int64
	http     *http.Client
}

// New checks o and returns a client.
func New(o Options) (*Client, error) {
	base := strings.TrimRight(strings.TrimSpace(o.BaseURL), "/")
	if err := spec.ValidateURL(base); err != nil {
		return nil, fmt.Errorf("%w: registry URL: %v (the registryURL setting)", ErrBadInput, err)
	}
	u, err := url.Parse(base)
	if err != nil {
		return nil, fmt.Errorf("%w: registry URL %q: %v", ErrBadInput, base, err)
	}
	c := &Client{base: u, maxBytes: o.MaxBytes, http: o.HTTP}
	if c.maxBytes <= 0 {
		c.maxBytes = DefaultMaxBytes
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: DefaultTimeout}
	}
	return c, nil
}

// BaseURL is the registry's base URL as recorded in a server's Source.
func (c *Client) BaseURL() string { return c.base.String() }

// Search lists the latest version of the servers whose name contains
// query ("" lists all), one page of at most limit entries (0:
// DefaultLimit) from cursor ("" for the first page).
func (c *Client) Search(ctx context.Context, query, cursor string, limit int) (Page, error) {
	query = strings.TrimSpace(query)
	switch {
	case query != "" && utf8.RuneCountInString(query) < MinQueryLen:
		return Page{}, fmt.Errorf("%w: a search needs at least %d characters", ErrBadInput, MinQueryLen)
	case len(query) > MaxQueryLen:
		return Page{}, fmt.Errorf("%w: a search is at most %d bytes", ErrBadInput, MaxQueryLen)
	case len(cursor) > MaxCursorLen:
		return Page{}, fmt.Errorf("%w: the cursor is longer than %d bytes", ErrBadInput, MaxCursorLen)
	case limit < 0 || limit > MaxLimit:
		return Page{}, fmt.Errorf("%w: limit %d is outside 1-%d (the registry's page cap)", ErrBadInput, limit, MaxLimit)
	}
	if limit == 0 {
		limit = DefaultLimit
	}
	q := url.Values{"version": {"latest"}, "limit": {strconv.Itoa(limit)}}
	if query != "" {
		q.Set("search", query)
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var page Page
	if err := c.get(ctx, "/v0/servers", q, &page); err != nil {
		return Page{}, err
	}
	if len(page.Servers) > limit {
		return Page{}, fmt.Errorf("%w: %d servers in a page of at most %d", ErrBadAnswer, len(page.Servers), limit)
	}
	if len(page.Metadata.NextCursor) > MaxCursorLen {
		return Page{}, fmt.Errorf("%w: the next cursor is longer than %d bytes", ErrBadAnswer, MaxCursorLen)
	}
	for i, e := range page.Servers {
		if err := checkEntry(e.Server); err != nil {
			return Page{}, fmt.Errorf("%w: server %d of the page: %v", ErrBadAnswer, i+1, err)
		}
	}
	return page, nil
}

// Get is one version of one server; version "" is the latest.
func (c *Client) Get(ctx context.Context, name, version string) (Entry, error) {
	if !spec.ValidRegistryName(name) {
		return Entry{}, fmt.Errorf("%w: %q is not a registry server name (namespace/name, letters, digits, '.', '-', '_')", ErrBadInput, name)
	}
	if version == "" {
		version = "latest"
	}
	if !spec.ValidRegistryVersion(version) {
		return Entry{}, fmt.Errorf("%w: %q is not a version", ErrBadInput, version)
	}
	var e Entry
	path := "/v0/servers/" + url.PathEscape(name) + "/versions/" + url.PathEscape(version)
	if err := c.get(ctx, path, nil, &e); err != nil {
		if errors.Is(err, ErrNotFound) {
			return Entry{}, fmt.Errorf("%s@%s: %w (%s)", name, version, ErrNotFound, c.base)
		}
		return Entry{}, err
	}
	if err := checkEntry(e.Server); err != nil {
		return Entry{}, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if e.Server.Name != name {
		return Entry{}, fmt.Errorf("%w: asked for %s, got %q", ErrBadAnswer, name, e.Server.Name)
	}
	if version != "latest" && e.Server.Version != version {
		return Entry{}, fmt.Errorf("%w: asked for %s@%s, got version %q", ErrBadAnswer, name, version, e.Server.Version)
	}
	return e, nil
}

// get reads one JSON answer within the size cap into out.
func (c *Client) get(ctx context.Context, path string, q url.Values, out any) error {
	// path is escaped already (a name's '/' is %2F); url.Parse keeps that.
	raw := strings.TrimRight(c.base.String(), "/") + path
	if q != nil {
		raw += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, raw, nil)
	if err != nil {
		return fmt.Errorf("registry request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("registry %s: %w", c.base, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, c.maxBytes+1))
	if err != nil {
		return fmt.Errorf("registry %s: read the answer: %w", c.base, err)
	}
	if int64(len(body)) > c.maxBytes {
		return fmt.Errorf("%w: the answer to GET %s is larger than %d KB (the registryMaxKB setting; raise it with `mcp-router settings set registryMaxKB N`)",
			ErrBadAnswer, path, c.maxBytes>>10)
	}
	switch {
	case resp.StatusCode == http.StatusNotFound:
		return ErrNotFound
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("registry %s: GET %s: HTTP %d: %s", c.base, path, resp.StatusCode, problemDetail(body))
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(out); err != nil {
		return fmt.Errorf("%w: GET %s: not the v0 API's JSON: %v", ErrBadAnswer, path, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: GET %s: more than one JSON value", ErrBadAnswer, path)
	}
	return nil
}

// problemDetail quotes an error answer briefly: its RFC 9457 detail when it
// has one, else its first bytes.
func problemDetail(body []byte) string {
	var p struct {
		Title  string `json:"title"`
		Detail string `json:"detail"`
	}
	if json.Unmarshal(body, &p) == nil && (p.Detail != "" || p.Title != "") {
		if p.Detail != "" {
			return clip(p.Detail)
		}
		return clip(p.Title)
	}
	return clip(string(body))
}

func clip(s string) string {
	s = strings.ToValidUTF8(strings.TrimSpace(s), "?")
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return ' '
		}
		return r
	}, s)
	if len(s) > maxErrorBody {
		s = s[:maxErrorBody] + "…"
	}
	return s
}
