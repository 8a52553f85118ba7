package upstream

import (
	"context"

	"github.com/mark3labs/mcp-go/mcp"
)

// Origin is what the router knows of whom a server's notification is
// about, beyond the server: nothing for a stdio server's shared pipe or an
// HTTP server's GET stream.
type Origin struct {
	// Call is the context of the call on whose answer stream the
	// notification came (an HTTP server relating it to that call, as the
	// spec says it should); nil otherwise.
	Call context.Context
	// Client is the key of the client a per-client instance serves (the
	// gateway's askerKey); "" for a shared server.
	Client string
}

// notify hands a notification that is not a list change to the owner.
func (o Options) notify(server string, from Origin, n mcp.JSONRPCNotification) {
	switch {
	case o.OnNotificationFrom != nil:
		o.OnNotificationFrom(server, from, n)
	case o.OnNotification != nil:
		o.OnNotification(server, n)
	}
}
