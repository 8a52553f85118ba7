package pipeline

import "context"

// Identity is the first step: it names the caller (from the identity the
// transport's authentication put in the context) and keeps it to the
// servers (or single tools) its token may use. A request for something outside the scope
// reads exactly as one for something that does not exist.
type Identity struct {
	CallerFrom func(ctx context.Context) Caller // nil: anonymous, every server
}

type callerKey struct{}

// WithCaller makes ctx name the caller of an in-process request (the chat
// panel's tool calls): the identity step takes it instead of asking the
// transport's authentication, which such a request never passed.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, &c)
}

// Serve implements Step.
func (s Identity) Serve(ctx context.Context, r *Request, next Handler) (Result, error) {
	if c, ok := ctx.Value(callerKey{}).(*Caller); ok {
		r.Caller = *c
	} else if s.CallerFrom != nil {
		r.Caller = s.CallerFrom(ctx)
	}
	// The request's own Caller, which nothing changes after this step:
	// no copy of it boxed per request.
	ctx = context.WithValue(ctx, callerKey{}, &r.Caller)
	if r.List != nil {
		if r.Caller.Allows != nil || r.Caller.InProfile != nil {
			// A single-tool scope lists that tool (an ability routed to it
			// too), never the server's prompts or resources, and does not
			// carry logging/setLevel to the server.
			tools := r.Method == MethodToolsList
			r.List.Keep(func(it ListItem) bool {
				if it.Server == RouterTools {
					return true // the discovery step's to decide
				}
				if tools {
					return r.Caller.MayCall(it.Server, it.Item)
				}
				return r.Caller.MayUse(it.Server)
			})
		}
		return next(ctx, r)
	}
	if r.Method == MethodToolsCall {
		if r.Server == RouterTools {
			return next(ctx, r) // the discovery step answers or refuses it
		}
		if !r.Caller.MayCall(r.Server, r.Item) {
			return Result{}, NotFound(r)
		}
		return next(ctx, r)
	}
	if !r.Caller.MayUse(r.Server) {
		return Result{}, NotFound(r)
	}
	return next(ctx, r)
}

// NotFound is the error of a routed request for something the caller
// cannot reach: an unknown tool, prompt or resource, in the words the
// router uses for each.
func NotFound(r *Request) *RouteError {
	switch r.Method {
	case MethodToolsCall:
		return UnknownTool(r.Target)
	case MethodPromptsGet:
		return UnknownPrompt(r.Target)
	case MethodComplete:
		if ref, _ := r.Params["ref"].(map[string]any); ref != nil && ref["type"] == "ref/prompt" {
			return UnknownPrompt(r.Target)
		}
	}
	return UnknownResource(r.Target, r.Client.Modern)
}
