package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/mcp-router/mcp-router/backend/hook"
)

// HookEngine is what the hooks step needs of the hook service.
type HookEngine interface {
	Active() bool
	Pre(ctx context.Context, c *hook.Call) *hook.Block
	Post(ctx context.Context, c *hook.Call) *hook.Block
}

// requestTypes are the hooked methods and the names scripts know them by
// (context.requestType). Subscriptions and logging/setLevel are not hooked.
var requestTypes = map[string]string{
	MethodToolsCall:     "CallTool",
	MethodPromptsGet:    "GetPrompt",
	MethodResourcesRead: "ReadResource",
	MethodComplete:      "Complete",
	MethodToolsList:     "ListTools",
	MethodPromptsList:   "ListPrompts",
	MethodResourcesList: "ListResources",
	MethodTemplatesList: "ListResourceTemplates",
}

// Hooks is the step that runs the user's pre hooks before the request goes
// on and the post hooks on what came back: they may refuse it, change its
// arguments or params, or change the result or turn it into an error.
// With no hook enabled it costs a method call.
type Hooks struct {
	Engine HookEngine
}

// Serve implements Step.
func (s Hooks) Serve(ctx context.Context, r *Request, next Handler) (Result, error) {
	requestType, hooked := requestTypes[r.Method]
	if s.Engine == nil || !hooked || !s.Engine.Active() {
		return next(ctx, r)
	}
	c := newCall(r, requestType)
	if b := s.Engine.Pre(ctx, c); b != nil {
		return Result{}, b
	}
	if c.Changed&(hook.ChangedParams|hook.ChangedArguments) != 0 {
		if err := applyParams(r, c); err != nil {
			return Result{}, err
		}
	}
	start := time.Now()
	res, err := next(ctx, r)
	c.DurationMs = float64(time.Since(start).Microseconds()) / 1000
	if err != nil {
		c.Error = &hook.CallError{Code: mcp.INTERNAL_ERROR, Message: err.Error()}
	} else {
		raw, jerr := res.JSON()
		if jerr != nil {
			return Result{}, fmt.Errorf("the result is not JSON: %w", jerr)
		}
		c.Response = raw
	}
	if b := s.Engine.Post(ctx, c); b != nil {
		return Result{}, b
	}
	if c.Changed&hook.ChangedResponse != 0 && c.Response != nil {
		changed, merr := json.Marshal(c.Response)
		if merr != nil {
			return Result{}, errors.New("a post hook produced a response that is not JSON")
		}
		out := Result{Raw: changed}
		if r.Decode != nil {
			v, derr := r.Decode(changed)
			if derr != nil {
				return Result{}, fmt.Errorf("a post hook produced a response that is not a %s result: %w", r.Method, derr)
			}
			out.Value = v
		}
		return out, nil
	}
	if c.Changed&hook.ChangedError != 0 && c.Error != nil && err == nil {
		return Result{}, errors.New(c.Error.Message)
	}
	return res, err
}

// newCall is the request as scripts see it: the params as the client sent
// them (names as the client knows them), the upstream's own tool name.
func newCall(r *Request, requestType string) *hook.Call {
	params := make(map[string]any, len(r.Params)+2)
	for k, v := range r.Params {
		params[k] = v
	}
	switch r.Method {
	case MethodToolsCall, MethodPromptsGet:
		params["name"] = r.Target
	}
	if len(r.Args) > 0 {
		params["arguments"] = r.Args
	}
	c := &hook.Call{RequestType: requestType, Method: r.Method, ServerName: r.Server, Params: params,
		Arguments: params["arguments"], Shared: map[string]any{}}
	switch r.Method {
	case MethodToolsCall, MethodPromptsGet:
		c.ToolName = r.Item
	}
	c.Client.TokenName = r.Caller.Name
	c.Client.SessionID = r.Client.SessionID()
	return c
}

// applyParams takes what pre hooks changed into the request. Where it goes
// (server, method, the upstream's name) stays the router's decision.
func applyParams(r *Request, c *hook.Call) error {
	args, has := c.Params["arguments"]
	if c.Changed&hook.ChangedArguments != 0 {
		args, has = c.Arguments, true
	}
	r.Args = nil
	if has && args != nil {
		b, err := json.Marshal(args)
		if err != nil {
			return errors.New("a pre hook produced arguments that are not JSON")
		}
		r.Args = b
	}
	params := make(map[string]any, len(c.Params))
	for k, v := range c.Params {
		switch k {
		case "name", "arguments", "_meta":
			continue
		}
		params[k] = v
	}
	r.Params = params
	return nil
}
