package pipeline

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/mcp-router/mcp-router/backend/hook"
	"github.com/mcp-router/mcp-router/backend/store"
)

// RequestLogger receives one entry per request; it must not block.
type RequestLogger interface{ Log(store.RequestLog) }

// Log is the last step: it records every request that entered the chain,
// as the client sent it and with what the client got, whichever step
// answered. It is the outermost link, so it sees refusals too.
type Log struct {
	Sink RequestLogger
}

// Serve implements Step.
func (s Log) Serve(ctx context.Context, r *Request, next Handler) (Result, error) {
	// What the client sent, before a hook changes it (hooks replace these
	// fields, never edit them in place).
	args, params := r.Args, r.Params
	res, err := next(ctx, r)
	e := store.RequestLog{
		Time:       r.Received,
		Client:     r.Caller.Name,
		Method:     r.Method,
		Server:     r.Server,
		Target:     r.Target,
		DurationMs: float64(time.Since(r.Received).Microseconds()) / 1000,
		Status:     store.StatusOK,
		Request:    requestText(r, args, params),
	}
	if r.IsAbility() {
		e.BackendTool = r.Item
	}
	e.Instance = r.Instance
	switch {
	case err != nil:
		e.Status, e.Error = store.StatusError, err.Error()
		var b *hook.Block
		if errors.As(err, &b) {
			e.Status = store.StatusBlocked
		}
		var re *RouteError
		if errors.As(err, &re) && PolicyRefusal(re.Reason) {
			e.Status = store.StatusBlocked
		}
		switch {
		case errors.As(err, &re) && RouterRefusal(re.Reason):
			// The router refused it on the way: the entry keeps the
			// server it was for and says that none of it was sent.
			e.Error = fmt.Sprintf("%s (%s: refused by the router; nothing was sent to %s)", err.Error(), re.Reason, r.Server)
		case errors.As(err, &re) && re.Reason != ReasonUnknownTool && re.Reason != ReasonUnknownPrompt &&
			re.Reason != ReasonUnknownResource && re.Server != "":
			e.Server = re.Server
		}
		err = &logged{err}
	case res.Refusal != "":
		e.Status, e.Error = store.StatusBlocked, res.Refusal
		raw, _ := res.JSON()
		e.Response = string(raw)
	default:
		raw, jerr := res.JSON()
		if jerr != nil {
			e.Response = fmt.Sprintf("(unencodable: %v)", jerr)
		} else {
			e.Response = string(raw)
		}
		if r.Method == MethodToolsCall {
			if msg, isErr := toolError(raw); isErr {
				e.Status, e.Error = store.StatusError, msg
			}
		}
	}
	s.Sink.Log(e)
	return res, err
}

// logged marks an error the log step has recorded, so a front end that
// logs the requests the chain never saw does not record it again.
type logged struct{ err error }

func (l *logged) Error() string { return l.err.Error() }
func (l *logged) Unwrap() error { return l.err }

// Logged reports whether err came out of the chain's log step.
func Logged(err error) bool {
	var l *logged
	return errors.As(err, &l)
}

// Unlogged is err without the log step's mark.
func Unlogged(err error) error {
	var l *logged
	if errors.As(err, &l) && l == err {
		return l.err
	}
	return err
}

// toolError reads a tools/call result's isError and first text, without
// decoding the whole result unless it can be an error.
func toolError(raw []byte) (string, bool) {
	if !bytes.Contains(raw, []byte(`"isError"`)) {
		return "", false
	}
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
	}
	if json.Unmarshal(raw, &res) != nil || !res.IsError {
		return "", false
	}
	for _, c := range res.Content {
		if c.Type == "text" {
			return c.Text, true
		}
	}
	return "tool reported an error", true
}

// requestText is the request as the log shows it, the same on every path:
// {"method": …, "params": {"name", "arguments", the other params by key,
// "_meta"}}. Built in one buffer that becomes the string without a copy.
func requestText(r *Request, args json.RawMessage, params map[string]any) string {
	var b strings.Builder
	b.Grow(64 + len(r.Method) + len(r.Target) + len(args))
	b.WriteString(`{"method":`)
	writeJSONString(&b, r.Method)
	b.WriteString(`,"params":{`)
	sep := ""
	if r.Method == MethodToolsCall || r.Method == MethodPromptsGet {
		b.WriteString(`"name":`)
		writeJSONString(&b, r.Target)
		sep = ","
	}
	if a := bytes.TrimSpace(args); len(a) > 0 && string(a) != "null" {
		b.WriteString(sep)
		b.WriteString(`"arguments":`)
		b.Write(a) // valid JSON: it came out of a parsed message or a hook
		sep = ","
	}
	if len(params) > 0 {
		keys := make([]string, 0, len(params))
		for k := range params {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			b.WriteString(sep)
			writeJSONString(&b, k)
			b.WriteByte(':')
			writeJSON(&b, params[k])
			sep = ","
		}
	}
	if r.Meta != nil {
		b.WriteString(sep)
		b.WriteString(`"_meta":`)
		writeJSON(&b, r.Meta)
	}
	b.WriteString("}}")
	return b.String()
}

// writeJSONString writes s as a JSON string, as encoding/json does.
func writeJSONString(b *strings.Builder, s string) {
	if PlainJSONString(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	writeJSON(b, s)
}

func writeJSON(b *strings.Builder, v any) {
	if s, ok := v.(string); ok && PlainJSONString(s) {
		b.WriteByte('"')
		b.WriteString(s)
		b.WriteByte('"')
		return
	}
	enc, err := json.Marshal(v)
	if err != nil {
		enc, _ = json.Marshal(fmt.Sprintf("(unencodable: %v)", err))
	}
	b.Write(enc)
}

// PlainJSONString reports whether s is written as is between quotes by
// encoding/json (no escaping needed).
func PlainJSONString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}
