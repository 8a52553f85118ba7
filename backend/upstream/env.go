package upstream

import "strings"

// RouterSecretEnv names the router's own credentials that may sit in its
// environment: the cluster key and the URLs of the shared database and
// Redis, with their passwords. A stdio server is someone else's code; with
// the key it could forge session ids and forwarded requests between
// replicas, with the database it could rewrite every replica's servers
// (which start processes). So they are not passed on to stdio servers; a
// server whose own env sets one explicitly still gets that value.
var RouterSecretEnv = []string{"MCP_ROUTER_CLUSTER_SECRET", "MCP_ROUTER_DATABASE", "MCP_ROUTER_REDIS"}

// inheritedEnv is env (KEY=value entries) without RouterSecretEnv. Names
// compare case-insensitively: Windows treats them so.
func inheritedEnv(env []string) []string {
	out := make([]string, 0, len(env))
	for _, kv := range env {
		if !isRouterSecret(kv) {
			out = append(out, kv)
		}
	}
	return out
}

func isRouterSecret(kv string) bool {
	k, _, _ := strings.Cut(kv, "=")
	for _, s := range RouterSecretEnv {
		if strings.EqualFold(k, s) {
			return true
		}
	}
	return false
}
