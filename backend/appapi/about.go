package appapi

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/core"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/update"
)

// The About section of Settings: the running version and the update check
// (docs/install.md#updates). Nothing is downloaded or run: a check reads
// the latest release's metadata, and the UI links to its page.

// UpdateCheckInterval is how long a check's result answers the automatic
// checks (CheckForUpdates without force) before GitHub is asked again.
const UpdateCheckInterval = 6 * time.Hour

// ErrUpdateChecksOff refuses an automatic check while checkForUpdates is off.
var ErrUpdateChecksOff = errors.New("update checks are off: turn on \"Check for updates\" in Settings → About, or press Check now")

// AboutInfo is the About section.
type AboutInfo struct {
	Version string `json:"version"` // as `mcp-router --version` prints it
	// DevBuild: the version is not a release (dev, a bare commit, commits
	// after a tag, -dirty).
	DevBuild        bool `json:"devBuild"`
	CheckForUpdates bool `json:"checkForUpdates"`
	// LastCheck is the last successful check of this process, if any.
	LastCheck *update.Result `json:"lastCheck"`
}

type updateCache struct {
	mu   sync.Mutex // one check at a time
	last *update.Result
	at   time.Time
}

func (a *API) about(ctx context.Context) AboutInfo {
	a.updates.mu.Lock()
	last := a.updates.last
	a.updates.mu.Unlock()
	return AboutInfo{Version: core.Version, DevBuild: update.ParseVersion(core.Version).Dev, CheckForUpdates: a.core.Settings.CheckForUpdates(ctx), LastCheck: last}
}

// About returns the running version, whether update checks are on and the
// last check's result.
func (a *API) About() (AboutInfo, error) { return a.about(bg()), nil }

// SetCheckForUpdates turns the automatic update check on or off (the
// setting checkForUpdates). It checks nothing itself.
func (a *API) SetCheckForUpdates(on bool) (AboutInfo, error) {
	if err := a.core.Settings.Set(bg(), settings.KeyCheckForUpdates, onOff(on)); err != nil {
		return AboutInfo{}, err
	}
	return a.about(bg()), nil
}

// CheckForUpdates asks the project's GitHub Releases for the latest version.
// force is the user's click on Check now: it always asks. Without force
// (the page opening) it asks only while checkForUpdates is on, and a result
// younger than UpdateCheckInterval is returned as it is.
func (a *API) CheckForUpdates(force bool) (update.Result, error) {
	ctx := bg()
	if !force && !a.core.Settings.CheckForUpdates(ctx) {
		return update.Result{}, ErrUpdateChecksOff
	}
	a.updates.mu.Lock()
	defer a.updates.mu.Unlock()
	if !force && a.updates.last != nil && time.Since(a.updates.at) < UpdateCheckInterval {
		return *a.updates.last, nil
	}
	r, err := a.opts.Updates.Check(ctx)
	if err != nil {
		return update.Result{}, err
	}
	a.updates.last, a.updates.at = &r, time.Now()
	return r, nil
}
