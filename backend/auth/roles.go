package auth

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/mcp-router/mcp-router/backend/store"
)

// A token's own roles (store.Token.Roles): names a built-in server matches
// (state_gate's `roles:` on an event) besides the token's access role.
// They never change what the token reaches: that is Role alone (client or
// admin), so a client token with any roles still reaches the MCP endpoint
// only.

// MaxRoles is how many roles of its own one token may carry.
const MaxRoles = 32

// roleRE is a role's name: like a token's, 1-64 letters, digits, '_', '.'
// or '-'. No ':' (so no role reads as state_gate's "token:NAME" or
// "subject:SUB") and no '*' (its "anyone").
var roleRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// reservedRoles are the access roles, which a token's Role says: a token
// cannot carry them as roles of its own (in any case), or "admin" given to
// a client token would read, to state_gate, as an admin token.
var reservedRoles = map[string]string{
	string(store.RoleAdmin):  "it is the role of admin tokens (tokens create NAME --admin), never given by name",
	string(store.RoleClient): "every client token carries it already",
}

// CheckRoles returns roles trimmed and without repeats, in the order given,
// or an error (wrapping store.ErrInvalid) naming the first one refused.
// None is nil.
func CheckRoles(roles []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, r := range roles {
		r = strings.TrimSpace(r)
		if seen[r] {
			continue
		}
		if why, reserved := reservedRoles[strings.ToLower(r)]; reserved {
			return nil, roleError(fmt.Sprintf("role %q is reserved: %s", r, why))
		}
		if !roleRE.MatchString(r) {
			return nil, roleError(fmt.Sprintf("bad role %q: use 1-64 letters, digits, '_', '.' or '-', starting with a letter or digit", r))
		}
		seen[r] = true
		out = append(out, r)
	}
	if len(out) > MaxRoles {
		return nil, roleError(fmt.Sprintf("%d roles: a token carries at most %d (auth.MaxRoles)", len(out), MaxRoles))
	}
	return out, nil
}

// roleError is a role CheckRoles refuses; it wraps store.ErrInvalid.
type roleError string

func (e roleError) Error() string { return string(e) }
func (e roleError) Unwrap() error { return store.ErrInvalid }

// usableRoles are the stored roles CheckRoles accepts one by one: a row
// edited by hand (the sqlite3 shell) cannot give a token "admin" or a
// name state_gate reads otherwise.
func usableRoles(roles []string) []string {
	var out []string
	for _, r := range roles {
		if ok, err := CheckRoles([]string{r}); err == nil && len(ok) == 1 {
			out = append(out, ok[0])
		}
	}
	return out
}
