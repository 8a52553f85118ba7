package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
)

func settingsJSON(t *testing.T, dir string) map[string]string {
	t.Helper()
	var m map[string]string
	if err := json.Unmarshal([]byte(mustRun(t, dir, "settings", "list", "--json")), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// assertOneLineError checks the contract for bad input: one error line, the
// wanted exit code.
func assertOneLineError(t *testing.T, r result, code int, want string) {
	t.Helper()
	if r.code != code {
		t.Errorf("exit %d, want %d (stderr %q)", r.code, code, r.stderr)
	}
	lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
	if len(lines) != 1 || !strings.HasPrefix(lines[0], "mcp-router: ") {
		t.Errorf("stderr is not one error line: %q", r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		t.Errorf("stderr %q lacks %q", r.stderr, want)
	}
	if r.stdout != "" {
		t.Errorf("stdout on error: %q", r.stdout)
	}
}

func TestSettingsGetSetList(t *testing.T) {
	dir := t.TempDir()
	want := map[string]string{"auth": "on", "listen": "127.0.0.1", "port": "3282", "retention": "30", "separator": "__", "timeout": "60",
		"theme": "system", "language": "system", "startAtLogin": "off", "closeToTray": "on",
		"hookTimeout": "5", "hookMemoryMB": "64", "chatTools": "on", "chatEnvProvider": "auto", "otelEndpoint": "", "otelSampleRatio": "1", "chatMaxToolRounds": "20", "chatToolTimeout": "60", "lazyIdleSeconds": "300", "bundleMaxMB": "512", "approvalTimeoutSeconds": "60", "checkForUpdates": "off",
		"oauthIssuers": "", "oauthAudience": "", "publicURL": "",
		"stategateGuardTimeoutMs": "2000", "stategateMaxArtifactMB": "256", "stategateMaxContextKB": "1024",
		"stategateMaxPayloadKB": "1024", "stategateMaxRunArtifactsMB": "1024",
		"sessionsPerCredential": "100", "sessionsTotal": "1000", "sessionIdleTimeout": "600",
		"tasksPerCredential": "64", "tasksTotal": "1024", "taskMaxAgeSeconds": "3600",
		"upstreamMaxMessageMB":  "32",
		"perClientMaxInstances": "16", "perClientIdleSeconds": "600",
		"catalogMaxItems": "2000", "catalogMaxKB": "8192", "toolChanges": "notify",
		"registryURL": "https://registry.modelcontextprotocol.io", "registryMaxKB": "4096"}
	if got := settingsJSON(t, dir); !reflect.DeepEqual(got, want) {
		t.Fatalf("defaults %v", got)
	}
	if got := mustRun(t, dir, "settings", "get", "port"); got != "3282\n" {
		t.Errorf("get port = %q", got)
	}

	sets := []struct{ key, value, stored, warning string }{
		{"port", "4000", "4000", ""},
		{"listen", "0.0.0.0", "0.0.0.0", "exposes the router"},
		{"auth", "off", "off", "every server"},
		{"auth", "ON", "on", ""},
		{"auth", "off", "off", "every server"},
		{"separator", ".", ".", "reject tool names containing '.'"},
		{"separator", "-", "-", ""},
		{"retention", "90", "90", ""},
		{"timeout", "120", "120", ""},
		{"hookTimeout", "15", "15", ""},
		{"hookMemoryMB", " 256 ", "256", ""},
	}
	for _, s := range sets {
		r := run(t, dir, "", "settings", "set", s.key, s.value)
		if r.code != 0 {
			t.Fatalf("set %s %s: %s", s.key, s.value, r.stderr)
		}
		if r.stdout != s.key+" = "+s.stored+"\n" {
			t.Errorf("set %s said %q", s.key, r.stdout)
		}
		if s.warning == "" && r.stderr != "" || s.warning != "" && !strings.HasPrefix(r.stderr, "warning: ") || !strings.Contains(r.stderr, s.warning) {
			t.Errorf("set %s %s: stderr %q, want warning %q", s.key, s.value, r.stderr, s.warning)
		}
		if got := mustRun(t, dir, "settings", "get", s.key); got != s.stored+"\n" {
			t.Errorf("get %s = %q after set", s.key, got)
		}
		want[s.key] = s.stored
	}
	if got := settingsJSON(t, dir); !reflect.DeepEqual(got, want) {
		t.Errorf("list --json %v, want %v", got, want)
	}
	table := mustRun(t, dir, "settings", "list")
	for _, line := range []string{"KEY", "port", "4000", "3282", "separator"} {
		if !strings.Contains(table, line) {
			t.Errorf("table lacks %q:\n%s", line, table)
		}
	}
	if got := mustRun(t, dir, "settings", "reset", "port"); got != "port = 3282 (default)\n" {
		t.Errorf("reset said %q", got)
	}
	if got := mustRun(t, dir, "settings", "get", "port"); got != "3282\n" {
		t.Errorf("port after reset = %q", got)
	}
}

func TestSettingsBadInput(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "settings", "set", "port", "4000")
	mustRun(t, dir, "settings", "set", "separator", "-")
	cases := []struct {
		name string
		args []string
		want string
		code int
	}{
		{"unknown key set", []string{"settings", "set", "colour", "blue"}, `unknown setting "colour" (known settings: approvalTimeoutSeconds, auth, bundleMaxMB, catalogMaxItems, catalogMaxKB, chatEnvProvider, chatMaxToolRounds, chatToolTimeout, chatTools, checkForUpdates, closeToTray, hookMemoryMB, hookTimeout, language, lazyIdleSeconds, listen, oauthAudience, oauthIssuers, otelEndpoint, otelSampleRatio, perClientIdleSeconds, perClientMaxInstances, port, publicURL, registryMaxKB, registryURL, retention, separator, sessionIdleTimeout, sessionsPerCredential, sessionsTotal, startAtLogin, stategateGuardTimeoutMs, stategateMaxArtifactMB, stategateMaxContextKB, stategateMaxPayloadKB, stategateMaxRunArtifactsMB, taskMaxAgeSeconds, tasksPerCredential, tasksTotal, theme, timeout, toolChanges, upstreamMaxMessageMB)`, ExitError},
		{"unknown key get", []string{"settings", "get", "colour"}, `unknown setting "colour"`, ExitError},
		{"unknown key reset", []string{"settings", "reset", "colour"}, `unknown setting "colour"`, ExitError},
		{"port zero", []string{"settings", "set", "port", "0"}, `bad value "0" for port: want a whole number from 1 to 65535`, ExitError},
		{"port too big", []string{"settings", "set", "port", "70000"}, "1 to 65535", ExitError},
		{"port word", []string{"settings", "set", "port", "http"}, "1 to 65535", ExitError},
		{"listen hostname", []string{"settings", "set", "listen", "localhost"}, "want an IP address", ExitError},
		{"listen with port", []string{"settings", "set", "listen", "127.0.0.1:80"}, "want an IP address", ExitError},
		{"auth yes", []string{"settings", "set", "auth", "yes"}, `bad value "yes" for auth: want on or off`, ExitError},
		{"separator slash", []string{"settings", "set", "separator", "/"}, "1 to 3 characters from _ - .", ExitError},
		{"separator long", []string{"settings", "set", "separator", "____"}, "1 to 3 characters", ExitError},
		{"separator empty", []string{"settings", "set", "separator", ""}, "1 to 3 characters", ExitError},
		{"retention zero", []string{"settings", "set", "retention", "0"}, "from 1 to 3650", ExitError},
		{"timeout huge", []string{"settings", "set", "timeout", "9999"}, "from 1 to 3600", ExitError},
		{"hookTimeout zero", []string{"settings", "set", "hookTimeout", "0"}, `bad value "0" for hookTimeout: want a whole number of seconds from 1 to 300`, ExitError},
		{"hookTimeout with unit", []string{"settings", "set", "hookTimeout", "5s"}, "seconds from 1 to 300", ExitError},
		{"hookMemoryMB small", []string{"settings", "set", "hookMemoryMB", "8"}, `bad value "8" for hookMemoryMB: want a whole number of megabytes from 16 to 4096`, ExitError},
		{"hookMemoryMB with unit", []string{"settings", "set", "hookMemoryMB", "1GB"}, "megabytes from 16 to 4096", ExitError},
		{"set missing value", []string{"settings", "set", "port"}, "usage: mcp-router settings set KEY VALUE", ExitUsage},
		{"set extra args", []string{"settings", "set", "port", "1", "2"}, "usage: mcp-router settings set KEY VALUE", ExitUsage},
		{"get no key", []string{"settings", "get"}, "usage: mcp-router settings get KEY", ExitUsage},
		{"list with arg", []string{"settings", "list", "port"}, "", ExitUsage},
		{"unknown subcommand", []string{"settings", "delete", "port"}, "", ExitUsage},
	}
	before := settingsJSON(t, dir)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assertOneLineError(t, run(t, dir, "", tc.args...), tc.code, tc.want)
			if after := settingsJSON(t, dir); !reflect.DeepEqual(after, before) {
				t.Errorf("settings changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// `settings set startAtLogin` writes or removes the login item as the
// settings page does; a build without a desktop app refuses it and stores
// nothing.
func TestSettingsStartAtLoginWritesTheLoginItem(t *testing.T) {
	dir := t.TempDir()
	var calls []bool
	fail := false
	runWith := func(o Options, args ...string) result {
		t.Helper()
		var out, errb bytes.Buffer
		o.Stdout, o.Stderr, o.Stdin = &out, &errb, strings.NewReader("")
		code := Main(context.Background(), append([]string{"--data-dir", dir}, args...), o)
		return result{code, out.String(), errb.String()}
	}
	desktop := Options{LoginItem: func(on bool) error {
		if fail {
			return errors.New("no autostart folder")
		}
		calls = append(calls, on)
		return nil
	}}
	stored := func() string { return strings.TrimSpace(mustRun(t, dir, "settings", "get", "startAtLogin")) }

	if r := runWith(desktop, "settings", "set", "startAtLogin", "on"); r.code != 0 || stored() != "on" {
		t.Fatalf("set on: %+v, stored %q", r, stored())
	}
	if r := runWith(desktop, "settings", "set", "startAtLogin", "on"); r.code != 0 {
		t.Fatalf("set on again: %+v", r)
	}
	if r := runWith(desktop, "settings", "reset", "startAtLogin"); r.code != 0 || stored() != "off" {
		t.Fatalf("reset: %+v, stored %q", r, stored())
	}
	if want := []bool{true, false}; !reflect.DeepEqual(calls, want) {
		t.Errorf("login item calls = %v; want %v (nothing for an unchanged value)", calls, want)
	}

	fail = true
	if r := runWith(desktop, "settings", "set", "startAtLogin", "on"); r.code != ExitError ||
		!strings.Contains(r.stderr, "startAtLogin: no autostart folder") || stored() != "off" {
		t.Errorf("failing login item: %+v, stored %q", r, stored())
	}
	if r := runWith(Options{}, "settings", "set", "startAtLogin", "on"); r.code != ExitError ||
		!strings.Contains(r.stderr, "no desktop app") || stored() != "off" {
		t.Errorf("no desktop app: %+v, stored %q", r, stored())
	}
}
