package cli

import (
	"os"

	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/cluster"
	"github.com/mcp-router/mcp-router/backend/core"
)

// teamFlags are the root flags that make a headless router a replica
// (docs/team.md); each has an environment variable, and the flag wins.
type teamFlags struct {
	redis, replica, advertise string
}

func (e *env) addTeamFlags(root *cobra.Command) {
	f := root.PersistentFlags()
	f.StringVar(&e.team.redis, "redis", "", "redis://host:port/db shared by the replicas of a team router: rate limits, approvals, gate unlocks, session owners (default $"+EnvRedis+"; none: all in this process)")
	f.StringVar(&e.team.replica, "replica", "", "this replica's name, [a-z0-9][a-z0-9-]{0,31} (default $"+cluster.EnvReplica+", else the host name)")
	f.StringVar(&e.team.advertise, "advertise", "", "base URL other replicas reach this one at, e.g. http://10.0.0.5:3282 (default $"+cluster.EnvAdvertise+", else http://<listen address>)")
}

// withTeam fills o's replica options from the flags, else the environment;
// the cluster secret comes from the environment only (never a flag: it
// would show in the process list).
func (e *env) withTeam(o core.Options) core.Options {
	pick := func(flag, key string) string {
		if flag != "" {
			return flag
		}
		return os.Getenv(key)
	}
	o.Redis = pick(e.team.redis, EnvRedis)
	o.Replica = pick(e.team.replica, cluster.EnvReplica)
	o.Advertise = pick(e.team.advertise, cluster.EnvAdvertise)
	if s := os.Getenv(cluster.EnvSecret); s != "" {
		o.ClusterSecret = []byte(s)
	}
	return o
}
