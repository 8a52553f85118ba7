// Package core wires the per-process services together: it is the one place
// that builds them and passes each what it needs. The desktop shell, the
// headless modes and the CLI all start from here.
package core

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// Version is the router's version, set at build time with -ldflags.
var Version = "dev"

// Core holds the services of one running router.
type Core struct {
	DataDir string
	Store   *store.Store
	Servers *upstream.Service
	Log     logrus.FieldLogger

	stopWatch context.CancelFunc
	watchDone chan struct{}
	closeOnce sync.Once
}

// Options configure Open; zero values are the defaults.
type Options struct {
	Logger        logrus.FieldLogger
	Upstream      upstream.Options
	WatchInterval time.Duration // how often to look for changes made by another process; default 500 ms
}

// Open opens the store in dataDir. It starts no server: call Run for that.
func Open(dataDir string, o Options) (*Core, error) {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	st, err := store.Open(config.DBPath(dataDir))
	if err != nil {
		return nil, err
	}
	uo := o.Upstream
	uo.Logger = o.Logger
	if uo.ClientInfo.Name == "" {
		uo.ClientInfo = mcp.Implementation{Name: "mcp-router", Version: Version}
	}
	return &Core{DataDir: dataDir, Store: st, Servers: upstream.New(uo), Log: o.Logger}, nil
}

// Run starts every enabled server and keeps the running set in step with the
// database, so a change made by the CLI while the app runs takes effect
// within a second.
func (c *Core) Run(ctx context.Context, interval time.Duration) error {
	if interval <= 0 {
		interval = 500 * time.Millisecond
	}
	if err := c.SyncServers(ctx); err != nil {
		return err
	}
	wctx, cancel := context.WithCancel(context.Background())
	c.stopWatch = cancel
	c.watchDone = make(chan struct{})
	go c.watch(wctx, interval)
	return nil
}

// SyncServers loads the server definitions and applies them.
func (c *Core) SyncServers(ctx context.Context) error {
	rows, err := c.Store.Servers().List(ctx)
	if err != nil {
		return fmt.Errorf("load servers: %w", err)
	}
	defs := make([]spec.Server, 0, len(rows))
	for _, r := range rows {
		defs = append(defs, r.Server)
	}
	return c.Servers.Sync(defs)
}

func (c *Core) watch(ctx context.Context, interval time.Duration) {
	defer close(c.watchDone)
	last, _ := c.Store.Revision(ctx)
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rev, err := c.Store.Revision(ctx)
		if err != nil || rev == last {
			continue
		}
		last = rev
		if err := c.SyncServers(ctx); err != nil {
			c.Log.Warnf("reload after a database change: %v", err)
		}
	}
}

// Close stops every server (and its processes) and closes the store.
func (c *Core) Close() error {
	var err error
	c.closeOnce.Do(func() {
		if c.stopWatch != nil {
			c.stopWatch()
			<-c.watchDone
		}
		c.Servers.Close()
		err = c.Store.Close()
	})
	return err
}
