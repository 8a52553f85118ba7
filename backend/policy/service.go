package policy

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/filelimit"
	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// Options configure a Service; zero values are the defaults.
type Options struct {
	Logger logrus.FieldLogger // default: logrus standard logger
	// Now is the rate limits' clock; default time.Now. Tests move it
	// instead of waiting a minute.
	Now func() time.Time
	// Changed, if set, is called (without the service's lock) after the
	// policy in force changed: loaded, replaced or removed.
	Changed func()
	// Audit writes the record of a call a log_level: audit rule matched
	// (the store's audit trail); nil: such calls are not recorded.
	Audit func(ctx context.Context, r AuditRecord) error
	// Ask asks a person to approve a call a human_approval rule matched,
	// and waits for the answer until ctx ends (the rule's timeout, or the
	// client cancelling). ErrCannotAsk: nobody can be asked. ErrUIGone:
	// the UI asked went away and nobody else can be asked. nil: as
	// ErrCannotAsk for every call.
	Ask func(ctx context.Context, a Approval) (Answer, error)
	// ApprovalTimeout is the wait for a rule without
	// approval_timeout_seconds (the approvalTimeoutSeconds setting); nil:
	// DefaultApprovalTimeout.
	ApprovalTimeout func() time.Duration
	// SharedBuckets, if set, keeps the rate-limit buckets outside the
	// process (team mode: Redis), shared by every replica; nil: each
	// rule's buckets live in this process.
	SharedBuckets SharedBuckets
	// Limits are the caps of the policy file; zero: FileLimits().
	Limits filelimit.Limits
}

// Service holds the policy in force and follows policy.yaml.
type Service struct {
	path string
	o    Options

	cur atomic.Pointer[Policy]

	mu     sync.Mutex
	status Status
	seen   fileSig // the file as last read, good or bad
}

// Status is what the UI shows: which file, whether a policy is in force,
// and the last load's problems (the policy in force is then the previous
// good one).
type Status struct {
	Path     string     `json:"path"`
	Exists   bool       `json:"exists"`
	Active   bool       `json:"active"` // a policy is in force
	Rules    int        `json:"rules"`
	Hash     string     `json:"hash,omitempty"` // of the file in force
	LoadedAt time.Time  `json:"loadedAt,omitzero"`
	Error    *FileError `json:"error,omitempty"` // the file on disk does not load
	// ErrorAt is when the file on disk was found bad.
	ErrorAt time.Time `json:"errorAt,omitzero"`
}

type fileSig struct {
	exists  bool
	modTime time.Time
	size    int64
	sum     [sha256.Size]byte
}

// NewService makes the service of the policy file at path (it loads
// nothing: call Reload).
func NewService(path string, o Options) *Service {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Limits == (filelimit.Limits{}) {
		o.Limits = FileLimits()
	}
	o.Limits = o.Limits.WithDefaults()
	return &Service{path: path, o: o, status: Status{Path: path}}
}

// Path is the policy file's path.
func (s *Service) Path() string { return s.path }

// Current is the policy in force as the pipeline's policy step sees it:
// nil without one.
func (s *Service) Current() pipeline.Step {
	if p := s.cur.Load(); p != nil {
		return p
	}
	return nil
}

// Policy is the policy in force, nil without one.
func (s *Service) Policy() *Policy { return s.cur.Load() }

// Status is the state of the last load.
func (s *Service) Status() Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.status
	return st
}

// Reload reads the file and puts it in force. A missing file means no
// policy. A file that does not load leaves the last good policy in force;
// the error is returned, logged and kept in Status.
func (s *Service) Reload() error {
	before := s.cur.Load()
	s.mu.Lock()
	err := s.load(true)
	s.mu.Unlock()
	s.changed(before)
	return err
}

// changed calls Options.Changed if the policy in force is not before.
func (s *Service) changed(before *Policy) {
	if s.o.Changed != nil && s.cur.Load() != before {
		s.o.Changed()
	}
}

// Poll reloads if the file changed since it was last read (its time,
// size or content); changed reports whether it did.
func (s *Service) Poll() (changed bool, err error) {
	inForce := s.cur.Load()
	defer s.changed(inForce) // after the unlock below
	s.mu.Lock()
	defer s.mu.Unlock()
	fi, serr := os.Stat(s.path)
	switch {
	case serr != nil && errors.Is(serr, fs.ErrNotExist):
		if !s.seen.exists {
			return false, nil
		}
	case serr == nil:
		if s.seen.exists && fi.ModTime().Equal(s.seen.modTime) && fi.Size() == s.seen.size {
			return false, nil
		}
	}
	before := s.seen
	err = s.load(false)
	return s.seen != before, err
}

// load reads the file; force reloads even when its content is what was
// last read. Called with mu held.
func (s *Service) load(force bool) error {
	src, sig, err := readFile(s.path, s.o.Limits)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		// Unreadable: keep what is in force, say why.
		s.fail(sig, &FileError{Path: s.path, Problems: []Problem{{Message: err.Error()}}})
		return s.status.Error
	}
	if !sig.exists {
		if s.seen.exists || force {
			if s.cur.Load() != nil {
				s.o.Logger.Infof("policy: %s removed; no policy in force", s.path)
			}
		}
		s.seen = sig
		s.cur.Store(nil)
		s.status = Status{Path: s.path}
		return nil
	}
	if !force && s.seen.exists && sig.sum == s.seen.sum {
		s.seen = sig
		return nil
	}
	p, perr := ParseContext(context.Background(), src, s.o.Limits)
	if perr != nil {
		var fe *FileError
		if !errors.As(perr, &fe) {
			fe = &FileError{Problems: []Problem{{Message: perr.Error()}}}
		}
		fe.Path = s.path
		s.fail(sig, fe)
		return fe
	}
	p.now, p.audit, p.ask, p.log = s.o.Now, s.o.Audit, s.o.Ask, s.o.Logger
	p.approvalTimeout, p.shared = s.o.ApprovalTimeout, s.o.SharedBuckets
	p.keepBuckets(s.cur.Load())
	s.seen = sig
	s.cur.Store(p)
	s.status = Status{Path: s.path, Exists: true, Active: true, Rules: p.Rules(), Hash: p.Hash, LoadedAt: time.Now()}
	s.o.Logger.Infof("policy: %s loaded (%d rules)", s.path, p.Rules())
	return nil
}

func (s *Service) fail(sig fileSig, fe *FileError) {
	s.seen = sig
	old := s.cur.Load()
	s.status.Path, s.status.Exists = s.path, sig.exists
	s.status.Error, s.status.ErrorAt = fe, time.Now()
	if old != nil {
		s.o.Logger.Errorf("policy: %s does not load; the previous policy stays in force:\n%v", s.path, fe)
	} else {
		s.o.Logger.Errorf("policy: %s does not load; no policy is in force:\n%v", s.path, fe)
	}
}

// readFile reads the policy file within lim: a regular file (a FIFO or a
// device is refused, never waited on) no larger than the cap.
func readFile(path string, lim filelimit.Limits) ([]byte, fileSig, error) {
	src, fi, err := lim.ReadFile(path)
	if fi == nil {
		return nil, fileSig{exists: err == nil || !errors.Is(err, fs.ErrNotExist)}, err
	}
	sig := fileSig{exists: true, modTime: fi.ModTime(), size: fi.Size()}
	if err != nil {
		return nil, sig, err
	}
	sig.sum = sha256.Sum256(src)
	return src, sig, nil
}

// Save checks src and, if it loads, writes it as the policy file (through
// a temporary file, so a reader never sees half of it) and puts it in
// force. A file that does not load is not written: the error says why.
func (s *Service) Save(src []byte) error {
	if _, err := ParseContext(context.Background(), src, s.o.Limits); err != nil {
		return err
	}
	before := s.cur.Load()
	defer s.changed(before)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := writeAtomic(s.path, src); err != nil {
		return err
	}
	return s.load(true)
}

// Source is the policy file's text ("" and no error when it does not
// exist).
func (s *Service) Source() (string, error) {
	b, _, err := s.o.Limits.ReadFile(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	return string(b), err
}

func writeAtomic(path string, src []byte) error {
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, ".policy-*.yaml")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := io.Copy(tmp, bytes.NewReader(src)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
