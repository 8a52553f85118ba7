package upstream

import (
	"errors"
	"net/http"
	"strconv"
	"time"
)

// The GET stream of a streamTransport: the server's own messages outside
// any call.

// errNoStream marks a GET the server does not offer (405), or a session it
// no longer knows (404).
var errNoStream = errors.New("no GET stream")

// listen keeps the GET stream open for the server's own messages
// (notifications, and requests outside any call), reopening it a second
// after it ends, until Close or until the server says it has none.
func (t *streamTransport) listen() {
	defer t.wg.Done()
	defer t.listened.Store(false) // a new session may open it again
	opened := false
	for {
		err := t.listenOnce(&opened)
		if errors.Is(err, errNoStream) {
			return
		}
		timer := time.NewTimer(time.Second)
		select {
		case <-timer.C:
		case <-t.done:
			timer.Stop()
			return
		case <-t.ctx.Done():
			timer.Stop()
			return
		}
	}
}

func (t *streamTransport) listenOnce(opened *bool) error {
	if t.isClosed() || t.ctx.Err() != nil {
		return errNoStream
	}
	// A connection of its own: the stream lasts.
	c, resp, sentSession, err := t.exchange(t.ctx, http.MethodGet, nil, "", true)
	if err != nil {
		if t.isClosed() || t.ctx.Err() != nil {
			return errNoStream
		}
		return err
	}
	c.broken = true // never reused
	defer t.release(c)
	switch {
	case resp.StatusCode == http.StatusMethodNotAllowed:
		return errNoStream
	case resp.StatusCode == http.StatusNotFound:
		// A session the stream worked on is gone; a stream that never
		// opened is not offered.
		if *opened && sentSession {
			t.endSession()
		}
		return errNoStream
	case resp.StatusCode != http.StatusOK || mediaType(resp) != "text/event-stream":
		return errors.New("GET stream: HTTP " + strconv.Itoa(resp.StatusCode))
	}
	*opened = true
	_, err = t.readEvents(t.ctx, c, resp, "", nil)
	return err
}
