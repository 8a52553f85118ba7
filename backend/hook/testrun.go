// Trying a hook against a sample context (`mcp-router hooks test`).

package hook

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/mcp-router/mcp-router/backend/store"
)

// Test runs the named hook once against sample (whether or not the hook is
// enabled) in the given phase, without touching its log. The script is
// compiled from the database, so Test works without Reload.
func (s *Service) Test(ctx context.Context, name string, sample Call, phase string) (TestResult, error) {
	if phase != PhasePre && phase != PhasePost {
		return TestResult{}, fmt.Errorf("%w: phase %q: want pre or post", store.ErrInvalid, phase)
	}
	h, err := s.repo.Get(ctx, name)
	if err != nil {
		return TestResult{}, err
	}
	return s.TestUnsaved(ctx, h, sample, phase)
}

// TestUnsaved runs h, as given rather than as stored (the UI's editor tests
// a script before saving it), once against sample in the given phase.
func (s *Service) TestUnsaved(ctx context.Context, h store.Hook, sample Call, phase string) (TestResult, error) {
	if phase != PhasePre && phase != PhasePost {
		return TestResult{}, fmt.Errorf("%w: phase %q: want pre or post", store.ErrInvalid, phase)
	}
	name := h.Name
	c := &compiled{hook: h, pool: newPool(1)}
	c.prog, c.broken = compile(h.Name, h.Script)
	res := TestResult{Hook: name, Phase: phase, Logs: []LogLine{}}
	start := time.Now()
	call := sample
	out := s.runHook(ctx, c, &call, phase, s.limits(), func(l LogLine) { res.Logs = append(res.Logs, l) })
	res.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	res.Continue = out.block == nil
	res.Block = out.block
	if out.err != nil {
		res.Error = out.err.Error()
	}
	res.Context = call.ContextMap(phase)
	return res, nil
}

// ContextMap is the call as a script's context, as plain JSON data: the
// shape `hooks test --context` reads and prints.
func (c *Call) ContextMap(phase string) map[string]any {
	m := map[string]any{
		"phase":       phase,
		"requestType": c.RequestType,
		"method":      c.Method,
		"serverName":  c.ServerName,
		"toolName":    c.ToolName,
		"arguments":   c.Arguments,
		"request":     map[string]any{"method": c.Method, "params": nonNilMap(c.Params)},
		"client":      map[string]any{"tokenName": c.Client.TokenName, "sessionId": c.Client.SessionID},
		"shared":      nonNilMap(c.Shared),
	}
	if phase == PhasePost {
		m["response"] = c.Response
		m["duration"] = c.DurationMs
		if c.Error != nil {
			m["error"] = c.Error
		} else {
			m["error"] = nil
		}
	}
	return m
}

func nonNilMap(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// CallFromContext builds a Call from a context object as a script sees it
// (the JSON `hooks test --context FILE` reads). Unknown keys are refused so
// that a typo does not go unnoticed.
func CallFromContext(m map[string]any) (Call, error) {
	var c Call
	str := func(k string) (string, error) {
		v, ok := m[k]
		if !ok || v == nil {
			return "", nil
		}
		s, ok := v.(string)
		if !ok {
			return "", fmt.Errorf("%w: context.%s must be a string", store.ErrInvalid, k)
		}
		return s, nil
	}
	var err error
	for k := range m {
		switch k {
		case "phase", "requestType", "method", "serverName", "toolName", "arguments", "request",
			"client", "shared", "response", "error", "duration":
		default:
			return c, fmt.Errorf("%w: unknown context key %q", store.ErrInvalid, k)
		}
	}
	if c.RequestType, err = str("requestType"); err != nil {
		return c, err
	}
	if c.Method, err = str("method"); err != nil {
		return c, err
	}
	if c.ServerName, err = str("serverName"); err != nil {
		return c, err
	}
	if c.ToolName, err = str("toolName"); err != nil {
		return c, err
	}
	c.Arguments = m["arguments"]
	if r, ok := m["request"]; ok && r != nil {
		rm, ok := r.(map[string]any)
		if !ok {
			return c, fmt.Errorf("%w: context.request must be an object", store.ErrInvalid)
		}
		if meth, ok := rm["method"].(string); ok && c.Method == "" {
			c.Method = meth
		}
		if p, ok := rm["params"]; ok && p != nil {
			pm, ok := p.(map[string]any)
			if !ok {
				return c, fmt.Errorf("%w: context.request.params must be an object", store.ErrInvalid)
			}
			c.Params = pm
			if c.Arguments == nil {
				c.Arguments = pm["arguments"]
			}
		}
	}
	if c.Arguments != nil {
		if c.Params == nil {
			c.Params = map[string]any{}
		}
		c.Params["arguments"] = c.Arguments
	}
	if cl, ok := m["client"].(map[string]any); ok {
		c.Client.TokenName, _ = cl["tokenName"].(string)
		c.Client.SessionID, _ = cl["sessionId"].(string)
	}
	if sh, ok := m["shared"]; ok && sh != nil {
		shm, ok := sh.(map[string]any)
		if !ok {
			return c, fmt.Errorf("%w: context.shared must be an object", store.ErrInvalid)
		}
		c.Shared = shm
	}
	c.Response = m["response"]
	if e, ok := m["error"].(map[string]any); ok {
		c.Error = &CallError{Data: e["data"]}
		c.Error.Message, _ = e["message"].(string)
		if f, ok := e["code"].(float64); ok {
			c.Error.Code = int(f)
		}
	}
	if d, ok := m["duration"].(float64); ok {
		c.DurationMs = d
	}
	if c.RequestType == "" && c.Method != "" {
		c.RequestType = RequestTypeOf(c.Method)
	}
	return c, nil
}

// RequestTypeOf maps an MCP method to the requestType hooks see.
func RequestTypeOf(method string) string {
	switch method {
	case "tools/call":
		return "CallTool"
	case "tools/list":
		return "ListTools"
	case "resources/read":
		return "ReadResource"
	case "resources/list":
		return "ListResources"
	case "resources/templates/list":
		return "ListResourceTemplates"
	case "resources/subscribe":
		return "Subscribe"
	case "resources/unsubscribe":
		return "Unsubscribe"
	case "prompts/get":
		return "GetPrompt"
	case "prompts/list":
		return "ListPrompts"
	case "completion/complete":
		return "Complete"
	case "logging/setLevel":
		return "SetLevel"
	case "ping":
		return "Ping"
	}
	// Anything else: the method's words in CamelCase ("a/b_c" → "ABC").
	var b strings.Builder
	up := true
	for _, r := range method {
		if r == '/' || r == '_' || r == '-' {
			up = true
			continue
		}
		if up {
			b.WriteString(strings.ToUpper(string(r)))
			up = false
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}
