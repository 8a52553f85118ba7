package appapi

import (
	"fmt"
	"time"

	"github.com/mcp-router/mcp-router/backend/store"
)

// Log page sizes.
const (
	DefaultLogPage = 100
	MaxLogPage     = 500
)

// LogQuery selects request log rows; zero fields don't filter.
type LogQuery struct {
	Client   string `json:"client,omitempty"`
	Server   string `json:"server,omitempty"`
	Method   string `json:"method,omitempty"`
	Status   string `json:"status,omitempty"` // ok, error or blocked
	Since    string `json:"since,omitempty"`  // RFC 3339, inclusive
	Until    string `json:"until,omitempty"`  // RFC 3339, exclusive
	BeforeID uint   `json:"beforeId,omitempty"`
	Limit    int    `json:"limit,omitempty"` // default 100, at most 500
}

// LogRow is one request in the log list.
type LogRow struct {
	ID         uint      `json:"id"`
	Time       time.Time `json:"time"`
	Client     string    `json:"client"`
	Server     string    `json:"server"`
	Method     string    `json:"method"`
	Target     string    `json:"target"`
	DurationMs float64   `json:"durationMs"`
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	// BackendTool: for a call of an ability, the server's own name of the
	// tool it was routed to ("via server/tool").
	BackendTool string `json:"backendTool,omitempty"`
	// Instance: the per-client instance that served it ("#3 (pid 4242)").
	Instance string `json:"instance,omitempty"`
}

// LogPage is one page of rows, newest first.
type LogPage struct {
	Rows         []LogRow `json:"rows"`
	NextBeforeID uint     `json:"nextBeforeId,omitempty"` // absent on the last page
}

// LogDetail is one request with its bodies: a LogRow plus request and
// response (fields spelled out, not embedded, for the generated bindings).
type LogDetail struct {
	ID         uint      `json:"id"`
	Time       time.Time `json:"time"`
	Client     string    `json:"client"`
	Server     string    `json:"server"`
	Method     string    `json:"method"`
	Target     string    `json:"target"`
	DurationMs float64   `json:"durationMs"`
	Status     string    `json:"status"`
	Error      string    `json:"error,omitempty"`
	Request    string    `json:"request,omitempty"`
	Response   string    `json:"response,omitempty"`

	BackendTool string `json:"backendTool,omitempty"` // as in LogRow
	Instance    string `json:"instance,omitempty"`    // as in LogRow
}

func makeRow(e store.RequestLog) LogRow {
	return LogRow{ID: e.ID, Time: e.Time, Client: e.Client, Server: e.Server, Method: e.Method, Target: e.Target,
		DurationMs: e.DurationMs, Status: e.Status, Error: e.Error, BackendTool: e.BackendTool, Instance: e.Instance}
}

// QueryLogs returns one page of the request log, newest first. Pass a
// page's nextBeforeId as beforeId to get the next one.
func (a *API) QueryLogs(q LogQuery) (LogPage, error) {
	f := store.LogFilter{Client: q.Client, Server: q.Server, Method: q.Method, BeforeID: q.BeforeID}
	switch q.Status {
	case "", store.StatusOK, store.StatusError, store.StatusBlocked:
		f.Status = q.Status
	default:
		return LogPage{}, fmt.Errorf("status %q: want ok, error or blocked", q.Status)
	}
	for _, tf := range []struct {
		name, v string
		dst     *time.Time
	}{{"since", q.Since, &f.Since}, {"until", q.Until, &f.Until}} {
		if tf.v == "" {
			continue
		}
		t, err := time.Parse(time.RFC3339, tf.v)
		if err != nil {
			return LogPage{}, fmt.Errorf("%s %q: want an RFC 3339 time such as 2026-01-02T15:04:05Z", tf.name, tf.v)
		}
		*tf.dst = t
	}
	switch {
	case q.Limit < 0 || q.Limit > MaxLogPage:
		return LogPage{}, fmt.Errorf("limit %d: want 1 to %d", q.Limit, MaxLogPage)
	case q.Limit == 0:
		q.Limit = DefaultLogPage
	}
	f.Limit = q.Limit + 1 // one more tells whether another page follows
	rows, err := a.core.Store.Logs().List(bg(), f)
	if err != nil {
		return LogPage{}, err
	}
	page := LogPage{Rows: make([]LogRow, 0, min(len(rows), q.Limit))}
	for i, r := range rows {
		if i == q.Limit {
			page.NextBeforeID = page.Rows[q.Limit-1].ID
			break
		}
		page.Rows = append(page.Rows, makeRow(r))
	}
	return page, nil
}

// GetLog returns one request with its request and response bodies.
func (a *API) GetLog(id uint) (LogDetail, error) {
	e, err := a.core.Store.Logs().Get(bg(), id)
	if err != nil {
		return LogDetail{}, err
	}
	return LogDetail{ID: e.ID, Time: e.Time, Client: e.Client, Server: e.Server, Method: e.Method, Target: e.Target,
		DurationMs: e.DurationMs, Status: e.Status, Error: e.Error, Request: e.Request, Response: e.Response,
		BackendTool: e.BackendTool, Instance: e.Instance}, nil
}
