// Package reqlog writes the request log: every request through the router's
// endpoint becomes one store.RequestLog row. Log never blocks the call path;
// a background goroutine batches entries into one transaction per
// FlushInterval or MaxBatch, retries a failed batch once, prunes entries
// older than the retention period, and feeds subscribers (the UI's live view)
// with what it stored.
package reqlog

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

// Defaults for the zero Options.
const (
	DefaultFlushInterval = 200 * time.Millisecond
	DefaultMaxBatch      = 500
	DefaultBuffer        = 10000
	DefaultMaxBodyBytes  = 64 << 10
	DefaultRetention     = 30 * 24 * time.Hour
	DefaultPruneInterval = time.Hour
)

// dropWarnEvery limits the "buffer full" warning to one per period.
const dropWarnEvery = 10 * time.Second

// ErrClosed is returned by Flush after Close.
var ErrClosed = errors.New("request log writer is closed")

// Sink is where entries go; store.LogRepo satisfies it.
type Sink interface {
	Insert(ctx context.Context, entries []store.RequestLog) error
	DeleteOlderThan(ctx context.Context, t time.Time) (int64, error)
}

// Options tune a Writer; zero fields take the defaults above.
type Options struct {
	FlushInterval time.Duration // how often buffered entries are written
	MaxBatch      int           // most entries per transaction; a full batch is written at once
	Buffer        int           // entries Log can queue before it drops (the writer may hold as many more while writing)
	MaxBodyBytes  int           // longest Request/Response/Error kept; the rest becomes a marker
	// Retention is read before each prune, so a changed setting applies
	// without a restart. A result <= 0 skips that prune (keep everything).
	// Nil means DefaultRetention.
	Retention     func() time.Duration
	PruneInterval time.Duration // how often old entries are deleted (also once at start)
	Logger        logrus.FieldLogger
}

func (o *Options) defaults() {
	if o.FlushInterval <= 0 {
		o.FlushInterval = DefaultFlushInterval
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.MaxBodyBytes <= 0 {
		o.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if o.Retention == nil {
		o.Retention = func() time.Duration { return DefaultRetention }
	}
	if o.PruneInterval <= 0 {
		o.PruneInterval = DefaultPruneInterval
	}
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	o.Logger = o.Logger.WithField("component", "reqlog")
}

// Writer is the asynchronous request log writer. Its methods are safe for
// concurrent use.
type Writer struct {
	sink Sink
	o    Options
	log  logrus.FieldLogger

	// The queue between Log and the writer goroutine: Log appends under qmu,
	// the writer swaps the whole slice out for spare. One short critical
	// section per Log and no goroutine wake-up per entry; the arrays are
	// reused, so the steady state allocates nothing.
	qmu    sync.Mutex
	queue  []store.RequestLog
	closed bool // under qmu: Log after Close is a no-op, and none is lost to a race with Close

	kick     chan struct{} // a full batch is queued
	flushReq chan chan error
	quit     chan struct{}
	done     chan struct{}
	pruneCtx context.Context // cancelled by Close so a long prune doesn't hold it up
	cancel   context.CancelFunc

	dropped  atomic.Uint64
	lastWarn atomic.Int64 // unix nanos of the last "buffer full" warning

	subMu    sync.Mutex
	subs     atomic.Pointer[[]*subscriber] // copy-on-write, read once per batch
	closeMu  sync.Once
	closeErr error
	finalErr error // set by the goroutine before done closes

	// Owned by the writer goroutine.
	spare   []store.RequestLog // the other queue array
	pending []store.RequestLog // taken from the queue, not yet written
	failed  []store.RequestLog // one batch that failed once, awaiting its retry
}

type subscriber struct{ fn func(store.RequestLog) }

// New starts a Writer over sink (usually a store.LogRepo). It prunes old
// entries at once, then every PruneInterval. Call Close when done.
func New(sink Sink, o Options) *Writer {
	o.defaults()
	ctx, cancel := context.WithCancel(context.Background())
	w := &Writer{
		sink:     sink,
		o:        o,
		log:      o.Logger,
		queue:    make([]store.RequestLog, 0, min(o.Buffer, 2*o.MaxBatch)),
		spare:    make([]store.RequestLog, 0, min(o.Buffer, 2*o.MaxBatch)),
		kick:     make(chan struct{}, 1),
		flushReq: make(chan chan error),
		quit:     make(chan struct{}),
		done:     make(chan struct{}),
		pruneCtx: ctx,
		cancel:   cancel,
	}
	go w.run()
	return w
}

// Log queues one entry and returns at once. It fills in Time if it is zero
// and truncates Request, Response and Error to MaxBodyBytes. When the buffer
// is full the entry is dropped and counted (see Dropped); Log never waits
// for the database. After Close, Log does nothing.
func (w *Writer) Log(e store.RequestLog) {
	if e.Time.IsZero() {
		e.Time = time.Now()
	}
	max := w.o.MaxBodyBytes
	if len(e.Request) > max {
		e.Request = Truncate(e.Request, max)
	}
	if len(e.Response) > max {
		e.Response = Truncate(e.Response, max)
	}
	if len(e.Error) > max {
		e.Error = Truncate(e.Error, max)
	}
	w.qmu.Lock()
	if w.closed {
		w.qmu.Unlock()
		return
	}
	n := len(w.queue)
	if n >= w.o.Buffer {
		w.qmu.Unlock()
		w.drop(1, "request log buffer is full; dropping entries")
		return
	}
	w.queue = append(w.queue, e)
	w.qmu.Unlock()
	// The writer sleeps until its next tick unless a full batch is waiting.
	if (n+1)%w.o.MaxBatch == 0 {
		select {
		case w.kick <- struct{}{}:
		default:
		}
	}
}

// Dropped counts entries that were lost: logged while the buffer was full,
// or in a batch the sink refused twice.
func (w *Writer) Dropped() uint64 { return w.dropped.Load() }

// drop counts n lost entries and warns at most once per dropWarnEvery.
func (w *Writer) drop(n int, msg string) {
	total := w.dropped.Add(uint64(n))
	now := time.Now().UnixNano()
	last := w.lastWarn.Load()
	if now-last < int64(dropWarnEvery) || !w.lastWarn.CompareAndSwap(last, now) {
		return
	}
	w.log.WithField("dropped_total", total).Warn(msg)
}

// Truncate cuts s to at most max bytes, backing off to a UTF-8 boundary, and
// appends a marker saying how many bytes were cut: "…[truncated 1234 bytes]".
// Strings no longer than max are returned unchanged.
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && cut < len(s) && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…[truncated " + strconv.Itoa(len(s)-cut) + " bytes]"
}

// Subscribe calls fn with every entry once it is stored (with its ID set),
// in ID order, from the writer goroutine. fn must return quickly — hand the
// entry off, don't do I/O — since it delays the next write (never Log). A
// panic in fn is recovered and logged. The returned func unsubscribes; a
// batch already being delivered may still reach fn.
func (w *Writer) Subscribe(fn func(store.RequestLog)) (unsubscribe func()) {
	s := &subscriber{fn: fn}
	w.subMu.Lock()
	var next []*subscriber
	if cur := w.subs.Load(); cur != nil {
		next = append(next, *cur...)
	}
	next = append(next, s)
	w.subs.Store(&next)
	w.subMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			w.subMu.Lock()
			defer w.subMu.Unlock()
			cur := w.subs.Load()
			next := make([]*subscriber, 0, len(*cur))
			for _, x := range *cur {
				if x != s {
					next = append(next, x)
				}
			}
			w.subs.Store(&next)
		})
	}
}

// Flush writes everything logged before the call and returns when it is
// stored, or the error if the sink refused it (the batch then stays queued
// for its one retry, as at any flush). It returns ctx.Err() if ctx ends
// first; the write goes on in the background.
func (w *Writer) Flush(ctx context.Context) error {
	reply := make(chan error, 1)
	select {
	case w.flushReq <- reply:
	case <-w.done:
		return ErrClosed
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-reply:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close stops accepting entries, writes everything buffered (a failed batch
// gets its one retry; after a second failure the rest is dropped with a
// warning) and stops the goroutine. It returns an error if entries were
// lost. Later calls return the same result. Every Log that returns before
// Close marks the writer closed is written; later ones are no-ops.
func (w *Writer) Close() error {
	w.closeMu.Do(func() {
		w.qmu.Lock()
		w.closed = true
		w.qmu.Unlock()
		w.cancel()
		close(w.quit)
		<-w.done
		w.closeErr = w.finalErr
	})
	return w.closeErr
}

// run is the writer goroutine.
func (w *Writer) run() {
	defer close(w.done)
	w.prune()
	flush := time.NewTicker(w.o.FlushInterval)
	defer flush.Stop()
	prune := time.NewTicker(w.o.PruneInterval)
	defer prune.Stop()
	for {
		select {
		case <-w.kick:
			if w.take(false) {
				_ = w.writePending(true)
			}
		case <-flush.C:
			w.take(false)
			_ = w.writeAll()
		case <-prune.C:
			w.prune()
		case reply := <-w.flushReq:
			w.take(true) // everything logged before Flush (and maybe a little after)
			reply <- w.writeAll()
		case <-w.quit:
			w.take(true) // closed is set: this is the last of it
			w.finalErr = w.closeFlush()
			return
		}
	}
}

// take moves the queue into pending and reports whether pending may be
// written now. While a batch awaits its retry it takes nothing once a full
// batch is pending (unless forced), so memory stays bounded and the queue
// (then Log's drop) absorbs the load.
func (w *Writer) take(force bool) bool {
	if w.failed != nil && len(w.pending) >= w.o.MaxBatch && !force {
		return false
	}
	w.qmu.Lock()
	q := w.queue
	w.queue = w.spare
	w.qmu.Unlock()
	w.pending = append(w.pending, q...)
	clear(q) // let go of the bodies
	w.spare = q[:0]
	return w.failed == nil
}

// writePending writes pending in MaxBatch transactions, oldest first, and
// stops at the first failure: that batch becomes the failed one, retried
// once on the next tick (not at once: "database is locked" needs a moment).
// With fullOnly a partial last batch waits for more entries or the tick.
func (w *Writer) writePending(fullOnly bool) error {
	i := 0
	defer func() { // keep what is left at the front, reusing the array
		n := copy(w.pending, w.pending[i:])
		clear(w.pending[n:])
		w.pending = w.pending[:n]
	}()
	for i < len(w.pending) {
		n := min(len(w.pending)-i, w.o.MaxBatch)
		if fullOnly && n < w.o.MaxBatch {
			return nil
		}
		b := w.pending[i : i+n]
		i += n
		if err := w.insert(b); err != nil {
			w.log.WithError(err).WithField("entries", n).Warn("writing request log failed; will retry once")
			w.failed = append([]store.RequestLog(nil), b...)
			return fmt.Errorf("request log: writing %d entries: %w", n, err)
		}
	}
	return nil
}

// retryFailed makes the failed batch's second and last attempt.
func (w *Writer) retryFailed() error {
	b := w.failed
	w.failed = nil
	if err := w.insert(b); err != nil {
		w.dropBatch(len(b), err, "request log entries dropped: the database refused them twice")
		return fmt.Errorf("request log: %d entries dropped after a retry: %w", len(b), err)
	}
	return nil
}

// writeAll retries the failed batch, then writes pending, and stops at the
// first error (what is left waits for the next tick).
func (w *Writer) writeAll() error {
	if w.failed != nil {
		if err := w.retryFailed(); err != nil {
			return err
		}
	}
	return w.writePending(false)
}

// closeFlush writes everything left. A failed batch is retried at once; if
// the retry fails too, everything still pending is dropped.
func (w *Writer) closeFlush() error {
	var firstErr error
	for w.failed != nil || len(w.pending) > 0 {
		if w.failed != nil {
			if err := w.retryFailed(); err != nil {
				if firstErr == nil {
					firstErr = err
				}
				if n := len(w.pending); n > 0 {
					w.pending = nil
					w.dropBatch(n, err, "request log entries dropped at close: the database is failing")
				}
				break
			}
		}
		if err := w.writePending(false); err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return firstErr
}

func (w *Writer) dropBatch(n int, err error, msg string) {
	total := w.dropped.Add(uint64(n))
	w.log.WithError(err).WithFields(logrus.Fields{"entries": n, "dropped_total": total}).Warn(msg)
}

// insert writes one batch and, on success, hands it to the subscribers.
func (w *Writer) insert(b []store.RequestLog) error {
	if err := w.sink.Insert(context.Background(), b); err != nil {
		return err
	}
	w.deliver(b)
	return nil
}

func (w *Writer) deliver(b []store.RequestLog) {
	subs := w.subs.Load()
	if subs == nil {
		return
	}
	for _, s := range *subs {
		for _, e := range b {
			w.call(s, e)
		}
	}
}

func (w *Writer) call(s *subscriber, e store.RequestLog) {
	defer func() {
		if r := recover(); r != nil {
			w.log.WithField("panic", r).Error("request log subscriber panicked")
		}
	}()
	s.fn(e)
}

// prune deletes entries older than the retention period.
func (w *Writer) prune() {
	keep := w.o.Retention()
	if keep <= 0 {
		return
	}
	n, err := w.sink.DeleteOlderThan(w.pruneCtx, time.Now().Add(-keep))
	switch {
	case err != nil && w.pruneCtx.Err() == nil:
		w.log.WithError(err).Warn("pruning old request logs failed")
	case n > 0:
		w.log.WithFields(logrus.Fields{"deleted": n, "retention": keep}).Info("pruned old request logs")
	}
}
