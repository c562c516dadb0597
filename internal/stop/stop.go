// Package stop carries a command's second stop in its context. A command
// stops gracefully on the user's first Ctrl-C or SIGTERM (its context is
// cancelled: workers finish their game, everything finished is merged);
// the work it then does to finish (merging, pruning) must not be cut
// short by that same stop, but must end promptly on the next one. The
// command's scaffold (internal/cli) puts a context that ends at the next
// stop into the command's context; libraries that finish after a stop
// run under Next(ctx).
package stop

import "context"

type key struct{}

// WithNext returns a copy of ctx that carries next, the context that ends
// at the stop after the one that ends ctx.
func WithNext(ctx, next context.Context) context.Context {
	return context.WithValue(ctx, key{}, next)
}

// Next returns the context that ends at the stop after ctx's: the one
// WithNext put in ctx, or, when there is none (a test, a library caller),
// one that never ends (the values of ctx, without its cancellation).
func Next(ctx context.Context) context.Context {
	if next, ok := ctx.Value(key{}).(context.Context); ok {
		return next
	}
	return context.WithoutCancel(ctx)
}
