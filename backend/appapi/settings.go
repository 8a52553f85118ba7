package appapi

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/mcp-router/mcp-router/backend/autostart"
	"github.com/mcp-router/mcp-router/backend/settings"
)

// AppSettings is the Settings page.
type AppSettings struct {
	Port           int    `json:"port"`
	AuthEnabled    bool   `json:"authEnabled"`
	Separator      string `json:"separator"`
	RetentionDays  int    `json:"retentionDays"`
	TimeoutSeconds int    `json:"timeoutSeconds"`
	StartAtLogin   bool   `json:"startAtLogin"`
	CloseToTray    bool   `json:"closeToTray"`
	Theme          string `json:"theme"`    // light, dark or system
	Language       string `json:"language"` // system, en or ja
	// Limits of one hook run.
	HookTimeoutSeconds int `json:"hookTimeoutSeconds"`
	HookMemoryMB       int `json:"hookMemoryMB"`
	// How long a call waits for a person's approval when its policy rule
	// sets no timeout of its own (docs/policy.md, "Approval").
	ApprovalTimeoutSeconds int `json:"approvalTimeoutSeconds"`
	// The HTTP endpoint's session limits (docs/limits.md, "Sessions").
	SessionsPerCredential     int `json:"sessionsPerCredential"`
	SessionsTotal             int `json:"sessionsTotal"`
	SessionIdleTimeoutSeconds int `json:"sessionIdleTimeoutSeconds"`
	// What a tool changed upstream does: notify or hold (docs/tools.md).
	ToolChanges string `json:"toolChanges"`
}

// settingFields maps AppSettings' JSON fields to setting keys, in the
// order errors are checked.
var settingFields = []struct{ field, key string }{
	{"port", settings.KeyPort},
	{"authEnabled", settings.KeyAuth},
	{"separator", settings.KeySeparator},
	{"retentionDays", settings.KeyRetention},
	{"timeoutSeconds", settings.KeyTimeout},
	{"startAtLogin", settings.KeyStartAtLogin},
	{"closeToTray", settings.KeyCloseToTray},
	{"theme", settings.KeyTheme},
	{"language", settings.KeyLanguage},
	{"hookTimeoutSeconds", settings.KeyHookTimeout},
	{"hookMemoryMB", settings.KeyHookMemoryMB},
	{"approvalTimeoutSeconds", settings.KeyApprovalTimeout},
	{"sessionsPerCredential", settings.KeySessionsPerCredential},
	{"sessionsTotal", settings.KeySessionsTotal},
	{"sessionIdleTimeoutSeconds", settings.KeySessionIdleTimeout},
	{"toolChanges", settings.KeyToolChanges},
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}

func (s AppSettings) values() map[string]string {
	return map[string]string{
		settings.KeyPort: strconv.Itoa(s.Port), settings.KeyAuth: onOff(s.AuthEnabled),
		settings.KeySeparator: s.Separator, settings.KeyRetention: strconv.Itoa(s.RetentionDays),
		settings.KeyTimeout: strconv.Itoa(s.TimeoutSeconds), settings.KeyStartAtLogin: onOff(s.StartAtLogin),
		settings.KeyCloseToTray: onOff(s.CloseToTray), settings.KeyTheme: s.Theme, settings.KeyLanguage: s.Language,
		settings.KeyHookTimeout: strconv.Itoa(s.HookTimeoutSeconds), settings.KeyHookMemoryMB: strconv.Itoa(s.HookMemoryMB),
		settings.KeyApprovalTimeout:       strconv.Itoa(s.ApprovalTimeoutSeconds),
		settings.KeySessionsPerCredential: strconv.Itoa(s.SessionsPerCredential),
		settings.KeySessionsTotal:         strconv.Itoa(s.SessionsTotal),
		settings.KeySessionIdleTimeout:    strconv.Itoa(s.SessionIdleTimeoutSeconds),
		settings.KeyToolChanges:           s.ToolChanges,
	}
}

func readSettings(ctx context.Context, s *settings.Settings) AppSettings {
	return AppSettings{
		Port: s.Port(ctx), AuthEnabled: s.AuthEnabled(ctx), Separator: s.Separator(ctx),
		RetentionDays: s.RetentionDays(ctx), TimeoutSeconds: s.TimeoutSeconds(ctx),
		StartAtLogin: s.StartAtLogin(ctx), CloseToTray: s.CloseToTray(ctx),
		Theme: s.Theme(ctx), Language: s.Language(ctx),
		HookTimeoutSeconds: int(s.HookTimeout(ctx) / time.Second), HookMemoryMB: s.HookMemoryMB(ctx),
		ApprovalTimeoutSeconds: int(s.ApprovalTimeout(ctx) / time.Second),
		SessionsPerCredential:  s.SessionsPerCredential(ctx), SessionsTotal: s.SessionsTotal(ctx),
		SessionIdleTimeoutSeconds: int(s.SessionIdleTimeout(ctx) / time.Second),
		ToolChanges:               string(s.ToolChanges(ctx)),
	}
}

// GetSettings returns every setting the UI edits.
func (a *API) GetSettings() (AppSettings, error) { return readSettings(bg(), a.core.Settings), nil }

// SaveSettings validates every field, then writes them all in one
// transaction: a bad value is refused with a message naming its field and
// nothing is written. Turning startAtLogin on or off also writes or removes
// the OS login item. It returns the settings as stored.
func (a *API) SaveSettings(s AppSettings) (AppSettings, error) {
	a.settingMu.Lock()
	defer a.settingMu.Unlock()
	if s.ToolChanges == "" {
		// A caller that predates the field (a script, an older page)
		// leaves it as it is.
		s.ToolChanges = string(a.core.Settings.ToolChanges(bg()))
	}
	values := s.values()
	allowed := map[string]string{}
	for _, d := range settings.Defs() {
		allowed[d.Key] = d.Allowed
	}
	for _, f := range settingFields {
		if _, err := settings.Validate(f.key, values[f.key]); err != nil {
			return AppSettings{}, fmt.Errorf("%s: %q is not allowed; want %s", f.field, values[f.key], allowed[f.key])
		}
	}
	before := readSettings(bg(), a.core.Settings)
	if s.StartAtLogin != before.StartAtLogin {
		if err := a.opts.Autostart(s.StartAtLogin); err != nil {
			return AppSettings{}, fmt.Errorf("startAtLogin: %v", err)
		}
	}
	if err := a.core.Settings.SetMany(bg(), values); err != nil {
		if s.StartAtLogin != before.StartAtLogin {
			_ = a.opts.Autostart(before.StartAtLogin) // undo: the setting was not saved
		}
		return AppSettings{}, err
	}
	after := readSettings(bg(), a.core.Settings)
	if after.Separator != before.Separator || after.ToolChanges != before.ToolChanges {
		// Names change, or which changed tools are held.
		a.core.Gateway.Refresh()
	}
	a.noteSettings(after)
	a.hub.emit(EventSettingsChanged, after)
	return after, nil
}

// noteSettings records the settings the pages were last told about and
// reports whether s differs from them.
func (a *API) noteSettings(s AppSettings) (changed bool) {
	a.sentMu.Lock()
	defer a.sentMu.Unlock()
	changed = !a.sentOK || s != a.sent
	a.sent, a.sentOK = s, true
	return changed
}

// DefaultAutostart writes (on) or removes (off) this binary's login item.
func DefaultAutostart(on bool) error {
	app, err := autostart.Router()
	if err != nil {
		return err
	}
	if on {
		return app.Enable()
	}
	return app.Disable()
}
