package cluster

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"strings"
)

// A session id is <replica>.<random>.<mac>: the replica first, so a load
// balancer can route on the prefix; 128 random bits; and an HMAC-SHA256
// (cut to 128 bits) of the two with the cluster secret, so that no client
// can make up an id that names a replica, or change the replica of its own.
const (
	randomBytes = 16
	macBytes    = 16
	// MaxSessionID bounds what ParseSessionID looks at.
	MaxSessionID = MaxReplicaName + 1 + 22 + 1 + 22
)

// Strict: a decoder that ignores the spare bits of the last character would
// take several spellings of one id, and a client could hold one session
// under names the router never gave out.
var b64 = base64.RawURLEncoding.Strict()

// MintSessionID gives out a new session id of this replica.
func (c *Cluster) MintSessionID() string {
	raw := make([]byte, randomBytes)
	_, _ = rand.Read(raw) // never fails (crypto/rand, Go 1.24+)
	head := c.replica + "." + b64.EncodeToString(raw)
	return head + "." + b64.EncodeToString(c.sessionMAC(head))
}

func (c *Cluster) sessionMAC(head string) []byte {
	m := hmac.New(sha256.New, c.key("session-id"))
	m.Write([]byte(head))
	return m.Sum(nil)[:macBytes]
}

// ParseSessionID returns the replica a session id names, and false for an
// id this cluster did not give out (malformed, forged or tampered).
func (c *Cluster) ParseSessionID(id string) (replica string, ok bool) {
	if len(id) > MaxSessionID {
		return "", false
	}
	dot := strings.LastIndexByte(id, '.')
	if dot < 0 {
		return "", false
	}
	head, macText := id[:dot], id[dot+1:]
	replica, random, found := strings.Cut(head, ".")
	if !found || ValidReplicaName(replica) != nil {
		return "", false
	}
	// Exact lengths first: the decoder skips '\r' and '\n', so without
	// this "ab\rcd" would pass as a second spelling of "abcd".
	if len(random) != b64.EncodedLen(randomBytes) || len(macText) != b64.EncodedLen(macBytes) {
		return "", false
	}
	r, err := b64.DecodeString(random)
	if err != nil || len(r) != randomBytes {
		return "", false
	}
	mac, err := b64.DecodeString(macText)
	if err != nil || len(mac) != macBytes {
		return "", false
	}
	if !hmac.Equal(mac, c.sessionMAC(head)) {
		return "", false
	}
	return replica, true
}
