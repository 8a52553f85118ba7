package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"sync"

	"github.com/mark3labs/mcp-go/server"
)

// The /mcp endpoint keeps its event streams resumable (the transport
// spec's "Resumability and Redelivery"): every message sent on an event
// stream is recorded here first, under an id, and a client whose stream
// broke asks again with Last-Event-ID to be sent what it missed.
//
// It is also what keeps mcp-go from losing messages: without an event store,
// a notification sent during a request can be taken off the session's queue
// by the request's forwarder and then dropped, having lost the race to the
// answer (mark3labs/mcp-go#969); with one, the answer waits for the
// forwarder. TestLogMessagesDuringACallAllReachTheClient holds it to that.

// DefaultEventStoreBytes bounds what the /mcp endpoint keeps for resuming
// streams, across all sessions.
const DefaultEventStoreBytes = 16 << 20

// eventOverhead is what one recorded event costs besides its message.
const eventOverhead = 96

// eventStore is a bounded, in-memory server.EventStore. mcp-go's own keeps
// every event until its session ends, and a session whose client went away
// without ending it never does; this one lets go of the oldest events,
// whichever session they belong to, once it holds maxBytes. A client that
// resumes after an event that was let go is refused (mcp-go answers 400,
// "Unknown Last-Event-ID") and starts over, as it would after a restart.
type eventStore struct {
	maxBytes int

	mu       sync.Mutex
	seq      uint64
	size     int
	queue    []*storedEvent // every event kept, oldest first
	head     int            // queue[:head] are gone
	purged   int            // events in the queue whose session ended
	byID     map[string]*storedEvent
	sessions map[string]*sessionEvents
}

type storedEvent struct {
	id, session, stream string
	seq                 uint64
	message             json.RawMessage
	purged              bool // its session ended: skipped when evicting
}

// sessionEvents are one session's events still kept, oldest first.
type sessionEvents struct {
	events []*storedEvent
	head   int
}

var _ server.EventStore = (*eventStore)(nil)

func newEventStore(maxBytes int) *eventStore {
	return &eventStore{
		maxBytes: maxBytes,
		byID:     make(map[string]*storedEvent),
		sessions: make(map[string]*sessionEvents),
	}
}

func (s *eventStore) StoreEvent(_ context.Context, sessionID, streamID string, message json.RawMessage) (string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq++
	e := &storedEvent{
		id:      strconv.FormatUint(s.seq, 10),
		session: sessionID,
		stream:  streamID,
		seq:     s.seq,
		message: append(json.RawMessage(nil), message...), // the caller may reuse its buffer
	}
	s.byID[e.id] = e
	log := s.sessions[sessionID]
	if log == nil {
		log = &sessionEvents{}
		s.sessions[sessionID] = log
	}
	log.events = append(log.events, e)
	s.queue = append(s.queue, e)
	s.size += len(e.message) + eventOverhead
	for s.size > s.maxBytes && s.head < len(s.queue) {
		s.evictOldest()
	}
	return e.id, nil
}

// evictOldest lets go of the oldest event kept. Events go in the order
// they came, so it is also the oldest of its session's.
func (s *eventStore) evictOldest() {
	e := s.queue[s.head]
	s.queue[s.head] = nil
	s.head++
	if s.head > len(s.queue)/2 {
		n := copy(s.queue, s.queue[s.head:])
		clear(s.queue[n:]) // no stale pointers past the end
		s.queue, s.head = s.queue[:n], 0
	}
	if e.purged {
		s.purged--
		return
	}
	s.size -= len(e.message) + eventOverhead
	delete(s.byID, e.id)
	log := s.sessions[e.session]
	log.events[log.head] = nil
	log.head++
	if log.head == len(log.events) {
		delete(s.sessions, e.session)
	} else if log.head > len(log.events)/2 {
		n := copy(log.events, log.events[log.head:])
		clear(log.events[n:])
		log.events, log.head = log.events[:n], 0
	}
}

// ReplayEventsAfter sends the events of lastEventID's stream recorded after
// it, oldest first, and names the stream. The store's lock is not held
// while sending: a slow client holds up nobody else.
func (s *eventStore) ReplayEventsAfter(_ context.Context, sessionID, lastEventID string, send func(eventID string, message json.RawMessage) error) (string, error) {
	s.mu.Lock()
	last, ok := s.byID[lastEventID]
	if !ok || last.session != sessionID {
		s.mu.Unlock()
		return "", fmt.Errorf("%w: %q", server.ErrUnknownEventID, lastEventID)
	}
	log := s.sessions[sessionID]
	kept := log.events[log.head:]
	after := sort.Search(len(kept), func(i int) bool { return kept[i].seq > last.seq })
	// Copied under the lock: a purge or an eviction may let go of the
	// events themselves meanwhile (the messages' bytes are never changed).
	type event struct {
		id      string
		message json.RawMessage
	}
	var tail []event
	for _, e := range kept[after:] {
		if e.stream == last.stream {
			tail = append(tail, event{e.id, e.message})
		}
	}
	stream := last.stream
	s.mu.Unlock()
	for _, e := range tail {
		if err := send(e.id, e.message); err != nil {
			return "", err
		}
	}
	return stream, nil
}

// PurgeSession forgets a session's events; mcp-go calls it when the session
// ends.
func (s *eventStore) PurgeSession(_ context.Context, sessionID string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	log := s.sessions[sessionID]
	if log == nil {
		return nil
	}
	for _, e := range log.events[log.head:] {
		e.purged = true
		s.size -= len(e.message) + eventOverhead
		e.message = nil
		delete(s.byID, e.id)
		s.purged++
	}
	delete(s.sessions, sessionID)
	// The queue lets go of purged events as it reaches them; when they are
	// most of it, sooner.
	if s.purged > (len(s.queue)-s.head)/2 {
		kept := s.queue[:0]
		for _, e := range s.queue[s.head:] {
			if !e.purged {
				kept = append(kept, e)
			}
		}
		clear(s.queue[len(kept):])
		s.queue, s.head, s.purged = kept, 0, 0
	}
	return nil
}
