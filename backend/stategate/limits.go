package stategate

import (
	"fmt"
	"time"
)

// Limits bound what one client's input may make the router hold or do
// (docs/limits.md, "state_gate guards" and "state_gate artifacts"). The
// router reads them from its settings at every request; a zero field means
// its default. Each cap is refused with an error that names it and the
// setting that raises it.
type Limits struct {
	// MaxContextBytes caps a run's context (compact JSON): at create_run,
	// and when a stored run is loaded for its guards. Setting
	// stategateMaxContextKB.
	MaxContextBytes int64
	// MaxPayloadBytes caps an event's payload (compact JSON). Setting
	// stategateMaxPayloadKB.
	MaxPayloadBytes int64
	// GuardTimeout bounds the guard evaluations of one request (one emit,
	// one get_state, one list_events, one run's listing). Setting
	// stategateGuardTimeoutMs.
	GuardTimeout time.Duration
	// MaxArtifactBytes caps one artifact file. Setting
	// stategateMaxArtifactMB.
	MaxArtifactBytes int64
	// MaxRunArtifactsBytes caps the artifacts one run records, together.
	// Setting stategateMaxRunArtifactsMB.
	MaxRunArtifactsBytes int64
}

// Defaults of Limits (and of the settings that set them).
const (
	DefaultMaxContextBytes      = 1 << 20
	DefaultMaxPayloadBytes      = 1 << 20
	DefaultGuardTimeout         = 2 * time.Second
	DefaultMaxArtifactBytes     = 256 << 20
	DefaultMaxRunArtifactsBytes = 1 << 30
)

// Fixed caps: not settings, because no honest use comes near them.
const (
	// MaxJSONDepth bounds the nesting of a context or a payload.
	MaxJSONDepth = 64
	// MaxArtifactsPerEvent bounds the artifact_paths of one emit_event.
	MaxArtifactsPerEvent = 100
	// MaxRunArtifacts bounds how many artifacts one run records (the
	// guards see them all in `artifacts`).
	MaxRunArtifacts = 10_000
	// HashWorkers is how many artifacts the router hashes at once, over
	// every run and client: a flood of big files queues here (each waiter
	// still leaves when its client goes) instead of taking every core.
	HashWorkers = 2
	// maxRenderedPart bounds one {{ }} part of a guard's message: a
	// message is a sentence, not a way to copy a context into every
	// answer.
	maxRenderedPart = 4 << 10
)

// The settings that raise each cap, named in refusals.
const (
	settingContext      = "stategateMaxContextKB"
	settingPayload      = "stategateMaxPayloadKB"
	settingGuardTimeout = "stategateGuardTimeoutMs"
	settingArtifact     = "stategateMaxArtifactMB"
	settingRunArtifacts = "stategateMaxRunArtifactsMB"
)

func (l Limits) withDefaults() Limits {
	if l.MaxContextBytes <= 0 {
		l.MaxContextBytes = DefaultMaxContextBytes
	}
	if l.MaxPayloadBytes <= 0 {
		l.MaxPayloadBytes = DefaultMaxPayloadBytes
	}
	if l.GuardTimeout <= 0 {
		l.GuardTimeout = DefaultGuardTimeout
	}
	if l.MaxArtifactBytes <= 0 {
		l.MaxArtifactBytes = DefaultMaxArtifactBytes
	}
	if l.MaxRunArtifactsBytes <= 0 {
		l.MaxRunArtifactsBytes = DefaultMaxRunArtifactsBytes
	}
	return l
}

// byteSize writes a size the way a person reads it: 512 bytes, 1.5 KiB,
// 10.0 GiB.
func byteSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 4; m /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTP"[exp])
}
