package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/store"
)

// followInterval is how often `logs --follow` polls the database.
const followInterval = 500 * time.Millisecond

// followPage bounds one query while catching up.
const followPage = 500

// followMaxFailures consecutive failed polls end --follow with the error.
const followMaxFailures = 10

type logsFlags struct {
	follow, asJSON         bool
	server, method, status string
	since                  string
	limit                  int
}

func (e *env) logsCommand() *cobra.Command {
	var f logsFlags
	cmd := &cobra.Command{
		Use:   "logs",
		Short: "Show the request log; --follow keeps printing new requests",
		Long: "Show the most recent requests that went through the router, oldest first.\n" +
			"--json prints one JSON object per line (the format is documented in docs/logs.md).\n" +
			"--follow keeps watching the database, also while the app is writing to it, until Ctrl-C.",
		Example: "  mcp-router logs --limit 20\n" +
			"  mcp-router logs --follow --status error\n" +
			"  mcp-router logs --json --server filesystem --since 1h",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			filter, err := f.filter(time.Now())
			if err != nil {
				return err
			}
			return e.withStore(func(st *store.Store) error {
				p := newLogPrinter(cmd.OutOrStdout(), f.asJSON, f.follow)
				return showLogs(cmd.Context(), st.Logs(), filter, f.limit, f.follow, p)
			})
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&f.follow, "follow", "f", false, "keep printing new entries until interrupted")
	fl.BoolVar(&f.asJSON, "json", false, "print one JSON object per line (JSONL), with request and response bodies")
	fl.StringVar(&f.server, "server", "", "only requests routed to this server")
	fl.StringVar(&f.method, "method", "", "only this MCP method, e.g. tools/call")
	fl.StringVar(&f.status, "status", "", "only this status: ok, error or blocked")
	fl.StringVar(&f.since, "since", "", "only requests newer than this, e.g. 30s, 15m, 2h, 7d")
	fl.IntVar(&f.limit, "limit", 50, "how many recent entries to print first (0: none, handy with --follow)")
	return cmd
}

// filter checks the flags and builds the query; now anchors --since.
func (f logsFlags) filter(now time.Time) (store.LogFilter, error) {
	lf := store.LogFilter{Server: f.server, Method: f.method, Status: f.status}
	switch f.status {
	case "", store.StatusOK, store.StatusError, store.StatusBlocked:
	default:
		return lf, usagef("bad --status %q: want ok, error or blocked", f.status)
	}
	if f.limit < 0 {
		return lf, usagef("bad --limit %d: want 0 or more", f.limit)
	}
	if f.since != "" {
		d, err := parseSince(f.since)
		if err != nil {
			return lf, err
		}
		lf.Since = now.Add(-d)
	}
	return lf, nil
}

// parseSince reads a Go duration, plus whole or fractional days ("7d").
func parseSince(s string) (time.Duration, error) {
	bad := usagef("bad --since %q: want a duration like 30s, 15m, 2h or 7d", s)
	var d time.Duration
	if days, ok := strings.CutSuffix(s, "d"); ok {
		n, err := strconv.ParseFloat(days, 64)
		if err != nil || n > 1e5 {
			return 0, bad
		}
		d = time.Duration(n * float64(24*time.Hour))
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil {
			return 0, bad
		}
	}
	if d <= 0 {
		return 0, bad
	}
	return d, nil
}

// showLogs prints the most recent limit entries, oldest first, then with
// follow polls for newer ones until ctx ends.
//
// Following is keyset on ID: IDs are never reused and SQLite writers commit
// one at a time, so once MaxID returns m, every entry up to m is visible and
// none below it can still appear. Each poll reads (cursor, m] and moves the
// cursor to m, even past entries the filter skips.
func showLogs(ctx context.Context, repo store.LogRepo, f store.LogFilter, limit int, follow bool, p *logPrinter) error {
	var cursor uint
	if follow {
		var err error
		if cursor, err = repo.MaxID(ctx); err != nil {
			return err
		}
	}
	var recent []store.RequestLog
	if limit > 0 && (!follow || cursor > 0) {
		q := f
		q.Limit = limit
		if follow {
			q.BeforeID = cursor + 1
		}
		var err error
		if recent, err = repo.List(ctx, q); err != nil {
			return err
		}
	}
	for i, j := 0, len(recent)-1; i < j; i, j = i+1, j-1 {
		recent[i], recent[j] = recent[j], recent[i]
	}
	if err := p.start(recent); err != nil {
		return err
	}
	if !follow {
		return nil
	}

	t := time.NewTicker(followInterval)
	defer t.Stop()
	failures := 0
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		next, err := pollLogs(ctx, repo, f, cursor, p)
		cursor = next // past whatever was printed, even if the poll then failed
		switch {
		case p.err != nil:
			return p.err // stdout is gone
		case ctx.Err() != nil:
			return nil
		case err != nil:
			failures++
			if failures >= followMaxFailures {
				return err
			}
			logrus.WithError(err).Warn("reading the request log failed; retrying")
		default:
			failures = 0
		}
	}
}

// pollLogs prints the matching entries above cursor and returns the new cursor.
func pollLogs(ctx context.Context, repo store.LogRepo, f store.LogFilter, cursor uint, p *logPrinter) (uint, error) {
	m, err := repo.MaxID(ctx)
	if err != nil {
		return cursor, err
	}
	if m <= cursor { // nothing new (or retention emptied the table)
		return cursor, nil
	}
	q := f
	q.BeforeID = m + 1
	q.Limit = followPage
	after := cursor
	for {
		page, err := repo.ListAfter(ctx, q, after)
		if err != nil {
			// What was printed stays printed: resume after it.
			return after, err
		}
		for _, e := range page {
			if err := p.row(e); err != nil {
				return after, err
			}
			after = e.ID
		}
		if len(page) < followPage {
			return m, nil
		}
	}
}

// logLine is the --json format, one per line; docs/logs.md documents it.
// Every field is always present.
type logLine struct {
	ID         uint      `json:"id"`
	Time       time.Time `json:"time"`
	Client     string    `json:"client"`
	Server     string    `json:"server"`
	Method     string    `json:"method"`
	Target     string    `json:"target"`
	DurationMs float64   `json:"durationMs"`
	Status     string    `json:"status"`
	Error      string    `json:"error"`
	Request    string    `json:"request"`
	Response   string    `json:"response"`
	// The backend tool of an ability call (request log's BackendTool).
	BackendTool string `json:"backendTool"`
	// The per-client instance that served it (request log's Instance).
	Instance string `json:"instance"`
}

// Table column widths: the recent entries widen a column up to its cap, so
// the rows that --follow adds later line up with them; longer values are
// cut with "…". --json is never cut.
var (
	logColumns   = []string{"CLIENT", "SERVER", "METHOD", "TARGET"}
	logMinWidth  = [4]int{6, 6, 6, 6}
	logFollowMin = [4]int{12, 12, 14, 24} // room for rows not seen yet
	logMaxWidth  = [4]int{20, 20, 24, 40}
)

const maxErrorWidth = 80

type logPrinter struct {
	w      io.Writer
	json   *json.Encoder
	follow bool
	widths [4]int
	err    error // the first write error; later rows are not attempted
}

func newLogPrinter(w io.Writer, asJSON, follow bool) *logPrinter {
	p := &logPrinter{w: w, follow: follow}
	if asJSON {
		p.json = json.NewEncoder(w)
		p.json.SetEscapeHTML(false)
	}
	return p
}

// start prints the recent entries, with the table header when there is a
// table to show.
func (p *logPrinter) start(recent []store.RequestLog) error {
	if p.json == nil {
		p.widths = logMinWidth
		if p.follow {
			p.widths = logFollowMin
		}
		for _, e := range recent {
			for i, v := range []string{e.Client, e.Server, e.Method, e.Target} {
				p.widths[i] = max(p.widths[i], min(utf8.RuneCountInString(v), logMaxWidth[i]))
			}
		}
		if len(recent) == 0 && !p.follow {
			_, err := fmt.Fprintln(p.w, "No matching request logs.")
			return err
		}
		h := p.widths
		if _, err := fmt.Fprintf(p.w, "%-12s  %-*s  %-*s  %-*s  %-*s  %10s  %-7s  %s\n", "TIME",
			h[0], logColumns[0], h[1], logColumns[1], h[2], logColumns[2], h[3], logColumns[3], "DURATION", "STATUS", "ERROR"); err != nil {
			return err
		}
	}
	for _, e := range recent {
		if err := p.row(e); err != nil {
			return err
		}
	}
	return nil
}

func (p *logPrinter) row(e store.RequestLog) error {
	if p.err == nil {
		p.err = p.write(e)
	}
	return p.err
}

func (p *logPrinter) write(e store.RequestLog) error {
	if p.json != nil {
		return p.json.Encode(logLine{ID: e.ID, Time: e.Time.UTC(), Client: e.Client, Server: e.Server, Method: e.Method,
			Target: e.Target, DurationMs: e.DurationMs, Status: e.Status, Error: e.Error, Request: e.Request, Response: e.Response,
			BackendTool: e.BackendTool, Instance: e.Instance})
	}
	h := p.widths
	line := fmt.Sprintf("%-12s  %s  %s  %s  %s  %10s  %-7s  %s", e.Time.Local().Format("15:04:05.000"),
		cell(e.Client, h[0]), cell(e.Server, h[1]), cell(e.Method, h[2]), cell(e.Target, h[3]),
		strconv.FormatFloat(e.DurationMs, 'f', 1, 64)+"ms", e.Status, clip(oneLineText(e.Error), maxErrorWidth))
	_, err := fmt.Fprintln(p.w, strings.TrimRight(line, " "))
	return err
}

// cell pads or cuts s to exactly width runes; an empty value shows as "-".
func cell(s string, width int) string {
	if s == "" {
		s = "-"
	}
	s = clip(oneLineText(s), width)
	return s + strings.Repeat(" ", width-utf8.RuneCountInString(s))
}

// clip cuts s to at most width runes, ending in "…" when cut.
func clip(s string, width int) string {
	if utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

// oneLineText folds runs of whitespace (newlines, tabs) into single spaces.
func oneLineText(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
