package health

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sirupsen/logrus"
	logtest "github.com/sirupsen/logrus/hooks/test"
)

func probe(t *testing.T, h http.Handler, method, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	body, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(body)
}

func quiet() logrus.FieldLogger {
	l, _ := logtest.NewNullLogger()
	return l
}

func TestReadyWhenTheDatabaseAnswers(t *testing.T) {
	h := New(Options{Ping: func(context.Context) error { return nil }, Logger: quiet()})
	for _, p := range []string{PathReady, PathLive} {
		if code, body := probe(t, h, http.MethodGet, p); code != http.StatusOK || body != "ok" {
			t.Errorf("GET %s: %d %q, want 200 ok", p, code, body)
		}
	}
	if code, _ := probe(t, h, http.MethodHead, PathReady); code != http.StatusOK {
		t.Errorf("HEAD %s: %d", PathReady, code)
	}
}

// The reason names no host, port or driver message: the probe needs no
// token, and a Postgres error says where the database is.
func TestNotReadyNamesTheReasonAndNothingElse(t *testing.T) {
	logger, hook := logtest.NewNullLogger()
	secret := errors.New("dial tcp 10.1.2.3:5432: connect: connection refused (user=mcpdbuser password=hunter2)")
	h := New(Options{Ping: func(context.Context) error { return secret }, Logger: logger})
	code, body := probe(t, h, http.MethodGet, PathReady)
	if code != http.StatusServiceUnavailable {
		t.Fatalf("GET %s with a failing database: %d %q, want 503", PathReady, code, body)
	}
	if !strings.Contains(body, "database unavailable") {
		t.Errorf("the reason %q does not say the database is unavailable", body)
	}
	for _, leak := range []string{"10.1.2.3", "5432", "hunter2", "mcpdbuser"} {
		if strings.Contains(body, leak) {
			t.Errorf("the probe's body %q reveals %q", body, leak)
		}
	}
	// The operator gets the whole error, once per change, not once per probe.
	probe(t, h, http.MethodGet, PathReady)
	var warned int
	for _, e := range hook.AllEntries() {
		if e.Level == logrus.WarnLevel && errors.Is(e.Data[logrus.ErrorKey].(error), secret) {
			warned++
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings with the error for two failing probes, want 1", warned)
	}
	// Liveness does not depend on the database.
	if code, body := probe(t, h, http.MethodGet, PathLive); code != http.StatusOK || body != "ok" {
		t.Errorf("GET %s with a failing database: %d %q, want 200 ok", PathLive, code, body)
	}
}

// A database that hangs, even one whose driver ignores the context, gets
// a 503 within the timeout, not a hung probe; probes that come while it
// hangs share the stuck check instead of starting more.
func TestHungDatabaseAnswers503WithinTheTimeout(t *testing.T) {
	release := make(chan struct{})
	var pings atomic.Int32
	h := New(Options{Timeout: 200 * time.Millisecond, Logger: quiet(), Ping: func(context.Context) error {
		pings.Add(1)
		<-release // ignores ctx on purpose
		return nil
	}})
	start := time.Now()
	var wg sync.WaitGroup
	codes := make([]int, 5)
	bodies := make([]string, 5)
	for i := range codes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			codes[i], bodies[i] = probe(t, h, http.MethodGet, PathReady)
		}()
	}
	wg.Wait()
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("probes of a hung database took %v, the timeout is 200ms", took)
	}
	for i := range codes {
		if codes[i] != http.StatusServiceUnavailable || !strings.Contains(bodies[i], "did not answer within 200ms") {
			t.Errorf("probe %d of a hung database: %d %q, want 503 naming the timeout", i, codes[i], bodies[i])
		}
	}
	if n := pings.Load(); n != 1 {
		t.Errorf("%d database checks for 5 probes while one hangs, want 1", n)
	}
	close(release)
	// Once the database answers again, the next probe is ready.
	deadline := time.Now().Add(2 * time.Second)
	for {
		code, _ := probe(t, h, http.MethodGet, PathReady)
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still %d after the database answered", code)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// A driver that honours the context reports the deadline: the reason is
// the timeout, as for one that hangs.
func TestSlowDatabaseHonouringTheContext(t *testing.T) {
	h := New(Options{Timeout: 100 * time.Millisecond, Logger: quiet(), Ping: func(ctx context.Context) error {
		<-ctx.Done()
		return ctx.Err()
	}})
	code, body := probe(t, h, http.MethodGet, PathReady)
	if code != http.StatusServiceUnavailable || !strings.Contains(body, "did not answer within 100ms") {
		t.Errorf("slow database: %d %q", code, body)
	}
}

func TestProbesRefuseOtherMethodsAndPaths(t *testing.T) {
	var pings atomic.Int32
	h := New(Options{Logger: quiet(), Ping: func(context.Context) error { pings.Add(1); return nil }})
	if code, _ := probe(t, h, http.MethodPost, PathReady); code != http.StatusMethodNotAllowed {
		t.Errorf("POST %s: %d, want 405", PathReady, code)
	}
	if code, _ := probe(t, h, http.MethodGet, "/healthzz"); code != http.StatusNotFound {
		t.Errorf("GET /healthzz: %d, want 404", code)
	}
	if pings.Load() != 0 {
		t.Errorf("a refused probe checked the database")
	}
}
