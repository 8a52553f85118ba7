package appapi

import (
	"errors"
	"os"
	"strings"

	"github.com/mcp-router/mcp-router/backend/electronimport"
)

// ElectronDatabase is where the Electron MCP Router keeps its database on
// this machine, and whether one is there.
type ElectronDatabase struct {
	Path   string `json:"path"`
	Exists bool   `json:"exists"`
}

// FindElectronDatabase looks for the Electron app's database at its usual
// place (docs/import.md).
func (a *API) FindElectronDatabase() (ElectronDatabase, error) {
	path, err := electronimport.DefaultDatabase()
	if err != nil {
		return ElectronDatabase{}, err
	}
	st, err := os.Stat(path)
	return ElectronDatabase{Path: path, Exists: err == nil && st.Mode().IsRegular()}, nil
}

// PreviewElectronImport reads the Electron app's database (kind
// "database") or Export (kind "export") at path and returns what an
// import would do; it writes nothing.
func (a *API) PreviewElectronImport(kind, path string) (electronimport.Plan, error) {
	src, err := a.readElectron(kind, path)
	if err != nil {
		return electronimport.Plan{}, err
	}
	return electronimport.MakePlan(bg(), a.core.Store, src, a.loopGuard().Refuse(bg()))
}

// ImportElectron imports what PreviewElectronImport shows — the plan is
// made again from the file as it is now — and returns it.
func (a *API) ImportElectron(kind, path string) (electronimport.Plan, error) {
	plan, err := a.PreviewElectronImport(kind, path)
	if err != nil {
		return electronimport.Plan{}, err
	}
	if err := electronimport.Apply(bg(), a.core.Store, a.core.ServerSecrets, plan); err != nil {
		return electronimport.Plan{}, err
	}
	if plan.Empty() {
		return plan, nil
	}
	// The profiles first, so the servers they name are served through them
	// as soon as they start.
	if err := a.core.Profiles.Reload(bg()); err != nil {
		return plan, err
	}
	if err := a.core.SyncServers(bg()); err != nil {
		return plan, err
	}
	for _, s := range plan.Servers {
		if r, err := a.core.Store.Servers().Get(bg(), s.Name); err == nil {
			a.hub.emit(EventServersChanged, a.serverView(r.Server))
		}
	}
	return plan, nil
}

func (a *API) readElectron(kind, path string) (electronimport.Source, error) {
	path = strings.TrimSpace(path)
	if path == "" {
		return electronimport.Source{}, errors.New("which file? the path is empty")
	}
	switch kind {
	case "database":
		return electronimport.ReadDatabase(bg(), path)
	case "export":
		return electronimport.ReadExport(path)
	}
	return electronimport.Source{}, errors.New(`kind must be "database" or "export"`)
}
