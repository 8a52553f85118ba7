//go:build bindings && !nogui

package main

import (
	"github.com/wailsapp/wails/v2"
	"github.com/wailsapp/wails/v2/pkg/options"

	"github.com/mcp-router/mcp-router/backend/appapi"
)

// `wails build` generates the frontend's bindings by running a build of the
// app tagged `bindings`: it needs only the bound types. This build runs
// nothing else, so a build never opens the user's data dir (migrating the
// database of the router they use), starts their servers or takes the
// endpoint's port.
func init() {
	generateBindings = func() error {
		return wails.Run(&options.App{Bind: []interface{}{&appapi.API{}}})
	}
}
