package settings

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/store"
)

func openStore(t *testing.T) (*store.Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "mcp-router.db")
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return st, path
}

func TestDefaults(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	all, err := s.All(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"port": "3282", "listen": "127.0.0.1", "auth": "on", "separator": "__", "retention": "30", "timeout": "60",
		"theme": "system", "language": "system", "startAtLogin": "off", "closeToTray": "on",
		"hookTimeout": "5", "hookMemoryMB": "64", "approvalTimeoutSeconds": "60",
		"chatTools": "on", "chatEnvProvider": "auto", "otelEndpoint": "", "otelSampleRatio": "1", "chatMaxToolRounds": "20", "chatToolTimeout": "60", "lazyIdleSeconds": "300", "bundleMaxMB": "512", "checkForUpdates": "off",
		"oauthIssuers": "", "oauthAudience": "", "publicURL": "",
		"stategateGuardTimeoutMs": "2000", "stategateMaxArtifactMB": "256", "stategateMaxContextKB": "1024",
		"stategateMaxPayloadKB": "1024", "stategateMaxRunArtifactsMB": "1024",
		"sessionsPerCredential": "100", "sessionsTotal": "1000", "sessionIdleTimeout": "600",
		"tasksPerCredential": "64", "tasksTotal": "1024", "taskMaxAgeSeconds": "3600",
		"upstreamMaxMessageMB":  "32",
		"perClientMaxInstances": "16", "perClientIdleSeconds": "600",
		"catalogMaxItems": "2000", "catalogMaxKB": "8192", "toolChanges": "notify",
		"registryURL": "https://registry.modelcontextprotocol.io", "registryMaxKB": "4096"}
	if !reflect.DeepEqual(all, want) {
		t.Errorf("All = %v, want %v", all, want)
	}
	if s.Port(ctx) != 3282 || s.ListenAddr(ctx) != "127.0.0.1:3282" || !s.AuthEnabled(ctx) || s.Separator(ctx) != "__" ||
		s.RetentionDays(ctx) != 30 || s.TimeoutSeconds(ctx) != 60 || s.Timeout(ctx) != time.Minute {
		t.Errorf("typed defaults wrong: port %d listen %s auth %v sep %q retention %d timeout %d",
			s.Port(ctx), s.ListenAddr(ctx), s.AuthEnabled(ctx), s.Separator(ctx), s.RetentionDays(ctx), s.TimeoutSeconds(ctx))
	}
	if s.Theme(ctx) != "system" || s.Language(ctx) != "system" || s.StartAtLogin(ctx) || !s.CloseToTray(ctx) {
		t.Errorf("desktop defaults wrong: theme %s language %s startAtLogin %v closeToTray %v",
			s.Theme(ctx), s.Language(ctx), s.StartAtLogin(ctx), s.CloseToTray(ctx))
	}
	if got := s.EndpointURL(ctx); got != "http://127.0.0.1:3282/mcp" {
		t.Errorf("EndpointURL = %s", got)
	}
	if s.ApprovalTimeout(ctx) != time.Minute {
		t.Errorf("approvalTimeoutSeconds default = %v", s.ApprovalTimeout(ctx))
	}
	if s.HookTimeout(ctx) != 5*time.Second || s.HookMemoryMB(ctx) != 64 {
		t.Errorf("hook defaults wrong: hookTimeout %v hookMemoryMB %d", s.HookTimeout(ctx), s.HookMemoryMB(ctx))
	}
	if !reflect.DeepEqual(Keys(), []string{"approvalTimeoutSeconds", "auth", "bundleMaxMB", "catalogMaxItems", "catalogMaxKB", "chatEnvProvider", "chatMaxToolRounds", "chatToolTimeout", "chatTools", "checkForUpdates", "closeToTray", "hookMemoryMB", "hookTimeout", "language", "lazyIdleSeconds", "listen", "oauthAudience", "oauthIssuers", "otelEndpoint", "otelSampleRatio", "perClientIdleSeconds", "perClientMaxInstances", "port", "publicURL", "registryMaxKB", "registryURL", "retention", "separator", "sessionIdleTimeout", "sessionsPerCredential", "sessionsTotal", "startAtLogin", "stategateGuardTimeoutMs", "stategateMaxArtifactMB", "stategateMaxContextKB", "stategateMaxPayloadKB", "stategateMaxRunArtifactsMB", "taskMaxAgeSeconds", "tasksPerCredential", "tasksTotal", "theme", "timeout", "toolChanges", "upstreamMaxMessageMB"}) {
		t.Errorf("Keys = %v", Keys())
	}
	if set, _ := s.IsSet(ctx, KeyPort); set {
		t.Error("port reported as set on a new store")
	}
}

func TestValidateEveryKey(t *testing.T) {
	cases := []struct {
		key, value string
		want       string // normalized; "" means the value is rejected
	}{
		{"port", "3282", "3282"},
		{"approvalTimeoutSeconds", "1", "1"},
		{"approvalTimeoutSeconds", "3600", "3600"},
		{"approvalTimeoutSeconds", "0", ""},
		{"approvalTimeoutSeconds", "3601", ""},
		{"approvalTimeoutSeconds", "1m", ""},
		{"port", "1", "1"},
		{"port", "65535", "65535"},
		{"port", " 8080 ", "8080"},
		{"port", "08080", "8080"},
		{"port", "0", ""},
		{"port", "65536", ""},
		{"port", "-1", ""},
		{"port", "80.5", ""},
		{"port", "abc", ""},
		{"port", "", ""},
		{"listen", "127.0.0.1", "127.0.0.1"},
		{"listen", "0.0.0.0", "0.0.0.0"},
		{"listen", "::1", "::1"},
		{"listen", "::", "::"},
		{"listen", "192.168.1.20", "192.168.1.20"},
		{"listen", "::ffff:127.0.0.1", "127.0.0.1"},
		{"listen", "localhost", ""},
		{"listen", "127.0.0.1:3282", ""},
		{"listen", "256.1.1.1", ""},
		{"listen", "fe80::1%eth0", ""},
		{"listen", "", ""},
		{"auth", "on", "on"},
		{"auth", "off", "off"},
		{"auth", "OFF", "off"},
		{"auth", " On ", "on"},
		{"auth", "yes", ""},
		{"auth", "true", ""},
		{"auth", "", ""},
		{"separator", "__", "__"},
		{"separator", "_", "_"},
		{"separator", "-", "-"},
		{"separator", ".", "."},
		{"separator", "_._", "_._"},
		{"separator", "---", "---"},
		{"separator", "____", ""},
		{"separator", "", ""},
		{"separator", "/", ""},
		{"separator", "_:", ""},
		{"separator", "é", ""},
		{"retention", "30", "30"},
		{"retention", "1", "1"},
		{"retention", "3650", "3650"},
		{"retention", "0", ""},
		{"retention", "3651", ""},
		{"retention", "30d", ""},
		{"timeout", "60", "60"},
		{"timeout", "1", "1"},
		{"timeout", "3600", "3600"},
		{"timeout", "0", ""},
		{"timeout", "3601", ""},
		{"timeout", "1m", ""},
		{"theme", "light", "light"},
		{"theme", "Dark", "dark"},
		{"theme", "system", "system"},
		{"theme", "blue", ""},
		{"theme", "", ""},
		{"language", "system", "system"},
		{"language", "en", "en"},
		{"language", "JA", "ja"},
		{"language", "fr", ""},
		{"language", "english", ""},
		{"startAtLogin", "on", "on"},
		{"startAtLogin", "OFF", "off"},
		{"startAtLogin", "true", ""},
		{"closeToTray", "off", "off"},
		{"closeToTray", " on ", "on"},
		{"closeToTray", "1", ""},
		{"hookTimeout", "5", "5"},
		{"hookTimeout", "1", "1"},
		{"hookTimeout", "300", "300"},
		{"hookTimeout", " 030 ", "30"},
		{"hookTimeout", "0", ""},
		{"hookTimeout", "301", ""},
		{"hookTimeout", "5s", ""},
		{"hookTimeout", "0.5", ""},
		{"hookTimeout", "-5", ""},
		{"hookTimeout", "", ""},
		{"hookMemoryMB", "64", "64"},
		{"hookMemoryMB", "16", "16"},
		{"hookMemoryMB", "4096", "4096"},
		{"hookMemoryMB", "0128", "128"},
		{"hookMemoryMB", "15", ""},
		{"hookMemoryMB", "4097", ""},
		{"hookMemoryMB", "64MB", ""},
		{"hookMemoryMB", "1e3", ""},
		{"hookMemoryMB", "", ""},
	}
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	for _, tc := range cases {
		t.Run(tc.key+"="+tc.value, func(t *testing.T) {
			before, err := s.Get(ctx, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			got, verr := Validate(tc.key, tc.value)
			serr := s.Set(ctx, tc.key, tc.value)
			after, err := s.Get(ctx, tc.key)
			if err != nil {
				t.Fatal(err)
			}
			if tc.want == "" {
				for _, err := range []error{verr, serr} {
					if !errors.Is(err, ErrInvalidValue) {
						t.Fatalf("error %v, want ErrInvalidValue", err)
					}
					d, _ := lookup(tc.key)
					if !strings.Contains(err.Error(), d.Allowed) || !strings.Contains(err.Error(), tc.key) {
						t.Errorf("message %q does not say what %s allows", err, tc.key)
					}
				}
				if after != before {
					t.Errorf("rejected value changed %s from %q to %q", tc.key, before, after)
				}
				return
			}
			if verr != nil || serr != nil {
				t.Fatalf("Validate %v, Set %v", verr, serr)
			}
			if got != tc.want || after != tc.want {
				t.Errorf("Validate = %q, stored %q, want %q", got, after, tc.want)
			}
		})
	}
}

func TestUnknownKey(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	for _, err := range []error{
		s.Set(ctx, "colour", "blue"),
		s.Reset(ctx, "colour"),
		func() error { _, err := s.Get(ctx, "colour"); return err }(),
		func() error { _, err := Validate("colour", "x"); return err }(),
	} {
		if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), "auth, bundleMaxMB, catalogMaxItems, catalogMaxKB, chatEnvProvider, chatMaxToolRounds, chatToolTimeout, chatTools, checkForUpdates, closeToTray, hookMemoryMB, hookTimeout, language, lazyIdleSeconds, listen, oauthAudience, oauthIssuers, otelEndpoint, otelSampleRatio, perClientIdleSeconds, perClientMaxInstances, port, publicURL, registryMaxKB, registryURL, retention, separator, sessionIdleTimeout, sessionsPerCredential, sessionsTotal, startAtLogin, stategateGuardTimeoutMs, stategateMaxArtifactMB, stategateMaxContextKB, stategateMaxPayloadKB, stategateMaxRunArtifactsMB, taskMaxAgeSeconds, tasksPerCredential, tasksTotal, theme, timeout, toolChanges, upstreamMaxMessageMB") {
			t.Errorf("error %v does not list the known keys", err)
		}
	}
	if all, _ := st.Settings().All(ctx); len(all) != 0 {
		t.Errorf("unknown key wrote something: %v", all)
	}
}

func TestTypedAccessors(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	for k, v := range map[string]string{"port": "4000", "listen": "::1", "auth": "off", "separator": "-", "retention": "7", "timeout": "5",
		"hookTimeout": "12", "hookMemoryMB": "256"} {
		if err := s.Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	if s.HookTimeout(ctx) != 12*time.Second || s.HookMemoryMB(ctx) != 256 {
		t.Errorf("hook limits: hookTimeout %v hookMemoryMB %d", s.HookTimeout(ctx), s.HookMemoryMB(ctx))
	}
	if s.Port(ctx) != 4000 || s.ListenAddr(ctx) != "[::1]:4000" || s.AuthEnabled(ctx) || s.Separator(ctx) != "-" ||
		s.RetentionDays(ctx) != 7 || s.TimeoutSeconds(ctx) != 5 {
		t.Errorf("typed values wrong")
	}
	if got := s.EndpointURL(ctx); got != "http://[::1]:4000/mcp" {
		t.Errorf("EndpointURL = %s", got)
	}
	for listen, want := range map[string]string{"0.0.0.0": "http://127.0.0.1:4000/mcp", "::": "http://[::1]:4000/mcp", "10.0.0.5": "http://10.0.0.5:4000/mcp"} {
		if err := s.Set(ctx, KeyListen, listen); err != nil {
			t.Fatal(err)
		}
		if got := s.EndpointURL(ctx); got != want {
			t.Errorf("listen %s: EndpointURL = %s, want %s", listen, got, want)
		}
	}
	if err := s.Reset(ctx, KeyPort); err != nil {
		t.Fatal(err)
	}
	if s.Port(ctx) != DefaultPort {
		t.Errorf("port after reset = %d", s.Port(ctx))
	}
}

// A value the CLI would never write (say, from the sqlite3 shell) falls back
// to the default with a warning instead of breaking the router.
func TestInvalidStoredValueFallsBack(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	var logs bytes.Buffer
	l := logrus.New()
	l.SetOutput(&logs)
	s.SetLogger(l)
	ctx := context.Background()
	for k, v := range map[string]string{"port": "99999", "listen": "example.com", "auth": "maybe", "separator": "::", "retention": "-3", "timeout": "x"} {
		if err := st.Settings().Set(ctx, k, v); err != nil {
			t.Fatal(err)
		}
	}
	if s.Port(ctx) != 3282 || s.ListenAddr(ctx) != "127.0.0.1:3282" || !s.AuthEnabled(ctx) || s.Separator(ctx) != "__" ||
		s.RetentionDays(ctx) != 30 || s.TimeoutSeconds(ctx) != 60 {
		t.Errorf("invalid stored values did not fall back to defaults")
	}
	if raw, _ := s.Get(ctx, KeyPort); raw != "99999" {
		t.Errorf("Get hides the stored value: %q", raw)
	}
	for _, want := range []string{"port=\\\"99999\\\"", "auth=\\\"maybe\\\"", "using the default"} {
		if !strings.Contains(logs.String(), want) {
			t.Errorf("log lacks %s:\n%s", want, logs.String())
		}
	}
	before := logs.Len()
	for i := 0; i < 10; i++ {
		s.AuthEnabled(ctx)
	}
	if logs.Len() != before {
		t.Errorf("the same bad value is logged again on every read:\n%s", logs.String()[before:])
	}
}

// A value set by another process (the CLI opens its own store) reaches a
// running Settings once the revision check notices it.
func TestSeesWritesFromAnotherConnection(t *testing.T) {
	st, path := openStore(t)
	s := New(st)
	ctx := context.Background()
	if s.Port(ctx) != DefaultPort {
		t.Fatal("default port")
	}
	other, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if err := New(other).Set(ctx, KeyPort, "5000"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(3 * RefreshInterval)
	for s.Port(ctx) != 5000 {
		if time.Now().After(deadline) {
			t.Fatalf("port still %d after %v", s.Port(ctx), 3*RefreshInterval)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestWarnings(t *testing.T) {
	cases := map[[2]string]string{
		{"separator", "."}:       "reject tool names",
		{"separator", "_._"}:     "reject tool names",
		{"separator", "__"}:      "",
		{"listen", "0.0.0.0"}:    "exposes the router",
		{"listen", "127.0.0.1"}:  "",
		{"listen", "::1"}:        "",
		{"auth", "off"}:          "every server",
		{"auth", "on"}:           "",
		{"port", "80"}:           "",
		{"separator", "bad/"}:    "",
		{"nonexistent", "value"}: "",
	}
	for in, want := range cases {
		got := Warning(in[0], in[1])
		if (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("Warning(%s, %s) = %q, want containing %q", in[0], in[1], got, want)
		}
	}
}

func TestSetManyIsAllOrNothing(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	if err := s.Set(ctx, KeyTheme, "dark"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		values map[string]string
		bad    error // nil: accepted
	}{
		{"one bad value among good ones", map[string]string{KeyTheme: "light", KeyPort: "99999", KeyLanguage: "ja"}, ErrInvalidValue},
		{"an unknown key among good ones", map[string]string{KeyTheme: "light", "colour": "blue"}, ErrUnknownKey},
		{"all good", map[string]string{KeyTheme: "Light", KeyPort: "8080", KeyCloseToTray: "off"}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before, _ := st.Settings().All(ctx)
			err := s.SetMany(ctx, tc.values)
			after, _ := st.Settings().All(ctx)
			if tc.bad != nil {
				if !errors.Is(err, tc.bad) {
					t.Fatalf("SetMany error %v, want %v", err, tc.bad)
				}
				if !reflect.DeepEqual(before, after) {
					t.Errorf("a refused SetMany wrote: before %v after %v", before, after)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if s.Theme(ctx) != "light" || s.Port(ctx) != 8080 || s.CloseToTray(ctx) {
				t.Errorf("after SetMany: %v", after)
			}
		})
	}
}

func TestChatSettings(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	if !s.ChatTools(ctx) || s.ChatMaxToolRounds(ctx) != 20 || s.ChatToolTimeout(ctx) != time.Minute {
		t.Fatalf("defaults %v %d %v", s.ChatTools(ctx), s.ChatMaxToolRounds(ctx), s.ChatToolTimeout(ctx))
	}
	for key, bad := range map[string]string{KeyChatTools: "maybe", KeyChatMaxToolRounds: "0", KeyChatToolTimeout: "3601"} {
		if err := s.Set(ctx, key, bad); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("%s=%s: %v", key, bad, err)
		}
	}
	if err := s.SetMany(ctx, map[string]string{KeyChatTools: "OFF", KeyChatMaxToolRounds: "100", KeyChatToolTimeout: "5"}); err != nil {
		t.Fatal(err)
	}
	if s.ChatTools(ctx) || s.ChatMaxToolRounds(ctx) != 100 || s.ChatToolTimeout(ctx) != 5*time.Second {
		t.Fatal("not stored")
	}
}

func TestCheckForUpdatesSetting(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	if s.CheckForUpdates(ctx) {
		t.Fatal("update checks on by default")
	}
	if err := s.Set(ctx, KeyCheckForUpdates, "daily"); !errors.Is(err, ErrInvalidValue) || !strings.Contains(err.Error(), "want on or off") {
		t.Errorf("checkForUpdates=daily: %v", err)
	}
	if s.CheckForUpdates(ctx) {
		t.Error("a refused value was stored")
	}
	if err := s.Set(ctx, KeyCheckForUpdates, "ON"); err != nil || !s.CheckForUpdates(ctx) {
		t.Errorf("checkForUpdates=ON: %v, stored %v", err, s.CheckForUpdates(ctx))
	}
}

func TestSessionSettings(t *testing.T) {
	st, _ := openStore(t)
	s := New(st)
	ctx := context.Background()
	if s.SessionsPerCredential(ctx) != 100 || s.SessionsTotal(ctx) != 1000 || s.SessionIdleTimeout(ctx) != 10*time.Minute {
		t.Fatalf("defaults %d %d %v", s.SessionsPerCredential(ctx), s.SessionsTotal(ctx), s.SessionIdleTimeout(ctx))
	}
	for key, bad := range map[string]string{KeySessionsPerCredential: "0", KeySessionsTotal: "100001", KeySessionIdleTimeout: "59"} {
		if err := s.Set(ctx, key, bad); !errors.Is(err, ErrInvalidValue) {
			t.Errorf("%s=%s: %v", key, bad, err)
		}
	}
	if err := s.SetMany(ctx, map[string]string{KeySessionsPerCredential: "5", KeySessionsTotal: "50", KeySessionIdleTimeout: "86400"}); err != nil {
		t.Fatal(err)
	}
	if s.SessionsPerCredential(ctx) != 5 || s.SessionsTotal(ctx) != 50 || s.SessionIdleTimeout(ctx) != 24*time.Hour {
		t.Fatal("not stored")
	}
}
