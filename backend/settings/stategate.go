package settings

import (
	"context"
	"sort"
	"strconv"
	"time"
)

// state_gate's caps on what one client may make the router hold or do
// (docs/limits.md, "state_gate guards" and "state_gate artifacts").
const (
	KeyStateGateMaxContextKB      = "stategateMaxContextKB"      // a run's context, as compact JSON
	KeyStateGateMaxPayloadKB      = "stategateMaxPayloadKB"      // an event's payload, as compact JSON
	KeyStateGateGuardTimeoutMs    = "stategateGuardTimeoutMs"    // the guards of one emit or one view, together
	KeyStateGateMaxArtifactMB     = "stategateMaxArtifactMB"     // one artifact file
	KeyStateGateMaxRunArtifactsMB = "stategateMaxRunArtifactsMB" // every artifact of one run, together
)

// Defaults of the state_gate caps.
const (
	DefaultStateGateMaxContextKB      = 1024
	DefaultStateGateMaxPayloadKB      = 1024
	DefaultStateGateGuardTimeoutMs    = 2000
	DefaultStateGateMaxArtifactMB     = 256
	DefaultStateGateMaxRunArtifactsMB = 1024
)

func init() {
	defs = append(defs,
		Def{Key: KeyStateGateMaxContextKB, Default: strconv.Itoa(DefaultStateGateMaxContextKB), Allowed: "a whole number of kilobytes from 1 to 65536",
			Help: "largest context (compact JSON) a state_gate run may be created with or loaded with", check: intRange(1, 65536)},
		Def{Key: KeyStateGateMaxPayloadKB, Default: strconv.Itoa(DefaultStateGateMaxPayloadKB), Allowed: "a whole number of kilobytes from 1 to 65536",
			Help: "largest payload (compact JSON) of one state_gate event", check: intRange(1, 65536)},
		Def{Key: KeyStateGateGuardTimeoutMs, Default: strconv.Itoa(DefaultStateGateGuardTimeoutMs), Allowed: "a whole number of milliseconds from 10 to 60000",
			Help: "time the state_gate guards of one emit_event, get_state or list_events may take together", check: intRange(10, 60000)},
		Def{Key: KeyStateGateMaxArtifactMB, Default: strconv.Itoa(DefaultStateGateMaxArtifactMB), Allowed: "a whole number of megabytes from 1 to 65536",
			Help: "largest file a state_gate event may submit as an artifact", check: intRange(1, 65536)},
		Def{Key: KeyStateGateMaxRunArtifactsMB, Default: strconv.Itoa(DefaultStateGateMaxRunArtifactsMB), Allowed: "a whole number of megabytes from 1 to 1048576",
			Help: "total size of the artifacts one state_gate run may record", check: intRange(1, 1048576)},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// StateGateMaxContextBytes caps a run's context.
func (s *Settings) StateGateMaxContextBytes(ctx context.Context) int64 {
	return int64(s.validInt(ctx, KeyStateGateMaxContextKB)) << 10
}

// StateGateMaxPayloadBytes caps an event's payload.
func (s *Settings) StateGateMaxPayloadBytes(ctx context.Context) int64 {
	return int64(s.validInt(ctx, KeyStateGateMaxPayloadKB)) << 10
}

// StateGateGuardTimeout bounds the guards of one request.
func (s *Settings) StateGateGuardTimeout(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeyStateGateGuardTimeoutMs)) * time.Millisecond
}

// StateGateMaxArtifactBytes caps one artifact.
func (s *Settings) StateGateMaxArtifactBytes(ctx context.Context) int64 {
	return int64(s.validInt(ctx, KeyStateGateMaxArtifactMB)) << 20
}

// StateGateMaxRunArtifactsBytes caps a run's artifacts together.
func (s *Settings) StateGateMaxRunArtifactsBytes(ctx context.Context) int64 {
	return int64(s.validInt(ctx, KeyStateGateMaxRunArtifactsMB)) << 20
}
