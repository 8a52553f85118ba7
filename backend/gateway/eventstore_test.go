package gateway

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/server"
)

type replayed struct {
	id, message string
}

func replay(t *testing.T, s *eventStore, session, after string) ([]replayed, string, error) {
	t.Helper()
	var got []replayed
	stream, err := s.ReplayEventsAfter(context.Background(), session, after, func(id string, m json.RawMessage) error {
		got = append(got, replayed{id, string(m)})
		return nil
	})
	return got, stream, err
}

func record(t *testing.T, s *eventStore, session, stream, message string) string {
	t.Helper()
	id, err := s.StoreEvent(context.Background(), session, stream, json.RawMessage(message))
	if err != nil || id == "" {
		t.Fatalf("StoreEvent: %q %v", id, err)
	}
	return id
}

func TestEventStoreReplaysOneStreamInOrder(t *testing.T) {
	s := newEventStore(DefaultEventStoreBytes)
	a1 := record(t, s, "s1", "A", `"a1"`)
	b1 := record(t, s, "s1", "B", `"b1"`)
	a2 := record(t, s, "s1", "A", `"a2"`)
	record(t, s, "s2", "A", `"other session"`)
	a3 := record(t, s, "s1", "A", `"a3"`)

	for _, c := range []struct {
		after, stream string
		want          []replayed
	}{
		{a1, "A", []replayed{{a2, `"a2"`}, {a3, `"a3"`}}},
		{a2, "A", []replayed{{a3, `"a3"`}}},
		{a3, "A", nil}, // the newest: nothing after it, still known
		{b1, "B", nil},
	} {
		got, stream, err := replay(t, s, "s1", c.after)
		if err != nil || stream != c.stream || fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("after %s: %v on %q (%v), want %v on %q", c.after, got, stream, err, c.want, c.stream)
		}
	}
}

func TestEventStoreRefusesIDsItDoesNotHoldForTheSession(t *testing.T) {
	s := newEventStore(DefaultEventStoreBytes)
	mine := record(t, s, "s1", "A", `1`)
	for _, c := range []struct{ session, id string }{
		{"s1", "no-such-id"},
		{"s1", ""},
		{"s2", mine}, // another session's event
		{"", mine},
	} {
		if _, _, err := replay(t, s, c.session, c.id); !errors.Is(err, server.ErrUnknownEventID) {
			t.Errorf("session %q after %q: %v, want ErrUnknownEventID", c.session, c.id, err)
		}
	}
}

func TestEventStoreKeepsItsOwnCopy(t *testing.T) {
	s := newEventStore(DefaultEventStoreBytes)
	buf := []byte(`"before"`)
	first := record(t, s, "s", "A", `0`)
	if _, err := s.StoreEvent(context.Background(), "s", "A", buf); err != nil {
		t.Fatal(err)
	}
	copy(buf, `"after!"`)
	got, _, _ := replay(t, s, "s", first)
	if len(got) != 1 || got[0].message != `"before"` {
		t.Fatalf("replayed %v: the store kept the caller's buffer", got)
	}
}

func TestEventStoreReturnsTheSendersError(t *testing.T) {
	s := newEventStore(DefaultEventStoreBytes)
	first := record(t, s, "s", "A", `1`)
	record(t, s, "s", "A", `2`)
	record(t, s, "s", "A", `3`)
	broken := errors.New("client went away")
	sent := 0
	_, err := s.ReplayEventsAfter(context.Background(), "s", first, func(string, json.RawMessage) error {
		sent++
		return broken
	})
	if !errors.Is(err, broken) || sent != 1 {
		t.Fatalf("err %v after %d sends, want the sender's error after 1", err, sent)
	}
}

// The store holds at most its bound: the oldest events go first, whichever
// session they belong to, and an id let go is refused like an unknown one.
func TestEventStoreIsBounded(t *testing.T) {
	const message = `"0123456789012345678901234567890123456789"` // 42 bytes
	per := len(message) + eventOverhead
	s := newEventStore(10 * per)
	var ids []string
	for i := 0; i < 100; i++ {
		ids = append(ids, record(t, s, fmt.Sprintf("s%d", i%3), "A", message))
		if s.size > s.maxBytes {
			t.Fatalf("after %d events the store holds %d bytes, over its bound of %d", i+1, s.size, s.maxBytes)
		}
	}
	if s.size != 10*per || len(s.byID) != 10 {
		t.Fatalf("holds %d bytes in %d events, want the newest 10", s.size, len(s.byID))
	}
	if _, _, err := replay(t, s, "s0", ids[0]); !errors.Is(err, server.ErrUnknownEventID) {
		t.Errorf("the oldest event is still replayed (%v)", err)
	}
	// ids[90] is s0's (90 % 3 == 0); s0's later kept ones are 93, 96, 99.
	got, _, err := replay(t, s, "s0", ids[90])
	if err != nil || len(got) != 3 || got[2].id != ids[99] {
		t.Errorf("after the oldest kept: %v %v", got, err)
	}
	if len(s.queue)-s.head != 10 || len(s.queue) > 20 {
		t.Errorf("the queue holds %d entries (%d gone), want 10 and no pile of gone ones", len(s.queue), s.head)
	}
	// Nothing let go stays reachable from the slices' spare room.
	spares := [][]*storedEvent{s.queue[len(s.queue):cap(s.queue)], s.queue[:s.head]}
	for _, log := range s.sessions {
		spares = append(spares, log.events[len(log.events):cap(log.events)], log.events[:log.head])
	}
	for _, spare := range spares {
		for _, e := range spare {
			if e != nil {
				t.Fatalf("a stale pointer to event %s is left in spare room", e.id)
			}
		}
	}
}

// Ending a session frees what it held at once.
func TestEventStorePurgeFreesTheSession(t *testing.T) {
	s := newEventStore(DefaultEventStoreBytes)
	var kept string
	for i := 0; i < 50; i++ {
		record(t, s, "gone", "A", `"x"`)
		if i == 10 {
			kept = record(t, s, "kept", "A", `"y"`)
			record(t, s, "kept", "A", `"z"`)
		}
	}
	if err := s.PurgeSession(context.Background(), "gone"); err != nil {
		t.Fatal(err)
	}
	if err := s.PurgeSession(context.Background(), "never-was"); err != nil {
		t.Fatal(err)
	}
	if want := 2 * (3 + eventOverhead); s.size != want {
		t.Errorf("holds %d bytes after the purge, want %d", s.size, want)
	}
	if len(s.queue)-s.head != 2 || s.purged != 0 {
		t.Errorf("the queue keeps %d entries, %d of them purged", len(s.queue)-s.head, s.purged)
	}
	got, _, err := replay(t, s, "kept", kept)
	if err != nil || len(got) != 1 || got[0].message != `"z"` {
		t.Errorf("the other session after the purge: %v %v", got, err)
	}
	// Eviction still works past purged entries.
	small := newEventStore(4 * (3 + eventOverhead))
	record(t, small, "a", "A", `"1"`)
	record(t, small, "b", "A", `"2"`)
	record(t, small, "a", "A", `"3"`)
	_ = small.PurgeSession(context.Background(), "b")
	for i := 0; i < 10; i++ {
		record(t, small, "c", "A", `"4"`)
	}
	if small.size != small.maxBytes || len(small.byID) != 4 {
		t.Errorf("after purge and eviction: %d bytes in %d events", small.size, len(small.byID))
	}
}

func TestEventStoreIsSafeForConcurrentUse(t *testing.T) {
	s := newEventStore(64 * (8 + eventOverhead))
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			session := fmt.Sprintf("s%d", w%3)
			var last string
			for i := 0; i < 500; i++ {
				id, _ := s.StoreEvent(context.Background(), session, "A", json.RawMessage(`"message"`))
				if last != "" {
					_, _ = s.ReplayEventsAfter(context.Background(), session, last, func(string, json.RawMessage) error { return nil })
				}
				if i%13 == 0 {
					_ = s.PurgeSession(context.Background(), session)
				}
				last = id
			}
		}(w)
	}
	wg.Wait()
	if s.size > s.maxBytes || s.size < 0 {
		t.Fatalf("holds %d bytes, bound %d", s.size, s.maxBytes)
	}
	total := 0
	for _, l := range s.sessions {
		total += len(l.events) - l.head
	}
	if total != len(s.byID) {
		t.Fatalf("sessions hold %d events, the index %d", total, len(s.byID))
	}
}

// Last-Event-ID comes from the client: any value is refused or replayed,
// never a panic, and never another session's events.
func FuzzEventStoreLastEventID(f *testing.F) {
	for _, seed := range []string{"", "1", "2", "3", "-1", "01", " 1", "1\r\n", "\x00", "99999999999999999999"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, lastID string) {
		s := newEventStore(4 * (3 + eventOverhead))
		for i := 0; i < 6; i++ {
			session := "mine"
			if i%2 == 1 {
				session = "theirs"
			}
			if _, err := s.StoreEvent(context.Background(), session, "A", json.RawMessage(`"x"`)); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.ReplayEventsAfter(context.Background(), "mine", lastID, func(id string, _ json.RawMessage) error {
			if e := s.byID[id]; e == nil || e.session != "mine" {
				t.Fatalf("after %q: replayed %q, not one of this session's kept events", lastID, id)
			}
			return nil
		})
		if err != nil && !errors.Is(err, server.ErrUnknownEventID) {
			t.Fatalf("after %q: %v", lastID, err)
		}
		if err == nil {
			if e := s.byID[lastID]; e == nil || e.session != "mine" {
				t.Fatalf("replayed after %q, which this session does not hold", lastID)
			}
		}
	})
}
