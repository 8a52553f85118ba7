package pipeline

import "context"

type admitKey struct{}

// WithAdmit returns ctx with fn added to what runs just before the request
// is sent upstream — after every step has let it through. An error from
// fn refuses the request instead. The policy's rate limits spend their
// tokens there, so a request another step refuses (a hook's block) spends
// none.
func WithAdmit(ctx context.Context, fn func() error) context.Context {
	prev, _ := ctx.Value(admitKey{}).([]func() error)
	next := make([]func() error, len(prev), len(prev)+1)
	copy(next, prev)
	return context.WithValue(ctx, admitKey{}, append(next, fn))
}

// admitted wraps send: it runs the admissions ctx carries, then sends.
func admitted(send Handler) Handler {
	return func(ctx context.Context, r *Request) (Result, error) {
		if fns, ok := ctx.Value(admitKey{}).([]func() error); ok {
			for _, fn := range fns {
				if err := fn(); err != nil {
					return Result{}, err
				}
			}
		}
		return send(ctx, r)
	}
}
