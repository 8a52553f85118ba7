package pipeline

import "context"

// PolicyStep is the chain's policy link: it hands each request to the
// policy in force, which is a Step of its own (it may refuse, wait for a
// person, count against a limit, or narrow a list's candidates). Current is
// asked per request, so a policy reloaded from disk applies to the next
// request; nil, or a nil policy, lets every request through — the router's
// behaviour without a policy file.
type PolicyStep struct {
	Current func() Step
}

// Serve implements Step.
func (s PolicyStep) Serve(ctx context.Context, r *Request, next Handler) (Result, error) {
	if s.Current == nil {
		return next(ctx, r)
	}
	p := s.Current()
	if p == nil {
		return next(ctx, r)
	}
	return p.Serve(ctx, r, next)
}
