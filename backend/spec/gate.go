package spec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/mcp-router/mcp-router/backend/filelimit"
)

// Gate locks a server's tools per client session until the client calls
// the server's activate tool (seed 000). The zero value is "no gate".
type Gate struct {
	Enabled bool `json:"enabled"`
	// Message is what an AI sees before activation: the activate tool's
	// description, the refusal of a locked call and the server's part of
	// the router's instructions. Empty means a default naming the tool.
	Message string `json:"message,omitempty"`
	// InitTool is a tool of this server run on every activation.
	InitTool string `json:"initTool,omitempty"`
	// InitArgs are InitTool's arguments: a JSON object.
	InitArgs json.RawMessage `json:"initArgs,omitempty"`
	// InitArgFiles maps an argument name to a file whose content becomes
	// that argument's string value. The file is read at each activation,
	// so an edit to it takes effect without touching the router.
	InitArgFiles map[string]string `json:"initArgFiles,omitempty"`
	// OverviewTool names the server's documentation tool: gated like the
	// rest, and pointed to by the activate result.
	OverviewTool string `json:"overviewTool,omitempty"`
	// HideTools hides the server's tools from tools/list until the session
	// activates; otherwise they are listed and refused until then.
	HideTools bool `json:"hideTools,omitempty"`
}

// IsZero reports whether nothing about the gate is set.
func (g Gate) IsZero() bool {
	return !g.Enabled && g.Message == "" && g.InitTool == "" && len(g.InitArgs) == 0 &&
		len(g.InitArgFiles) == 0 && g.OverviewTool == "" && !g.HideTools
}

// validate reports the first problem with the gate settings.
func (g Gate) validate() error {
	if len(g.Message) > 2000 {
		return fmt.Errorf("gate message is %d characters; keep it under 2000 (it goes into every client's instructions)", len(g.Message))
	}
	if (len(g.InitArgs) > 0 || len(g.InitArgFiles) > 0) && g.InitTool == "" {
		return fmt.Errorf("gate init arguments need an init tool")
	}
	args, err := g.initArgsObject()
	if err != nil {
		return err
	}
	for _, k := range sortedKeys(g.InitArgFiles) {
		path := g.InitArgFiles[k]
		if k == "" {
			return fmt.Errorf("gate init argument file %q has no argument name", path)
		}
		if _, dup := args[k]; dup {
			return fmt.Errorf("gate init argument %q is given both as JSON and as a file", k)
		}
		if !filepath.IsAbs(path) {
			return fmt.Errorf("gate init argument file %q must be an absolute path", path)
		}
	}
	return nil
}

func (g Gate) initArgsObject() (map[string]any, error) {
	if len(bytes.TrimSpace(g.InitArgs)) == 0 {
		return map[string]any{}, nil
	}
	var args map[string]any
	if err := json.Unmarshal(g.InitArgs, &args); err != nil || args == nil {
		return nil, fmt.Errorf("gate init arguments must be a JSON object: %s", strings.TrimSpace(string(g.InitArgs)))
	}
	return args, nil
}

// InitArguments builds InitTool's arguments: InitArgs with each file of
// InitArgFiles read now and set as its argument's string value.
func (g Gate) InitArguments() (map[string]any, error) {
	args, err := g.initArgsObject()
	if err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(g.InitArgFiles) {
		// A regular file within the cap: a FIFO is refused, never waited on
		// by the activation that reads it.
		b, _, err := initArgLimits().ReadFile(g.InitArgFiles[k])
		if err != nil {
			return nil, fmt.Errorf("init argument %q: %w", k, err)
		}
		args[k] = string(b)
	}
	return args, nil
}

// initArgLimits bound a file whose content becomes an init argument.
func initArgLimits() filelimit.Limits {
	return filelimit.Limits{What: "gate init argument file", MaxBytes: 1 << 20}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
