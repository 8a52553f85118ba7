package settings

import (
	"context"
	"testing"
	"time"
)

// state_gate's caps: their defaults as typed values, their bounds, and a
// changed value read back.
func TestStateGateSettings(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	if s.StateGateMaxContextBytes(ctx) != 1<<20 || s.StateGateMaxPayloadBytes(ctx) != 1<<20 ||
		s.StateGateGuardTimeout(ctx) != 2*time.Second || s.StateGateMaxArtifactBytes(ctx) != 256<<20 ||
		s.StateGateMaxRunArtifactsBytes(ctx) != 1<<30 {
		t.Fatalf("defaults: context %d payload %d timeout %v artifact %d run %d", s.StateGateMaxContextBytes(ctx),
			s.StateGateMaxPayloadBytes(ctx), s.StateGateGuardTimeout(ctx), s.StateGateMaxArtifactBytes(ctx), s.StateGateMaxRunArtifactsBytes(ctx))
	}
	for _, c := range []struct{ key, value string }{
		{KeyStateGateMaxContextKB, "0"}, {KeyStateGateMaxContextKB, "65537"},
		{KeyStateGateMaxPayloadKB, "0"}, {KeyStateGateGuardTimeoutMs, "9"}, {KeyStateGateGuardTimeoutMs, "60001"},
		{KeyStateGateMaxArtifactMB, "0"}, {KeyStateGateMaxRunArtifactsMB, "1048577"},
	} {
		if _, err := Validate(c.key, c.value); err == nil {
			t.Errorf("%s = %s was accepted", c.key, c.value)
		}
	}
	if err := s.Set(ctx, KeyStateGateMaxContextKB, "8192"); err != nil {
		t.Fatal(err)
	}
	if err := s.Set(ctx, KeyStateGateGuardTimeoutMs, "250"); err != nil {
		t.Fatal(err)
	}
	if s.StateGateMaxContextBytes(ctx) != 8<<20 || s.StateGateGuardTimeout(ctx) != 250*time.Millisecond {
		t.Fatalf("after set: context %d timeout %v", s.StateGateMaxContextBytes(ctx), s.StateGateGuardTimeout(ctx))
	}
}
