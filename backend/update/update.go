// Package update asks the project's GitHub Releases whether a newer version
// than the running one exists (docs/install.md#updates). It only reads the
// latest release's metadata: it never downloads or runs anything; the user
// opens the release page in the browser with a click.
package update

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"golang.org/x/mod/semver"
)

// DefaultRepo is the project's repository (the Go module's path).
const DefaultRepo = "mcp-router/mcp-router"

// DefaultAPI is GitHub's REST API.
const DefaultAPI = "https://api.github.com"

// DefaultTimeout bounds one check, connection and answer included.
const DefaultTimeout = 10 * time.Second

// maxAnswer bounds the answer read: a release with long notes and many
// assets is tens of kilobytes.
const maxAnswer = 1 << 20

// maxNotes bounds the release notes returned to the UI.
const maxNotes = 4000

// Errors for errors.Is; each returned error says more.
var (
	ErrRateLimited = errors.New("GitHub's rate limit for update checks is used up")
	ErrOffline     = errors.New("cannot reach GitHub")
	ErrNoRelease   = errors.New("the project has no release yet")
	ErrBadAnswer   = errors.New("unexpected answer from GitHub")
)

// Checker checks one repository's releases. The zero value checks
// DefaultRepo on DefaultAPI with DefaultTimeout.
type Checker struct {
	Repo    string       // owner/name
	API     string       // base URL of the REST API
	Client  *http.Client // nil: a client with DefaultTimeout
	Current string       // the running version (core.Version)
}

// Result is one check.
type Result struct {
	Current string `json:"current"` // the running version, as built
	Latest  string `json:"latest"`  // the latest release's tag
	// Newer: the latest release is a higher version than the running one.
	// Never true for a build whose version cannot be compared (DevBuild
	// without a tag to start from).
	Newer bool `json:"newer"`
	// DevBuild: the running version is not a release (dev, a bare commit,
	// commits after a tag or uncommitted changes).
	DevBuild    bool   `json:"devBuild"`
	URL         string `json:"url"`   // the release page, on github.com
	Name        string `json:"name"`  // the release's title
	Notes       string `json:"notes"` // its notes (Markdown), cut to 4000 characters
	PublishedAt string `json:"publishedAt,omitempty"`
	CheckedAt   string `json:"checkedAt"` // RFC 3339
}

// release is the part of GitHub's release object read here.
type release struct {
	TagName     string `json:"tag_name"`
	Name        string `json:"name"`
	Body        string `json:"body"`
	Draft       bool   `json:"draft"`
	Prerelease  bool   `json:"prerelease"`
	PublishedAt string `json:"published_at"`
}

func (c *Checker) repo() string {
	if c.Repo == "" {
		return DefaultRepo
	}
	return c.Repo
}

// Check asks for the latest release (GET /repos/{repo}/releases/latest,
// which leaves out drafts and pre-releases) and compares it with Current.
func (c *Checker) Check(ctx context.Context) (Result, error) {
	base := c.API
	if base == "" {
		base = DefaultAPI
	}
	repo := c.repo()
	if !validRepo.MatchString(repo) {
		return Result{}, fmt.Errorf("update repository %q: want owner/name", repo)
	}
	client := c.Client
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/repos/"+repo+"/releases/latest", nil)
	if err != nil {
		return Result{}, err
	}
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "mcp-router/"+c.Current)
	resp, err := client.Do(req)
	if err != nil {
		return Result{}, offline(req.URL.Host, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return Result{}, offline(req.URL.Host, err)
	}
	if len(body) > maxAnswer {
		return Result{}, fmt.Errorf("%w: the answer is over %d bytes", ErrBadAnswer, maxAnswer)
	}
	switch {
	case resp.StatusCode == http.StatusOK:
	case resp.StatusCode == http.StatusNotFound:
		return Result{}, fmt.Errorf("%w: %s has no published release", ErrNoRelease, repo)
	case rateLimited(resp):
		return Result{}, rateLimitError(resp)
	default:
		return Result{}, fmt.Errorf("%w: %s%s", ErrBadAnswer, resp.Status, githubMessage(body))
	}
	var r release
	if err := json.Unmarshal(body, &r); err != nil {
		return Result{}, fmt.Errorf("%w: %v", ErrBadAnswer, err)
	}
	if r.TagName == "" {
		return Result{}, fmt.Errorf("%w: the release has no tag_name", ErrBadAnswer)
	}
	latest, ok := canonical(r.TagName)
	if !ok {
		return Result{}, fmt.Errorf("%w: the latest release's tag %q is not a version (vMAJOR.MINOR.PATCH)", ErrBadAnswer, r.TagName)
	}
	out := Result{
		Current: c.Current, Latest: r.TagName, URL: releasePage(repo, r.TagName), Name: r.Name,
		Notes: cut(r.Body, maxNotes), PublishedAt: r.PublishedAt,
		CheckedAt: time.Now().UTC().Format(time.RFC3339),
	}
	v := ParseVersion(c.Current)
	out.DevBuild = v.Dev
	if v.Base != "" {
		out.Newer = semver.Compare(latest, v.Base) > 0
	}
	return out, nil
}

var validRepo = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$`)

// Version is a running version as `git describe --tags --always` prints it.
type Version struct {
	// Base is the release tag it starts from, canonical ("v1.2.3"), or ""
	// when there is none (dev, a bare commit id).
	Base string
	// Dev: not exactly a release (no tag, commits after it, or -dirty).
	Dev bool
}

var describeSuffix = regexp.MustCompile(`-[0-9]+-g[0-9a-f]{4,40}$`)

// ParseVersion reads v1.2.3, v1.2.3-dirty, v1.2.3-4-gabc1234(-dirty),
// abc1234 (no tag), dev and "".
func ParseVersion(s string) Version {
	s = strings.TrimSpace(s)
	var v Version
	if t, ok := strings.CutSuffix(s, "-dirty"); ok {
		s, v.Dev = t, true
	}
	if loc := describeSuffix.FindStringIndex(s); loc != nil {
		s, v.Dev = s[:loc[0]], true
	}
	base, ok := canonical(s)
	if !ok {
		return Version{Dev: true}
	}
	v.Base = base
	return v
}

// canonical returns tag as a full semantic version with a leading v, if it
// is one: "1.2.3" → "v1.2.3". Short forms (v1, v1.2) are not releases here.
func canonical(tag string) (string, bool) {
	if !strings.HasPrefix(tag, "v") {
		tag = "v" + tag
	}
	if !semver.IsValid(tag) || semver.Canonical(tag) != strings.SplitN(tag, "+", 2)[0] {
		return "", false
	}
	return tag, true
}

// releasePage is the release's page on github.com, built from the
// repository and the tag (a valid version by now), never taken from the
// answer's html_url: the UI opens this URL in the browser, so an odd answer
// (javascript:, another site, a path climbing out with ..) is not passed on.
func releasePage(repo, tag string) string {
	return "https://github.com/" + repo + "/releases/tag/" + url.PathEscape(tag)
}

// rateLimited: GitHub answers 403 or 429 with x-ratelimit-remaining: 0 (or
// a retry-after) when the unauthenticated limit (60 an hour) is used up.
func rateLimited(resp *http.Response) bool {
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusTooManyRequests {
		return false
	}
	return resp.Header.Get("X-RateLimit-Remaining") == "0" || resp.Header.Get("Retry-After") != "" ||
		resp.StatusCode == http.StatusTooManyRequests
}

func rateLimitError(resp *http.Response) error {
	if reset, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Reset"), 10, 64); err == nil && reset > 0 {
		return fmt.Errorf("%w: try again after %s", ErrRateLimited, time.Unix(reset, 0).UTC().Format("15:04 UTC"))
	}
	if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil {
		return fmt.Errorf("%w: try again in %d seconds", ErrRateLimited, s)
	}
	return fmt.Errorf("%w: try again later", ErrRateLimited)
}

// githubMessage is ": <message>" of a GitHub error answer, or "".
func githubMessage(body []byte) string {
	var e struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(body, &e) != nil || e.Message == "" {
		return ""
	}
	return ": " + cut(e.Message, 200)
}

func offline(host string, err error) error {
	// url.Error repeats the method and the URL: the cause is enough.
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return fmt.Errorf("%w (%s did not answer within the time allowed): %v", ErrOffline, host, err)
	}
	return fmt.Errorf("%w (%s): %v", ErrOffline, host, err)
}

// cut returns s limited to n runes, marked when cut.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
