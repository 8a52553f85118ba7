package appapi

import (
	"context"
	"errors"
	"time"

	"github.com/mcp-router/mcp-router/backend/discovery"
)

// DiscoverServer finds the MCP endpoint behind url for the Add dialog, as
// `mcp-router servers discover` does (docs/discovery.md): every step
// tried, and the endpoint and transport found (Endpoint "" when none
// answered; that is not an error). A URL that is not http(s) is an error.
// It adds nothing; AddServer checks the loop guard on what the form sends.
func (a *API) DiscoverServer(url string) (discovery.Found, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	f, err := (&discovery.Prober{}).Discover(ctx, url)
	if err != nil && !errors.Is(err, discovery.ErrNotFound) {
		return discovery.Found{}, err
	}
	return f, nil
}
