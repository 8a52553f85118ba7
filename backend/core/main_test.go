package core_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
)

// serveStategateRouter runs a router on dir, serving HTTP on a free port it
// prints, until it is killed (the state_gate crash tests start and kill it).
func serveStategateRouter(dir string) {
	c, err := core.Open(dir, core.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ctx := context.Background()
	if err := c.Run(ctx, 100*time.Millisecond); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	c.WaitStarted(ctx)
	c.Gateway.Rebuild()
	err = c.Serve(ctx, core.ServeOptions{Addr: "127.0.0.1:0", NoAuth: true, Ready: func(addr string) { fmt.Println("LISTENING " + addr) }})
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
