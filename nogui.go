//go:build nogui

package main

import (
	"context"

	"github.com/mcp-router/mcp-router/backend/core"
)

// runDesktop is absent from a GUI-free build (`go build -tags nogui`, the
// Docker image): the bare command then says there is no desktop UI, and
// every other command works as usual, without GTK or WebKit.
var runDesktop func(ctx context.Context, c *core.Core) error
