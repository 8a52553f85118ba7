package upstream

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"
)

// InstanceMetaKey names the router's instance id in the _meta of its
// initialize result (docs/endpoint.md). A server whose initialize result
// carries this router's own id is this router, reached again.
const InstanceMetaKey = "io.github.mcp-router/instance"

// EnvRouterChain is set on every stdio server the router starts: the
// instance ids of the routers above it, this one last, comma-separated. A
// router started under a router with its own id (a wrapper script running
// `mcp-router stdio` on the same data dir) learns from it that it runs
// behind itself before it starts any server.
const EnvRouterChain = "MCPR_ROUTER_CHAIN"

// ErrSelf marks a server that turned out to be this router itself.
var ErrSelf = errors.New("this server is this router itself")

// selfError is a server whose initialize result carried the id of this
// router or of a router this one runs under.
type selfError struct {
	id       string
	ancestor bool   // the id is a router above this one, not this one
	answer   string // what carried it: "" the initialize result, else e.g. "server/discover answer"
}

func (e *selfError) Error() string {
	who := "this router's own instance id"
	if e.ancestor {
		who = "the instance id of the router that started this one"
	}
	answer := e.answer
	if answer == "" {
		answer = "initialize result"
	}
	return fmt.Sprintf("%v: its %s carries %s (%s), so it reaches the router again "+
		"(through a proxy, a forwarded port or a wrapper script); remove it, a router cannot be its own upstream", ErrSelf, answer, who, e.id)
}

func (e *selfError) Is(target error) bool { return target == ErrSelf }

// ParseChain reads an EnvRouterChain value: the ids in order, blanks dropped.
func ParseChain(v string) []string {
	var out []string
	for _, id := range strings.Split(v, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// identity is who this router is, for recognising itself among its
// upstreams: its instance id and the ids of the routers above it.
type identity struct {
	instance string
	chain    []string
}

// childEnv is the EnvRouterChain entry for a stdio server's environment,
// or nil when the router has no instance id.
func (id identity) childEnv() []string {
	if id.instance == "" {
		return nil
	}
	return []string{EnvRouterChain + "=" + strings.Join(append(slices.Clone(id.chain), id.instance), ",")}
}

// check returns a *selfError when init carries this router's id or one of
// the chain's.
func (id identity) check(init *mcp.InitializeResult) error {
	return id.checkInstance(InstanceOf(init), "")
}

// checkInstance is check of the instance id that answer carried ("" none;
// answer "" is the initialize result).
func (id identity) checkInstance(got, answer string) error {
	switch {
	case got == "":
		return nil
	case id.instance != "" && got == id.instance:
		return &selfError{id: got, answer: answer}
	case slices.Contains(id.chain, got):
		return &selfError{id: got, ancestor: true, answer: answer}
	}
	return nil
}

// InstanceOf returns the router instance id an initialize result carries,
// or "" when it carries none (it is not an MCP Router).
func InstanceOf(init *mcp.InitializeResult) string {
	if init == nil || init.Meta == nil {
		return ""
	}
	s, _ := init.Meta.AdditionalFields[InstanceMetaKey].(string)
	return s
}
