package hotpath

import (
	"runtime"
	"testing"
)

func TestSetupRunsOnOneP(t *testing.T) {
	orig := runtime.GOMAXPROCS(0)
	defer runtime.GOMAXPROCS(orig)
	t.Setenv("GOMAXPROCS", "")
	t.Setenv("GOGC", "100") // the GC tuner has its own tests (gc_test.go)
	if got := Setup(); got != 1 || runtime.GOMAXPROCS(0) != 1 {
		t.Fatalf("Setup() = %d, GOMAXPROCS %d; want 1", got, runtime.GOMAXPROCS(0))
	}
}

func TestSetupLeavesAnExplicitGOMAXPROCS(t *testing.T) {
	orig := runtime.GOMAXPROCS(3)
	defer runtime.GOMAXPROCS(orig)
	t.Setenv("GOMAXPROCS", "3")
	t.Setenv("GOGC", "100")
	if got := Setup(); got != 3 {
		t.Fatalf("Setup() with GOMAXPROCS=3 set = %d, want 3 left alone", got)
	}
}
