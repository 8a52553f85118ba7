package main

import (
	"strings"
	"testing"
)

// The CPU-per-call line names the run's figure, the starting figure
// and whether the target is met, on either side of it.
func TestCPUPerCallLine(t *testing.T) {
	for _, c := range []struct {
		us   float64
		want []string
	}{
		{54, []string{"router CPU per forwarded call: 54 µs", "issue 29's figure: 57–63 µs", "-10% against 60", "≤ 30 µs — missed"}},
		{30, []string{"30 µs", "-50% against 60", "— met"}},
		{29.6, []string{"30 µs", "— met"}},
		{30.4, []string{"30 µs", "— missed"}},
	} {
		got := cpuPerCallLine(c.us)
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("cpuPerCallLine(%g) = %q, want it to hold %q", c.us, got, w)
			}
		}
	}
}
