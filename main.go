// Command mcp-router is the MCP Router desktop app and its command line.
// Run bare it opens the window; with a subcommand it is the CLI.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/mcp-router/mcp-router/backend/cli"
	"github.com/mcp-router/mcp-router/backend/hotpath"
	"github.com/mcp-router/mcp-router/backend/shellenv"
)

func main() {
	// SIGTERM and Ctrl-C cancel ctx: every mode then shuts down its
	// upstream servers before exiting, so none is orphaned.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Main(ctx, os.Args[1:], cli.Options{RunDesktop: runDesktop, Assets: uiAssets,
		// The app and serve run on one P (package hotpath).
		TuneRuntime: func() { hotpath.Setup() },
		// A GUI launch gets the login shell's PATH (nvm, Homebrew, …).
		UserEnv: shellenv.ForGUI})
	stop()
	os.Exit(code)
}
