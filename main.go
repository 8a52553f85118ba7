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

// generateBindings is set in the build `wails build` runs to generate the
// frontend's bindings (bindings.go); nil otherwise.
var generateBindings func() error

func main() {
	if generateBindings != nil {
		if err := generateBindings(); err != nil {
			os.Stderr.WriteString("generate bindings: " + err.Error() + "\n")
			os.Exit(1)
		}
		return
	}
	// SIGTERM and Ctrl-C cancel ctx: every mode then shuts down its
	// upstream servers before exiting, so none is orphaned.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	o := cli.Options{RunDesktop: runDesktop, Assets: uiAssets,
		// The app and serve run on one P (package hotpath).
		TuneRuntime: func() { hotpath.Setup() },
		// A GUI launch gets the login shell's PATH (nvm, Homebrew, …).
		UserEnv: shellenv.ForGUI,
		// A second launch brings this window forward (package single).
		ShowDesktop: showDesktop}
	code := cli.Main(ctx, os.Args[1:], o)
	stop()
	os.Exit(code)
}
