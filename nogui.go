//go:build nogui

package main

import (
	"context"
	"io/fs"

	"github.com/mcp-router/mcp-router/backend/appapi"
	"github.com/mcp-router/mcp-router/backend/core"
)

// runDesktop is absent from a GUI-free build (`go build -tags nogui`, the
// Docker image): the bare command then says there is no desktop UI, and
// every other command works as usual, without GTK or WebKit.
var runDesktop func(ctx context.Context, c *core.Core, api *appapi.API) error

// showDesktop: no window to show.
var showDesktop func()

// uiAssets is nil without a frontend: /ui/ answers 404 saying so.
var uiAssets fs.FS
