package teamstate

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/mcp-router/mcp-router/backend/policy"
)

// BucketPrefix starts the keys of the rate-limit buckets.
const BucketPrefix = Prefix + "rl:"

// Buckets are the policy's rate-limit buckets in Redis
// (policy.SharedBuckets).
//
// github.com/go-redis/redis_rate/v10 was the first choice; it is not used
// because it puts its own "rate:" before every key (the router's keys all
// start with mcpr:) and takes one key per call, where a call two rules
// limit must take a token from both or from neither. The script below is
// the same GCRA (one timestamp per bucket, no counters to sweep), over
// several keys at once, with Redis's clock so replicas' clocks need not
// agree.
type Buckets struct {
	rdb redis.UniversalClient
}

var _ policy.SharedBuckets = (*Buckets)(nil)

// NewBuckets keeps the buckets in rdb.
func NewBuckets(rdb redis.UniversalClient) *Buckets { return &Buckets{rdb: rdb} }

// gcra: KEYS are the buckets; ARGV[1] is "take" or "peek", ARGV[1+i] the
// calls a minute of KEYS[i]. A bucket holds its theoretical arrival time
// (ms since 2026-01-01); a bucket of n a minute allows a call while that
// time is at most a minute ahead of now. Returns {refused index (0: none),
// wait in ms as a string}.
var gcra = redis.NewScript(`
local t = redis.call("TIME")
local now = (tonumber(t[1]) - 1767225600) * 1000 + tonumber(t[2]) / 1000
local take = ARGV[1] == "take"
local refused, worst = 0, 0
local tats = {}
for i, key in ipairs(KEYS) do
  local interval = 60000 / tonumber(ARGV[i + 1])
  local tat = now
  local v = redis.call("GET", key)
  if v then
    tat = math.max(tonumber(v), now)
  end
  local new_tat = tat + interval
  local wait = new_tat - 60000 - now
  if wait > worst then
    refused, worst = i, wait
  end
  tats[i] = new_tat
end
if refused > 0 or not take then
  return {refused, tostring(worst)}
end
for i, key in ipairs(KEYS) do
  redis.call("SET", key, tostring(tats[i]), "PX", math.ceil(tats[i] - now) + 1000)
end
return {0, "0"}
`)

// Take implements policy.SharedBuckets.
func (b *Buckets) Take(ctx context.Context, buckets []policy.SharedBucket, take bool) (int, time.Duration, error) {
	if len(buckets) == 0 {
		return -1, 0, nil
	}
	keys := make([]string, len(buckets))
	args := make([]any, 1, len(buckets)+1)
	args[0] = "peek"
	if take {
		args[0] = "take"
	}
	for i, bk := range buckets {
		if bk.PerMinute <= 0 {
			return 0, 0, fmt.Errorf("bucket %d: %d calls a minute", i, bk.PerMinute)
		}
		keys[i] = BucketPrefix + bk.ID
		args = append(args, bk.PerMinute)
	}
	ctx, cancel := bounded(ctx)
	defer cancel()
	res, err := gcra.Run(ctx, b.rdb, keys, args...).Slice()
	if err != nil {
		return 0, 0, redisError("rate-limit buckets", err)
	}
	if len(res) != 2 {
		return 0, 0, redisError("rate-limit buckets", fmt.Errorf("the script answered %v", res))
	}
	idx, _ := res[0].(int64)
	if idx == 0 {
		return -1, 0, nil
	}
	s, _ := res[1].(string)
	ms, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, 0, redisError("rate-limit buckets", fmt.Errorf("the script answered wait %q", s))
	}
	return int(idx) - 1, time.Duration(ms * float64(time.Millisecond)), nil
}
