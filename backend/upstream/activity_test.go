package upstream

import (
	"errors"
	"testing"
	"time"
)

// The causes of timeouts are worded once per timeout, and no more than
// maxTimeoutCauses are kept however many distinct timeouts come by (the
// cache kept one per timeout for good, which a server set, or a setting
// edited, with ever new timeouts grew without end).
func TestTimeoutCausesAreBounded(t *testing.T) {
	for i := 1; i <= 1000; i++ {
		d := time.Duration(i) * time.Millisecond
		e := timeoutCause(d)
		if want := "timed out: no answer within " + d.String(); e.Error() != want || !errors.Is(e, ErrTimeout) {
			t.Fatalf("cause %q, want %q wrapping ErrTimeout", e, want)
		}
		if again := timeoutCause(d); again != e {
			t.Fatalf("the cause of %s was worded twice in a row", d)
		}
	}
	n := 0
	timeoutCauses.byTimeout.Range(func(any, any) bool { n++; return true })
	if n > maxTimeoutCauses {
		t.Fatalf("%d causes kept, want at most %d", n, maxTimeoutCauses)
	}
}
