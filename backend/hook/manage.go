// Validation and storage of hooks, for the CLI and the UI.

package hook

import (
	"context"
	"fmt"
	"regexp"

	"github.com/mcp-router/mcp-router/backend/store"
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}$`)

// ValidName checks a hook name: 1–64 letters, digits, '_', '.', '-', not
// starting with '.' or '-'.
func ValidName(name string) error {
	if !nameRE.MatchString(name) {
		return fmt.Errorf("%w: hook name %q: use 1-64 letters, digits, '_', '.' or '-' (not first)", store.ErrInvalid, name)
	}
	return nil
}

// Check validates a hook before it is stored: name, type and script.
func Check(h store.Hook) error {
	if err := ValidName(h.Name); err != nil {
		return err
	}
	switch h.HookType {
	case store.HookPre, store.HookPost, store.HookBoth:
	default:
		return fmt.Errorf("%w: hook type %q: want pre, post or both", store.ErrInvalid, h.HookType)
	}
	if err := Validate(h.Script); err != nil {
		return err
	}
	return nil
}

// List returns every stored hook in execution order.
func (s *Service) List(ctx context.Context) ([]store.Hook, error) { return s.repo.List(ctx) }

// Get returns the named hook (store.ErrNotFound if none).
func (s *Service) Get(ctx context.Context, name string) (store.Hook, error) {
	return s.repo.Get(ctx, name)
}

// Create validates and stores a new hook (store.ErrDuplicate if the name is
// taken). The running set changes on the next Reload.
func (s *Service) Create(ctx context.Context, h store.Hook) (store.Hook, error) {
	if err := Check(h); err != nil {
		return store.Hook{}, err
	}
	return s.repo.Create(ctx, h)
}

// Update validates and replaces the hook named h.Name.
func (s *Service) Update(ctx context.Context, h store.Hook) (store.Hook, error) {
	if err := Check(h); err != nil {
		return store.Hook{}, err
	}
	return s.repo.Update(ctx, h)
}

// SetEnabled turns a hook on or off.
func (s *Service) SetEnabled(ctx context.Context, name string, on bool) error {
	return s.repo.SetEnabled(ctx, name, on)
}

// Delete removes a hook.
func (s *Service) Delete(ctx context.Context, name string) error { return s.repo.Delete(ctx, name) }

// ---- logs ----

const ringSize = 500
