package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Report is what a soak run found.
type Report struct {
	O          Options
	Marker     string // the MCPR_SOAK_MARKER value of the run's processes
	Kinds      [numKinds]KindCounts
	Notes      int64 // progress and log notifications received
	ListChange int64
	Opened     int64
	Closed     int64
	Kills      int
	Restarts   int
	Failures   []string
	Samples    []Sample
	// Goroutines before the first session and 2 s after the last closed.
	GoroutinesBefore, GoroutinesAfter int
	RSS, Goroutines                   Flatness
}

// KindCounts are the outcomes of one kind of request.
type KindCounts struct {
	Sent, OK, ErrRestart, ErrUnexpected, Unanswered int64
}

// Flatness compares the mean of the second window with that of the last.
type Flatness struct {
	Second, Last float64
	N2, NL       int // samples in each window
	Flat         bool
}

func (f Flatness) change() float64 {
	if f.Second == 0 {
		return 0
	}
	return f.Last/f.Second - 1
}

func (s *soak) report(before, after int) *Report {
	s.mu.Lock()
	defer s.mu.Unlock()
	r := &Report{
		O: s.o, Notes: s.notes.Load(), ListChange: s.listCh.Load(), Opened: s.opened.Load(), Closed: s.closed.Load(),
		Kills: len(s.kills), Restarts: s.restarts, Failures: append([]string(nil), s.failures...),
		Samples: append([]Sample(nil), s.samples...), GoroutinesBefore: before, GoroutinesAfter: after,
	}
	for i := range s.kinds {
		k := &s.kinds[i]
		r.Kinds[i] = KindCounts{k.sent.Load(), k.ok.Load(), k.errRestart.Load(), k.errUnexpected.Load(), k.unanswered.Load()}
	}
	r.RSS = flatness(r.Samples, s.o, func(sm Sample) float64 { return float64(sm.RSS) })
	r.Goroutines = flatness(r.Samples, s.o, func(sm Sample) float64 { return float64(sm.Goroutines) })
	return r
}

// flatness: the second window is [W, 2W), the last [D-W, D]. Flat means the
// last window's mean is at most Tolerance above the second's (a fall is not
// a leak). A window without samples is not flat: there is nothing to show.
func flatness(samples []Sample, o Options, v func(Sample) float64) Flatness {
	var f Flatness
	var s2, sl float64
	for _, sm := range samples {
		if sm.At >= o.Window && sm.At < 2*o.Window {
			s2 += v(sm)
			f.N2++
		}
		if sm.At >= o.Duration-o.Window {
			sl += v(sm)
			f.NL++
		}
	}
	if f.N2 == 0 || f.NL == 0 {
		return f
	}
	f.Second, f.Last = s2/float64(f.N2), sl/float64(f.NL)
	f.Flat = f.Last <= f.Second*(1+o.Tolerance)
	return f
}

// Totals sums the outcomes of every kind.
func (r *Report) Totals() KindCounts {
	var t KindCounts
	for _, k := range r.Kinds {
		t.Sent += k.Sent
		t.OK += k.OK
		t.ErrRestart += k.ErrRestart
		t.ErrUnexpected += k.ErrUnexpected
		t.Unanswered += k.Unanswered
	}
	return t
}

// Passed: every request answered, errors only around an upstream restart,
// every kill followed by a restart, and RSS and goroutines flat.
func (r *Report) Passed() bool {
	t := r.Totals()
	return t.Unanswered == 0 && t.ErrUnexpected == 0 && len(r.Failures) == 0 && r.RSS.Flat && r.Goroutines.Flat
}

// Print writes the figures, the curve and the verdict.
func (r *Report) Print(w io.Writer) {
	t := r.Totals()
	fmt.Fprintf(w, "\nMCP Router soak — %s, %d sessions, pause %s, churn ~%d requests, upstream killed every %s\n", r.O.Duration, r.O.Sessions, r.O.Pause, r.O.Churn, r.O.KillEvery)
	fmt.Fprintf(w, "%-14s %9s %9s %12s %12s %11s\n", "request", "sent", "ok", "err/restart", "err/other", "unanswered")
	for i, k := range r.Kinds {
		fmt.Fprintf(w, "%-14s %9d %9d %12d %12d %11d\n", kindNames[i], k.Sent, k.OK, k.ErrRestart, k.ErrUnexpected, k.Unanswered)
	}
	fmt.Fprintf(w, "%-14s %9d %9d %12d %12d %11d\n", "all", t.Sent, t.OK, t.ErrRestart, t.ErrUnexpected, t.Unanswered)
	fmt.Fprintf(w, "%.0f requests/s; sessions opened %d, closed %d; notifications received %d (progress and log), tools/list_changed %d\n",
		float64(t.Sent)/r.O.Duration.Seconds(), r.Opened, r.Closed, r.Notes, r.ListChange)
	fmt.Fprintf(w, "upstream killed %d times, restarted %d times; router goroutines %d before the sessions, %d after they closed\n",
		r.Kills, r.Restarts, r.GoroutinesBefore, r.GoroutinesAfter)
	fmt.Fprintln(w, "\ncurve (router process):")
	fmt.Fprintf(w, "%8s %9s %11s %10s\n", "t", "RSS MiB", "goroutines", "requests")
	for _, sm := range r.Samples {
		fmt.Fprintf(w, "%8s %9.1f %11d %10d\n", sm.At.Round(time.Second), float64(sm.RSS)/(1<<20), sm.Goroutines, sm.Requests)
	}
	fmt.Fprintf(w, "\nflat = the last %s's mean at most %.0f%% above the second %s's:\n", r.O.Window, r.O.Tolerance*100, r.O.Window)
	fmt.Fprintf(w, "  RSS        %.1f → %.1f MiB (%+.1f%%) — %s\n", r.RSS.Second/(1<<20), r.RSS.Last/(1<<20), r.RSS.change()*100, flatWord(r.RSS.Flat))
	fmt.Fprintf(w, "  goroutines %.0f → %.0f (%+.1f%%) — %s\n", r.Goroutines.Second, r.Goroutines.Last, r.Goroutines.change()*100, flatWord(r.Goroutines.Flat))
	if len(r.Failures) > 0 {
		fmt.Fprintf(w, "\nfirst failures:\n  %s\n", strings.Join(r.Failures, "\n  "))
	}
	verdict := "PASS"
	if !r.Passed() {
		verdict = "FAIL"
	}
	fmt.Fprintf(w, "\nverdict: %s (unanswered %d, error answers outside a restart %d, RSS %s, goroutines %s)\n",
		verdict, t.Unanswered, t.ErrUnexpected, flatWord(r.RSS.Flat), flatWord(r.Goroutines.Flat))
}

func flatWord(flat bool) string {
	if flat {
		return "flat"
	}
	return "NOT flat"
}
