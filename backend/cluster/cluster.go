// Package cluster lets replicas of the headless router share clients
// (docs/team.md, "Sessions across replicas"): each replica has a name and an
// advertise URL, gives out session ids that name it and are signed with the
// cluster secret, keeps its entry in the replica directory in Redis alive,
// and forwards a request for another replica's session to that replica, once.
package cluster

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/sirupsen/logrus"
)

// Environment variables and flags of a replica (docs/team.md).
const (
	EnvReplica   = "MCP_ROUTER_REPLICA"
	EnvAdvertise = "MCP_ROUTER_ADVERTISE"
	EnvSecret    = "MCP_ROUTER_CLUSTER_SECRET"
)

// MinSecretBytes is the shortest cluster secret accepted: it keys HMAC-SHA256.
const MinSecretBytes = 32

// MaxReplicaName is the longest replica name.
const MaxReplicaName = 32

// Directory timing: an entry lives DirectoryTTL unless refreshed, and is
// refreshed every HeartbeatEvery, so a replica that died without a word
// drops out within DirectoryTTL.
const (
	DirectoryTTL   = 10 * time.Second
	HeartbeatEvery = 3 * time.Second
)

// Redis key prefixes (TEAM-CONTRACT: every key starts with mcpr:).
const (
	keyReplica = "mcpr:replica:"
	keySession = "mcpr:session:"
)

var replicaName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,31}$`)

// ValidReplicaName reports why name cannot name a replica, or nil.
func ValidReplicaName(name string) error {
	if !replicaName.MatchString(name) {
		return fmt.Errorf("bad replica name %q: want 1 to %d characters of a-z, 0-9 and '-', starting with a letter or digit (--replica, %s)",
			name, MaxReplicaName, EnvReplica)
	}
	return nil
}

// DefaultReplicaName makes a replica name of a host name: lowercased, other
// characters turned to '-', cut to MaxReplicaName; "replica" if nothing is
// left.
func DefaultReplicaName(host string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(host) {
		if (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9') || r == '-' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
		if b.Len() >= MaxReplicaName {
			break
		}
	}
	name := strings.TrimLeft(b.String(), "-")
	if name == "" {
		return "replica"
	}
	return name
}

// Options configure a replica; see New.
type Options struct {
	// Replica is this replica's name; "" is DefaultReplicaName(hostname).
	Replica string
	// Advertise is the base URL other replicas reach this one at; "" is
	// "http://" + the listen address, set once known (SetListenAddr).
	Advertise string
	// Secret is the cluster secret, at least MinSecretBytes; nil: no
	// cluster (session ids stay as a single router gives them out).
	Secret []byte
	// Redis holds the replica directory and session owners; nil: no
	// directory (another replica's session is 404).
	Redis  *redis.Client
	Logger logrus.FieldLogger
}

// Cluster is this replica's part in a cluster of replicas.
type Cluster struct {
	replica string
	secret  []byte
	rdb     *redis.Client
	log     logrus.FieldLogger
	// transport carries forwards to other replicas (forward.go).
	transport *http.Transport

	mu        sync.Mutex
	advertise string

	published atomic.Bool // the directory entry was written at least once

	stop chan struct{}
	done chan struct{}
	once sync.Once
}

// New checks o and returns the replica's cluster part; nil and no error
// when o has no secret and no Redis (a single router). Redis without a
// secret is refused: replicas could not check each other's session ids.
func New(o Options) (*Cluster, error) {
	if len(o.Secret) == 0 {
		if o.Redis != nil {
			return nil, fmt.Errorf("--redis needs a cluster secret of at least %d bytes in %s, the same on every replica", MinSecretBytes, EnvSecret)
		}
		return nil, nil
	}
	if len(o.Secret) < MinSecretBytes {
		return nil, fmt.Errorf("%s is %d bytes: it must be at least %d (e.g. openssl rand -hex 32)", EnvSecret, len(o.Secret), MinSecretBytes)
	}
	if o.Replica == "" {
		host, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("no --replica given and no host name to make one of: %w", err)
		}
		o.Replica = DefaultReplicaName(host)
	}
	if err := ValidReplicaName(o.Replica); err != nil {
		return nil, err
	}
	if o.Advertise != "" {
		if err := validAdvertise(o.Advertise); err != nil {
			return nil, err
		}
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	return &Cluster{replica: o.Replica, secret: append([]byte(nil), o.Secret...), rdb: o.Redis, log: o.Logger,
		transport: newForwardTransport(),
		advertise: strings.TrimRight(o.Advertise, "/")}, nil
}

func validAdvertise(s string) error {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" {
		return fmt.Errorf("bad advertise URL %q: want http(s)://host:port with no path (--advertise, %s)", s, EnvAdvertise)
	}
	return nil
}

// Replica is this replica's name.
func (c *Cluster) Replica() string { return c.replica }

// Advertise is the base URL this replica is reached at ("" until known).
func (c *Cluster) Advertise() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.advertise
}

// SetListenAddr gives the address the endpoint listens on: without
// --advertise, other replicas reach this one at http://addr.
func (c *Cluster) SetListenAddr(addr string) {
	c.mu.Lock()
	if c.advertise == "" {
		c.advertise = "http://" + addr
	}
	c.mu.Unlock()
	c.publish(context.Background())
}

// key derives a key for one use of the secret, so that no value signed for
// one purpose verifies for another.
func (c *Cluster) key(purpose string) []byte {
	m := hmac.New(sha256.New, c.secret)
	m.Write([]byte("mcp-router/" + purpose))
	return m.Sum(nil)
}

// MRTRKey is the key MRTR requestStates are signed with: the same on every
// replica, so a retry verifies wherever it lands.
func (c *Cluster) MRTRKey() []byte { return c.key("mrtr-request-state") }

// Start keeps this replica's directory entry alive until Close.
func (c *Cluster) Start() {
	if c.rdb == nil {
		return
	}
	c.stop, c.done = make(chan struct{}), make(chan struct{})
	c.publish(context.Background())
	go func() {
		defer close(c.done)
		t := time.NewTicker(HeartbeatEvery)
		defer t.Stop()
		for {
			select {
			case <-c.stop:
				return
			case <-t.C:
				c.publish(context.Background())
			}
		}
	}()
}

// publish writes this replica's directory entry (once its address is known).
func (c *Cluster) publish(ctx context.Context) {
	adv := c.Advertise()
	if c.rdb == nil || adv == "" {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := c.rdb.Set(ctx, keyReplica+c.replica, adv, DirectoryTTL).Err(); err != nil {
		c.log.Warnf("cluster: refreshing replica %s in the directory: %v", c.replica, err)
		return
	}
	c.published.Store(true)
}

// unpublish deletes this replica's directory entry if it is still the one
// this replica wrote: a CLI command that opened the router under the same
// name, or a successor already serving, keeps its entry.
var unpublish = redis.NewScript(`if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) end return 0`)

// Close stops the heartbeat and takes this replica out of the directory,
// so other replicas answer its sessions with 404 at once.
func (c *Cluster) Close() {
	c.once.Do(func() {
		if c.stop == nil {
			return
		}
		c.transport.CloseIdleConnections()
		close(c.stop)
		<-c.done
		if !c.published.Load() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		if err := unpublish.Run(ctx, c.rdb, []string{keyReplica + c.replica}, c.Advertise()).Err(); err != nil {
			c.log.Warnf("cluster: removing replica %s from the directory: %v", c.replica, err)
		}
	})
}

// errNoReplica: the directory has no live entry for a replica.
var errNoReplica = errors.New("replica not in the directory")

// Lookup is the advertise URL of a live replica.
func (c *Cluster) Lookup(ctx context.Context, replica string) (string, error) {
	if c.rdb == nil {
		return "", errNoReplica
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	adv, err := c.rdb.Get(ctx, keyReplica+replica).Result()
	if errors.Is(err, redis.Nil) {
		return "", errNoReplica
	}
	if err != nil {
		return "", fmt.Errorf("cluster: looking up replica %s: %w", replica, err)
	}
	if err := validAdvertise(adv); err != nil {
		return "", fmt.Errorf("cluster: the directory entry of replica %s: %w", replica, err)
	}
	return strings.TrimRight(adv, "/"), nil
}

// ClaimSession records this replica as the owner of session id for ttl.
func (c *Cluster) ClaimSession(ctx context.Context, id string, ttl time.Duration) {
	if c.rdb == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := c.rdb.Set(ctx, keySession+id, c.replica, ttl).Err(); err != nil {
		c.log.Warnf("cluster: recording the owner of a session: %v", err)
	}
}

// ReleaseSession forgets the owner of session id.
func (c *Cluster) ReleaseSession(ctx context.Context, id string) {
	if c.rdb == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	if err := c.rdb.Del(ctx, keySession+id).Err(); err != nil {
		c.log.Warnf("cluster: forgetting the owner of a session: %v", err)
	}
}

// SessionOwner is the replica recorded as owning session id ("" if none).
func (c *Cluster) SessionOwner(ctx context.Context, id string) (string, error) {
	if c.rdb == nil {
		return "", nil
	}
	owner, err := c.rdb.Get(ctx, keySession+id).Result()
	if errors.Is(err, redis.Nil) {
		return "", nil
	}
	return owner, err
}
