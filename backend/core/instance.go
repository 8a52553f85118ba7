package core

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"slices"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/loopguard"
	"github.com/mcp-router/mcp-router/backend/upstream"
)

// identity is who this router is: the instance id of its data dir, and the
// ids of the routers it was started under (upstream.EnvRouterChain). When
// the id cannot be read or made (a damaged instance-id file), the router
// still starts, under an id of its own for this process: it then recognises
// itself behind a proxy or a connect bridge, but not a second router process
// on its data dir. The file is left as it is.
func identity(dataDir string, log logrus.FieldLogger) (string, []string) {
	chain := upstream.ParseChain(os.Getenv(upstream.EnvRouterChain))
	id, err := config.InstanceID(dataDir)
	if err == nil {
		return id, chain
	}
	var b [16]byte
	_, _ = rand.Read(b[:])
	id = hex.EncodeToString(b[:])
	log.Warnf("%v; using %s for this run", err, id)
	return id, chain
}

// BehindSelf reports whether this process was started, directly or through
// other routers and wrapper scripts, as an upstream server of a router on
// the same data dir: its own id is in the chain it inherited. Such a router
// starts none of its servers (they would include the one that started it);
// it still answers initialize, with its id, so the router above marks that
// server errored and the chain ends here.
func (c *Core) BehindSelf() bool { return slices.Contains(c.chain, c.Instance) }

// runBehindSelf is Run for a router behind itself: the gateway answers, no
// server starts.
func (c *Core) runBehindSelf() error {
	c.Log.Warnf("this router (data dir %s, instance %s) was started as an upstream server of itself; "+
		"not starting its servers, a router cannot be its own upstream", c.DataDir, c.Instance)
	c.Gateway.Start()
	return nil
}

// LoopGuard describes this router for loopguard.Check: its data dir, the
// listen address of its settings and, while the endpoint runs, the address
// it is bound to. executable is the binary the router's stdio snippets run
// ("" for os.Executable).
func (c *Core) LoopGuard(ctx context.Context, executable string) loopguard.Self {
	listen := []string{c.Settings.ListenAddr(ctx)}
	if ep := c.Endpoint(); ep.Running && ep.Addr != listen[0] {
		listen = append(listen, ep.Addr)
	}
	return loopguard.Self{Listen: listen, DataDir: c.DataDir, Executable: executable}
}
