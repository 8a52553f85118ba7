package settings

import (
	"context"
	"sort"
	"strconv"
	"time"
)

// The bounds of the tasks the router passes on to upstreams
// (docs/limits.md, "Tasks").
const (
	KeyTasksPerCredential = "tasksPerCredential" // tasks one credential may hold at once
	KeyTasksTotal         = "tasksTotal"         // tasks all clients together may hold
	KeyTaskMaxAgeSeconds  = "taskMaxAgeSeconds"  // seconds after its creation a task is forgotten at the latest
)

// Defaults of the task settings: the gateway's own
// (gateway.DefaultTasksPerCredential, …; core's tests hold them equal).
const (
	DefaultTasksPerCredential = 64
	DefaultTasksTotal         = 1024
	DefaultTaskMaxAgeSeconds  = 3600
)

func init() {
	defs = append(defs,
		Def{Key: KeyTasksPerCredential, Default: strconv.Itoa(DefaultTasksPerCredential), Allowed: "a whole number from 1 to 10000",
			Help:  "tasks one credential (token, JWT subject, or anonymous) may hold at once; past it a task-augmented call is refused",
			check: intRange(1, 10000)},
		Def{Key: KeyTasksTotal, Default: strconv.Itoa(DefaultTasksTotal), Allowed: "a whole number from 1 to 100000",
			Help: "tasks all clients together may hold at once; past it a task-augmented call is refused", check: intRange(1, 100000)},
		Def{Key: KeyTaskMaxAgeSeconds, Default: strconv.Itoa(DefaultTaskMaxAgeSeconds), Allowed: "a whole number of seconds from 60 to 604800",
			Help: "seconds after its creation the router forgets a task at the latest (sooner if its server's ttl is shorter)", check: intRange(60, 604800)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// TasksPerCredential is how many tasks one credential may hold.
func (s *Settings) TasksPerCredential(ctx context.Context) int {
	return s.validInt(ctx, KeyTasksPerCredential)
}

// TasksTotal is how many tasks all clients together may hold.
func (s *Settings) TasksTotal(ctx context.Context) int { return s.validInt(ctx, KeyTasksTotal) }

// TaskMaxAge is how long after its creation a task is kept at the latest.
func (s *Settings) TaskMaxAge(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeyTaskMaxAgeSeconds)) * time.Second
}
