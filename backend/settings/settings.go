// Package settings gives typed, validated access to the router's
// preferences, which the store keeps as plain strings. It knows every key,
// its default and what values it allows; callers never parse a setting
// themselves.
//
// Reads are cached: the cache is dropped when the database changes
// (store.Revision), checked at most every RefreshInterval, so a value set by
// another process (the CLI) reaches a running router within about half a
// second, and a value set through this Settings is seen at once.
package settings

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

// Keys.
const (
	KeyPort      = "port"
	KeyListen    = "listen"
	KeyAuth      = "auth"
	KeySeparator = "separator"
	KeyRetention = "retention"
	KeyTimeout   = "timeout"

	// KeyApprovalTimeout: how long a call waits for a person's approval
	// when its policy rule sets no approval_timeout_seconds.
	KeyApprovalTimeout = "approvalTimeoutSeconds"

	// Limits of one hook run.
	KeyHookTimeout  = "hookTimeout"
	KeyHookMemoryMB = "hookMemoryMB"

	// Desktop preferences.
	KeyTheme        = "theme"
	KeyLanguage     = "language"
	KeyStartAtLogin = "startAtLogin"
	KeyCloseToTray  = "closeToTray"
)

// Defaults.
const (
	DefaultPort          = 3282
	DefaultListen        = "127.0.0.1"
	DefaultSeparator     = "__"
	DefaultRetentionDays = 30
	DefaultTimeout       = 60
	DefaultHookTimeout   = 5 // seconds
	// DefaultApprovalTimeout is in seconds.
	DefaultApprovalTimeout = 60
	DefaultHookMemoryMB    = 64 // megabytes

	// SeparatorChars are the characters a separator may be made of.
	SeparatorChars = "_-."
)

// Sentinel errors for errors.Is; messages say what is allowed.
var (
	ErrUnknownKey   = errors.New("unknown setting")
	ErrInvalidValue = errors.New("bad value")
)

// RefreshInterval bounds how often a read asks the store whether anything
// changed.
const RefreshInterval = 500 * time.Millisecond

// Def describes one setting.
type Def struct {
	Key     string
	Default string
	Allowed string // what values it allows, for messages and help
	Help    string
	// check validates a value and returns it normalized.
	check func(string) (string, error)
	// warn returns a caution for a valid but risky value, or "".
	warn func(string) string
}

// defs is ordered by key.
var defs = []Def{
	{Key: KeyApprovalTimeout, Default: strconv.Itoa(DefaultApprovalTimeout), Allowed: "a whole number of seconds from 1 to 3600",
		Help: "how long a call waits for a person's approval when its policy rule sets no approval_timeout_seconds", check: intRange(1, 3600)},
	{Key: KeyAuth, Default: "on", Allowed: "on or off",
		Help: "require a bearer token on the HTTP endpoint", check: checkOnOff, warn: warnAuth},
	{Key: KeyCloseToTray, Default: "on", Allowed: "on or off",
		Help: "closing the window keeps the router running in the tray", check: checkOnOff},
	{Key: KeyHookMemoryMB, Default: strconv.Itoa(DefaultHookMemoryMB), Allowed: "a whole number of megabytes from 16 to 4096",
		Help: "memory one hook run may hold before it is stopped", check: intRange(16, 4096)},
	{Key: KeyHookTimeout, Default: strconv.Itoa(DefaultHookTimeout), Allowed: "a whole number of seconds from 1 to 300",
		Help: "time one hook run may take before it is stopped", check: intRange(1, 300)},
	{Key: KeyLanguage, Default: "system", Allowed: "system, en or ja",
		Help: "language of the desktop UI", check: oneOf("system", "en", "ja")},
	{Key: KeyListen, Default: DefaultListen, Allowed: "an IP address such as 127.0.0.1, ::1 or 0.0.0.0",
		Help: "address the HTTP endpoint listens on", check: checkListen, warn: warnListen},
	{Key: KeyPort, Default: strconv.Itoa(DefaultPort), Allowed: "a whole number from 1 to 65535",
		Help: "port of the HTTP endpoint", check: intRange(1, 65535)},
	{Key: KeyRetention, Default: strconv.Itoa(DefaultRetentionDays), Allowed: "a whole number of days from 1 to 3650",
		Help: "days of request log kept", check: intRange(1, 3650)},
	{Key: KeySeparator, Default: DefaultSeparator, Allowed: "1 to 3 characters from _ - .",
		Help: "separator between server and tool name (<server><sep><tool>)", check: checkSeparator, warn: warnSeparator},
	{Key: KeyStartAtLogin, Default: "off", Allowed: "on or off",
		Help: "start the desktop app when you log in", check: checkOnOff},
	{Key: KeyTheme, Default: "system", Allowed: "light, dark or system",
		Help: "colour theme of the desktop UI", check: oneOf("light", "dark", "system")},
	{Key: KeyTimeout, Default: strconv.Itoa(DefaultTimeout), Allowed: "a whole number of seconds from 1 to 3600",
		Help: "default upstream request timeout in seconds", check: intRange(1, 3600)},
}

// Defs returns every setting, ordered by key.
func Defs() []Def { return append([]Def(nil), defs...) }

// Keys returns the known keys in order.
func Keys() []string {
	out := make([]string, len(defs))
	for i, d := range defs {
		out[i] = d.Key
	}
	return out
}

func lookup(key string) (Def, error) {
	for _, d := range defs {
		if d.Key == key {
			return d, nil
		}
	}
	return Def{}, fmt.Errorf("%w %q (known settings: %s)", ErrUnknownKey, key, strings.Join(Keys(), ", "))
}

// Validate checks value for key and returns it normalized (trimmed, "ON"
// becomes "on", "08080" becomes "8080"). It does not touch the store.
func Validate(key, value string) (string, error) {
	d, err := lookup(key)
	if err != nil {
		return "", err
	}
	v, err := d.check(strings.TrimSpace(value))
	if err != nil {
		return "", fmt.Errorf("%w %q for %s: want %s", ErrInvalidValue, value, key, d.Allowed)
	}
	return v, nil
}

// Warning returns a caution about a valid value (a '.' separator, a
// non-loopback listen address, auth off), or "" when there is none.
func Warning(key, value string) string {
	d, err := lookup(key)
	if err != nil || d.warn == nil {
		return ""
	}
	v, err := d.check(strings.TrimSpace(value))
	if err != nil {
		return ""
	}
	return d.warn(v)
}

func intRange(lo, hi int) func(string) (string, error) {
	return func(s string) (string, error) {
		n, err := strconv.Atoi(s)
		if err != nil || n < lo || n > hi {
			return "", errors.New("out of range")
		}
		return strconv.Itoa(n), nil
	}
}

func checkOnOff(s string) (string, error) {
	switch v := strings.ToLower(s); v {
	case "on", "off":
		return v, nil
	}
	return "", errors.New("not on/off")
}

// oneOf accepts the given values in any case and returns them lower-case.
func oneOf(values ...string) func(string) (string, error) {
	return func(s string) (string, error) {
		v := strings.ToLower(s)
		for _, ok := range values {
			if v == ok {
				return v, nil
			}
		}
		return "", errors.New("not allowed")
	}
}

func warnAuth(v string) string {
	if v == "off" {
		return "with auth off, any program that can reach the endpoint can use every server"
	}
	return ""
}

func checkListen(s string) (string, error) {
	a, err := netip.ParseAddr(s)
	if err != nil || a.Zone() != "" {
		return "", errors.New("not an IP address")
	}
	return a.Unmap().String(), nil
}

func warnListen(v string) string {
	a, err := netip.ParseAddr(v)
	if err != nil || a.IsLoopback() {
		return ""
	}
	return fmt.Sprintf("listening on %s exposes the router to other machines on the network; keep auth on", v)
}

func checkSeparator(s string) (string, error) {
	if len(s) < 1 || len(s) > 3 {
		return "", errors.New("bad length")
	}
	for _, r := range s {
		if !strings.ContainsRune(SeparatorChars, r) {
			return "", errors.New("bad character")
		}
	}
	return s, nil
}

func warnSeparator(v string) string {
	if strings.Contains(v, ".") {
		return "Claude's and OpenAI's APIs reject tool names containing '.'; clients using them will fail to call tools"
	}
	return ""
}

// Settings reads and writes the settings of one store. It is safe for
// concurrent use.
type Settings struct {
	repo store.SettingRepo
	rev  func(context.Context) (int64, error)
	log  logrus.FieldLogger

	mu        sync.Mutex
	cache     map[string]string // stored values; nil when not loaded
	rv        int64
	checkedAt time.Time
	warned    map[string]string // key → bad stored value already logged
}

// New returns the settings of st.
func New(st *store.Store) *Settings {
	return &Settings{repo: st.Settings(), rev: st.Revision, warned: map[string]string{},
		log: logrus.StandardLogger().WithField("component", "settings")}
}

// SetLogger replaces the logger used for warnings about bad stored values.
func (s *Settings) SetLogger(l logrus.FieldLogger) { s.log = l }

// stored returns the stored value of key (validity not checked).
func (s *Settings) stored(ctx context.Context, key string) (string, bool, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	now := time.Now()
	if s.cache != nil && now.Sub(s.checkedAt) >= RefreshInterval {
		rv, err := s.rev(ctx)
		if err != nil || rv != s.rv {
			s.cache = nil
		}
		s.checkedAt = now
	}
	if s.cache == nil {
		// Read the revision first: a write landing between the two reads
		// then shows up as a changed revision next time, never as a
		// stale cache that looks current.
		rv, err := s.rev(ctx)
		if err != nil {
			return "", false, err
		}
		all, err := s.repo.All(ctx)
		if err != nil {
			return "", false, err
		}
		s.cache, s.rv, s.checkedAt = all, rv, now
	}
	v, ok := s.cache[key]
	return v, ok, nil
}

// Invalidate drops the cache, so the next read sees the store (a caller
// that knows the database changed need not wait for RefreshInterval).
func (s *Settings) Invalidate() { s.invalidate() }

func (s *Settings) invalidate() {
	s.mu.Lock()
	s.cache = nil
	s.mu.Unlock()
}

// Get returns the value of key, or its default when unset. An unknown key is
// an error wrapping ErrUnknownKey.
func (s *Settings) Get(ctx context.Context, key string) (string, error) {
	d, err := lookup(key)
	if err != nil {
		return "", err
	}
	v, ok, err := s.stored(ctx, key)
	if err != nil {
		return "", err
	}
	if !ok {
		return d.Default, nil
	}
	return v, nil
}

// IsSet reports whether key has a stored value (as opposed to its default).
func (s *Settings) IsSet(ctx context.Context, key string) (bool, error) {
	if _, err := lookup(key); err != nil {
		return false, err
	}
	_, ok, err := s.stored(ctx, key)
	return ok, err
}

// Set validates and stores value for key. Nothing is written when key is
// unknown (ErrUnknownKey) or value not allowed (ErrInvalidValue).
func (s *Settings) Set(ctx context.Context, key, value string) error {
	v, err := Validate(key, value)
	if err != nil {
		return err
	}
	defer s.invalidate()
	return s.repo.Set(ctx, key, v)
}

// SetMany validates every value first and then stores them all in one
// transaction: one bad value (or an unknown key) writes nothing.
func (s *Settings) SetMany(ctx context.Context, values map[string]string) error {
	clean := make(map[string]string, len(values))
	keys := make([]string, 0, len(values))
	for k := range values {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the first bad key reported is the same every time
	for _, k := range keys {
		v, err := Validate(k, values[k])
		if err != nil {
			return err
		}
		clean[k] = v
	}
	defer s.invalidate()
	return s.repo.SetMany(ctx, clean)
}

// Reset removes the stored value of key so that its default applies.
func (s *Settings) Reset(ctx context.Context, key string) error {
	if _, err := lookup(key); err != nil {
		return err
	}
	defer s.invalidate()
	return s.repo.Delete(ctx, key)
}

// All returns every known setting with defaults filled in. Stored keys this
// version does not know are left out (and left alone in the store).
func (s *Settings) All(ctx context.Context) (map[string]string, error) {
	out := make(map[string]string, len(defs))
	for _, d := range defs {
		v, err := s.Get(ctx, d.Key)
		if err != nil {
			return nil, err
		}
		out[d.Key] = v
	}
	return out, nil
}

// valid returns the validated value of key, falling back to the default
// (with a warning) when the store fails or holds a value that is not allowed,
// e.g. one written with the sqlite3 shell.
func (s *Settings) valid(ctx context.Context, key string) string {
	d, _ := lookup(key)
	raw, err := s.Get(ctx, key)
	if err != nil {
		s.log.WithError(err).Warnf("reading setting %s; using the default %q", key, d.Default)
		return d.Default
	}
	v, err := d.check(strings.TrimSpace(raw))
	if err != nil {
		// Once per bad value, not on every read of it.
		s.mu.Lock()
		again := s.warned[key] == raw
		s.warned[key] = raw
		s.mu.Unlock()
		if !again {
			s.log.Warnf("stored setting %s=%q is not %s; using the default %q", key, raw, d.Allowed, d.Default)
		}
		return d.Default
	}
	return v
}

func (s *Settings) validInt(ctx context.Context, key string) int {
	n, _ := strconv.Atoi(s.valid(ctx, key))
	return n
}

// Port is the port of the HTTP endpoint.
func (s *Settings) Port(ctx context.Context) int { return s.validInt(ctx, KeyPort) }

// ListenIP is the IP address the HTTP endpoint listens on.
func (s *Settings) ListenIP(ctx context.Context) string { return s.valid(ctx, KeyListen) }

// ListenAddr is host:port for net.Listen ("127.0.0.1:3282", "[::1]:3282").
func (s *Settings) ListenAddr(ctx context.Context) string {
	return net.JoinHostPort(s.ListenIP(ctx), strconv.Itoa(s.Port(ctx)))
}

// EndpointURL is the URL a client on this machine uses to reach the
// endpoint: http://<listen>:<port>/mcp, with an unspecified listen address
// (0.0.0.0, ::) replaced by the matching loopback address.
func (s *Settings) EndpointURL(ctx context.Context) string {
	ip := s.ListenIP(ctx)
	if a, err := netip.ParseAddr(ip); err == nil && a.IsUnspecified() {
		if a.Is4() {
			ip = "127.0.0.1"
		} else {
			ip = "::1"
		}
	}
	return "http://" + net.JoinHostPort(ip, strconv.Itoa(s.Port(ctx))) + "/mcp"
}

// AuthEnabled reports whether the endpoint requires a bearer token.
func (s *Settings) AuthEnabled(ctx context.Context) bool { return s.valid(ctx, KeyAuth) == "on" }

// Separator goes between a server's name and its tool's name.
func (s *Settings) Separator(ctx context.Context) string { return s.valid(ctx, KeySeparator) }

// RetentionDays is how many days of request log are kept.
func (s *Settings) RetentionDays(ctx context.Context) int { return s.validInt(ctx, KeyRetention) }

// TimeoutSeconds is the default upstream request timeout.
func (s *Settings) TimeoutSeconds(ctx context.Context) int { return s.validInt(ctx, KeyTimeout) }

// Theme is the desktop UI's colour theme: light, dark or system.
func (s *Settings) Theme(ctx context.Context) string { return s.valid(ctx, KeyTheme) }

// Language is the desktop UI's language: system, en or ja.
func (s *Settings) Language(ctx context.Context) string { return s.valid(ctx, KeyLanguage) }

// StartAtLogin reports whether the desktop app should start at login.
func (s *Settings) StartAtLogin(ctx context.Context) bool {
	return s.valid(ctx, KeyStartAtLogin) == "on"
}

// CloseToTray reports whether closing the window keeps the router running.
func (s *Settings) CloseToTray(ctx context.Context) bool { return s.valid(ctx, KeyCloseToTray) == "on" }

// HookTimeout is how long one hook run may take.
func (s *Settings) HookTimeout(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeyHookTimeout)) * time.Second
}

// ApprovalTimeout is how long a call waits for a person's approval when
// its policy rule does not say.
func (s *Settings) ApprovalTimeout(ctx context.Context) time.Duration {
	return time.Duration(s.validInt(ctx, KeyApprovalTimeout)) * time.Second
}

// HookMemoryMB is how many megabytes one hook run may hold.
func (s *Settings) HookMemoryMB(ctx context.Context) int { return s.validInt(ctx, KeyHookMemoryMB) }

// Timeout is TimeoutSeconds as a duration.
func (s *Settings) Timeout(ctx context.Context) time.Duration {
	return time.Duration(s.TimeoutSeconds(ctx)) * time.Second
}
