package clients

import (
	"context"
	"encoding/json"

	"github.com/goccy/go-yaml"

	"github.com/mcp-router/mcp-router/backend/config"
)

// continueEntries decodes Continue's mcpServers list by item name.
func continueEntries(data []byte) (map[string][]json.RawMessage, error) {
	file, err := config.ClientConfigLimits().ParseYAML(context.Background(), data)
	if err != nil {
		return nil, err
	}
	out := map[string][]json.RawMessage{}
	if len(file.Docs) == 0 || file.Docs[0].Body == nil {
		return out, nil
	}
	var top struct {
		MCPServers []map[string]any `yaml:"mcpServers"`
	}
	if err := yaml.NodeToValue(file.Docs[0].Body, &top); err != nil {
		return nil, err
	}
	for _, it := range top.MCPServers {
		name, _ := it["name"].(string)
		b, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		out[name] = append(out[name], b)
	}
	return out, nil
}
