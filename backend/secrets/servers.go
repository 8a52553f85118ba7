package secrets

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// ServerFileName is the fallback file of servers' secret values in the data
// dir (0600, like the chat keys' and the logins' files).
const ServerFileName = "server-secrets.json"

// serverPrefix starts the keychain account of a server's secret value:
// "server-secret:<server>/<kind>/<name>". A server name has no '/', so the
// account names one entry of one server.
const serverPrefix = "server-secret:"

// ServerValues keeps the values of servers' secret env and header entries
// (spec.Server.SecretEnv, SecretHeaders) in a Store: the OS keychain, else
// the 0600 file ServerFileName. The database holds only the entries' names
// (spec.Server.Seal); Resolve puts the values back just before a server is
// started or connected.
type ServerValues struct {
	s   *Store
	log logrus.FieldLogger
}

// NewServerValues returns the secret values of the servers of dataDir.
// log gets what is left behind when a value cannot be removed after the
// definition changed (nil: logrus's standard logger).
func NewServerValues(dataDir string, log logrus.FieldLogger) *ServerValues {
	if log == nil {
		log = logrus.StandardLogger()
	}
	return &ServerValues{s: New(dataDir, ServerFileName, serverPrefix, "secret value"), log: log}
}

// Backend says where values are kept: InKeychain or InFile.
func (v *ServerValues) Backend() string { return v.s.Backend() }

// File is the fallback file's path.
func (v *ServerValues) File() string { return v.s.File() }

func account(server string, kind spec.SecretKind, name string) string {
	return server + "/" + string(kind) + "/" + name
}

// where names the store in messages: "the keychain" or "the secrets file F".
func (v *ServerValues) where() string {
	if v.s.Backend() == InKeychain {
		return "the keychain"
	}
	return "the secrets file " + v.s.File()
}

// MissingError: secret entries of a server whose values are not stored. It
// matches ErrNotFound.
type MissingError struct {
	Refs  []spec.SecretRef
	Where string // "the keychain" or "the secrets file F"
}

func (e *MissingError) Error() string {
	parts := make([]string, len(e.Refs))
	for i, r := range e.Refs {
		flag := "--secret-env"
		if r.Kind == spec.KindHeader {
			flag = "--secret-header"
		}
		parts[i] = fmt.Sprintf("%s is not in %s; set it with `mcp-router servers update %s %s %s=…` (or the server's Edit form)",
			r, e.Where, r.Server, flag, r.Name)
	}
	return strings.Join(parts, "; ")
}

func (e *MissingError) Is(target error) bool { return target == ErrNotFound }

// NoValueError: secret entries saved with no value, given or stored.
type NoValueError struct{ Refs []spec.SecretRef }

func (e *NoValueError) Error() string {
	parts := make([]string, len(e.Refs))
	for i, r := range e.Refs {
		parts[i] = r.String()
	}
	return fmt.Sprintf("%v: %s: no value given (and none stored): give one", spec.ErrInvalid, strings.Join(parts, ", "))
}

func (e *NoValueError) Unwrap() error { return spec.ErrInvalid }

// Resolve returns def with each secret entry's value, read from the store,
// in place of its placeholder: the definition a server is started or
// connected with. It never changes def's maps. Values that are not stored
// give a *MissingError naming each and how to set it.
func (v *ServerValues) Resolve(def spec.Server) (spec.Server, error) {
	refs := def.SecretRefs()
	if len(refs) == 0 {
		return def, nil
	}
	def.Env, def.Headers = maps.Clone(def.Env), maps.Clone(def.Headers)
	var missing []spec.SecretRef
	for _, r := range refs {
		val, err := v.s.Get(account(r.Server, r.Kind, r.Name))
		if errors.Is(err, ErrNotFound) {
			missing = append(missing, r)
			continue
		}
		if err != nil {
			return spec.Server{}, fmt.Errorf("%s: %w", r, err)
		}
		def.SetEntry(r.Kind, r.Name, val)
	}
	if len(missing) > 0 {
		return spec.Server{}, &MissingError{Refs: missing, Where: v.where()}
	}
	return def, nil
}

// Has reports whether the value of ref is stored.
func (v *ServerValues) Has(ref spec.SecretRef) (bool, error) {
	_, err := v.s.Get(account(ref.Server, ref.Kind, ref.Name))
	if errors.Is(err, ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// Forget removes the stored values of def's secret entries (a removed
// server's values must not outlive it, nor serve a new server of the same
// name).
func (v *ServerValues) Forget(def spec.Server) error {
	var errs []error
	for _, r := range def.SecretRefs() {
		if err := v.s.Delete(account(r.Server, r.Kind, r.Name)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", r, err))
		}
	}
	return errors.Join(errs...)
}

// Change is one definition to save: In, the new definition of the server
// Cur (nil: a new server). In carries the values of its secret entries; a
// secret entry whose value is empty or its placeholder keeps the value
// stored for it (under Cur's name: a rename moves it). A plain entry
// holding the placeholder of what was a secret entry of Cur becomes plain
// with the stored value (the way back from secret).
type Change struct {
	Cur *spec.Server
	In  spec.Server
}

// SaveOptions tune SaveAll.
type SaveOptions struct {
	// AllowMissing saves secret entries that have no value (an import
	// whose values the UI asks for next): the server then waits, errored,
	// until they are set. Without it such an entry fails the save with a
	// *NoValueError.
	AllowMissing bool
}

// Save is SaveAll of one change.
func (v *ServerValues) Save(cur *spec.Server, in spec.Server, write func(spec.Server) error) (spec.Server, error) {
	stored, _, err := v.SaveAll([]Change{{Cur: cur, In: in}}, SaveOptions{}, func(defs []spec.Server) error { return write(defs[0]) })
	if err != nil {
		return spec.Server{}, err
	}
	return stored[0], nil
}

type valueOp struct {
	account, value string
}

type plan struct {
	stored []spec.Server
	set    []valueOp // written before the database
	drop   []string  // accounts removed once the database is written
	miss   []spec.SecretRef
}

// SaveAll saves the changes: the values their secret entries carry go to
// the store, then write stores the definitions it is given (sealed: each
// secret entry holds its placeholder; SecretRevision moved where a value
// changed) in the database. Values go first, so a router that sees the new
// definitions finds their values; if write fails they are put back as they
// were. Values the changes no longer use (a secret removed, made plain, or
// left behind by a rename) are removed after write succeeds. It returns the
// stored definitions and, with AllowMissing, the entries left without a
// value.
func (v *ServerValues) SaveAll(changes []Change, o SaveOptions, write func([]spec.Server) error) ([]spec.Server, []spec.SecretRef, error) {
	p, err := v.plan(changes)
	if err != nil {
		return nil, nil, err
	}
	if len(p.miss) > 0 && !o.AllowMissing {
		return nil, nil, &NoValueError{Refs: p.miss}
	}
	undo, err := v.apply(p.set)
	if err != nil {
		return nil, nil, err
	}
	if err := write(p.stored); err != nil {
		undo()
		return nil, nil, err
	}
	for _, a := range p.drop {
		if err := v.s.Delete(a); err != nil {
			v.log.Warnf("a secret value the servers no longer use was left in %s (%s): %v", v.where(), a, err)
		}
	}
	return p.stored, p.miss, nil
}

// plan works out the stored definitions and the value writes of changes.
func (v *ServerValues) plan(changes []Change) (plan, error) {
	var p plan
	for _, c := range changes {
		in := c.In
		in.Normalize()
		in.Env, in.Headers = maps.Clone(in.Env), maps.Clone(in.Headers)
		var cur spec.Server
		if c.Cur != nil {
			cur = *c.Cur
			in.SecretRevision = cur.SecretRevision
		} else {
			in.SecretRevision = 0
		}
		renamed := c.Cur != nil && cur.Name != in.Name
		valuesChanged := false
		for _, kind := range []spec.SecretKind{spec.KindEnv, spec.KindHeader} {
			inSecret, curSecret := secretNames(in, kind), secretNames(cur, kind)
			for _, k := range inSecret {
				val := in.Entries(kind)[k]
				switch {
				case val != "" && !spec.IsSecretPlaceholder(k, val):
					p.set = append(p.set, valueOp{account(in.Name, kind, k), val})
					valuesChanged = true
				case slices.Contains(curSecret, k) && renamed:
					old, err := v.s.Get(account(cur.Name, kind, k))
					if errors.Is(err, ErrNotFound) {
						p.miss = append(p.miss, spec.SecretRef{Server: in.Name, Kind: kind, Name: k})
						break
					}
					if err != nil {
						return plan{}, fmt.Errorf("%s: %w", spec.SecretRef{Server: cur.Name, Kind: kind, Name: k}, err)
					}
					p.set = append(p.set, valueOp{account(in.Name, kind, k), old})
				case slices.Contains(curSecret, k):
					// Kept as it is stored.
				default:
					p.miss = append(p.miss, spec.SecretRef{Server: in.Name, Kind: kind, Name: k})
				}
				in.SetEntry(kind, k, spec.SecretPlaceholder(k))
			}
			for k, val := range in.Entries(kind) {
				if slices.Contains(inSecret, k) || !spec.LooksLikePlaceholder(val) {
					continue
				}
				ref := spec.SecretRef{Server: cur.Name, Kind: kind, Name: k}
				if !spec.IsSecretPlaceholder(k, val) || !slices.Contains(curSecret, k) {
					return plan{}, fmt.Errorf("%w: server %q: %s %s holds the placeholder %s but is not secret: give its value, or mark it secret",
						spec.ErrInvalid, in.Name, kind, k, val)
				}
				// Made plain: its stored value comes back into the definition.
				old, err := v.s.Get(account(cur.Name, kind, k))
				if errors.Is(err, ErrNotFound) {
					return plan{}, fmt.Errorf("%w: %s: made plain, but its value is not in %s: give the value", spec.ErrInvalid, ref, v.where())
				}
				if err != nil {
					return plan{}, fmt.Errorf("%s: %w", ref, err)
				}
				in.SetEntry(kind, k, old)
			}
			for _, k := range curSecret {
				if renamed || !slices.Contains(inSecret, k) {
					p.drop = append(p.drop, account(cur.Name, kind, k))
				}
			}
		}
		if valuesChanged && c.Cur != nil {
			in.SecretRevision++
		}
		p.stored = append(p.stored, in)
	}
	return p, nil
}

func secretNames(s spec.Server, kind spec.SecretKind) []string {
	if kind == spec.KindHeader {
		return s.SecretHeaders
	}
	return s.SecretEnv
}

// apply writes ops, keeping what each replaced; the returned undo puts
// those back. A failed write undoes the ones before it.
func (v *ServerValues) apply(ops []valueOp) (undo func(), err error) {
	type prev struct {
		account, value string
		existed        bool
	}
	var done []prev
	undo = func() {
		for i := len(done) - 1; i >= 0; i-- {
			d := done[i]
			var err error
			if d.existed {
				err = v.s.Set(d.account, d.value)
			} else {
				err = v.s.Delete(d.account)
			}
			if err != nil {
				v.log.Warnf("put back the secret value %s in %s: %v", d.account, v.where(), err)
			}
		}
	}
	for _, op := range ops {
		old, err := v.s.Get(op.account)
		existed := err == nil
		if err != nil && !errors.Is(err, ErrNotFound) {
			undo()
			return nil, err
		}
		if err := v.s.Set(op.account, op.value); err != nil {
			undo()
			return nil, err
		}
		done = append(done, prev{op.account, old, existed})
	}
	return undo, nil
}
