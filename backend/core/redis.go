package core

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisTimeout bounds connecting to Redis and each command's socket
// reads and writes: a Redis that went away refuses calls within it, never
// hangs them.
const redisTimeout = 2 * time.Second

// CheckRedisURL reports whether raw is a Redis URL the router can use
// (redis://, rediss:// or unix://), with the password left out of the
// error.
func CheckRedisURL(raw string) error {
	_, err := redisOptions(raw)
	return err
}

func redisOptions(raw string) (*redis.Options, error) {
	o, err := redis.ParseURL(raw)
	if err != nil {
		return nil, fmt.Errorf("bad Redis URL %s: %s (want redis://[:password@]host:port/db)", redactURL(raw), scrub(err.Error(), raw))
	}
	o.DialTimeout, o.ReadTimeout, o.WriteTimeout = redisTimeout, redisTimeout, redisTimeout
	o.ContextTimeoutEnabled = true
	// One retry: a dropped connection is re-dialled once, not three times
	// (each up to redisTimeout) while a call waits.
	o.MaxRetries = 1
	return o, nil
}

// openRedis connects to the Redis at url and checks it answers.
func openRedis(ctx context.Context, raw string) (*redis.Client, error) {
	o, err := redisOptions(raw)
	if err != nil {
		return nil, err
	}
	rdb := redis.NewClient(o)
	pctx, cancel := context.WithTimeout(ctx, 2*redisTimeout)
	defer cancel()
	if err := rdb.Ping(pctx).Err(); err != nil {
		_ = rdb.Close()
		return nil, fmt.Errorf("redis at %s does not answer: %w", redactURL(raw), errors.New(scrub(err.Error(), raw)))
	}
	return rdb, nil
}

// redactURL is raw with its password replaced, for errors and the log.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}

// scrub takes raw's password out of msg (a parse error quotes the URL).
func scrub(msg, raw string) string {
	u, err := url.Parse(raw)
	if err == nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
		return msg
	}
	if at := strings.LastIndex(raw, "@"); at > 0 {
		if scheme := strings.Index(raw, "://"); scheme >= 0 && scheme+3 < at {
			msg = strings.ReplaceAll(msg, raw[scheme+3:at], "xxxxx")
		}
	}
	return msg
}
