//go:build !mattn

package store

import (
	"math/rand/v2"
	"testing"
	"time"
)

// TestAppendLogTimeIsTimeString holds appendLogTime to what modernc stores
// for a bound time.Time, t.String(), byte for byte: every fraction length,
// the edges of the day and of the four-digit years, times with a monotonic
// reading made UTC as Insert does, other zones and years it hands to
// t.String(), and random instants.
func TestAppendLogTimeIsTimeString(t *testing.T) {
	zone := time.FixedZone("UTC+9", 9*3600)
	times := []time.Time{
		{}, time.Now().UTC(), time.Now(), time.Now().In(zone), time.Unix(0, 0).UTC(),
		time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC), time.Date(2026, 12, 31, 23, 59, 59, 999999999, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 1, time.UTC), time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC), time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(999, 5, 6, 7, 8, 9, 100, time.UTC), time.Date(2026, 1, 2, 3, 4, 5, 6, zone),
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.FixedZone("", 0)),
	}
	for ns := 1; ns < 1e9; ns *= 10 { // every count of trailing zeros
		times = append(times, time.Date(2026, 6, 7, 8, 9, 10, ns, time.UTC), time.Date(2026, 6, 7, 8, 9, 10, ns*9/10*10+ns/10, time.UTC))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		times = append(times, time.Unix(rng.Int64N(253402300800), rng.Int64N(1e9)).UTC())
	}
	for _, tm := range times {
		if got, want := string(appendLogTime(nil, tm)), tm.String(); got != want {
			t.Fatalf("appendLogTime(%v) = %q, want %q", tm, got, want)
		}
		if got, want := string(appendLogTime(nil, tm.UTC())), tm.UTC().String(); got != want {
			t.Fatalf("appendLogTime(%v) = %q, want %q", tm.UTC(), got, want)
		}
	}
}

func BenchmarkAppendLogTime(b *testing.B) {
	tm := time.Now().UTC()
	var buf []byte
	for b.Loop() {
		buf = appendLogTime(buf[:0], tm)
	}
}

func BenchmarkTimeString(b *testing.B) {
	tm := time.Now().UTC()
	for b.Loop() {
		_ = tm.String()
	}
}
