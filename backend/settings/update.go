package settings

import (
	"context"
	"sort"
)

// KeyCheckForUpdates: on, the desktop app asks the project's GitHub
// Releases for a newer version when Settings opens (docs/install.md#updates).
const KeyCheckForUpdates = "checkForUpdates"

func init() {
	defs = append(defs,
		Def{Key: KeyCheckForUpdates, Default: "off", Allowed: "on or off",
			Help: "ask GitHub Releases for a newer version (nothing is downloaded)", check: checkOnOff},
	)
	sort.Slice(defs, func(i, j int) bool { return defs[i].Key < defs[j].Key })
}

// CheckForUpdates reports whether update checks may run on their own.
func (s *Settings) CheckForUpdates(ctx context.Context) bool {
	return s.valid(ctx, KeyCheckForUpdates) == "on"
}
