package gateway

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestConvertTool(t *testing.T) {
	cases := []struct {
		name    string
		raw     string
		wantErr string
		check   func(t *testing.T, schema string)
	}{
		{"keeps every schema keyword", `{"name":"x","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"a":{"type":"string","pattern":"^a+$","x-custom":1}},"additionalProperties":false}}`, "",
			func(t *testing.T, schema string) {
				for _, kw := range []string{`"$schema"`, `"pattern"`, `"x-custom"`, `"additionalProperties"`} {
					if !strings.Contains(schema, kw) {
						t.Errorf("schema lost %s: %s", kw, schema)
					}
				}
			}},
		{"no schema gets an empty object schema", `{"name":"x"}`, "", func(t *testing.T, schema string) {
			if schema != `{"type":"object"}` {
				t.Errorf("schema = %s", schema)
			}
		}},
		{"not an object", `[1,2]`, "cannot unmarshal", nil},
		{"bad header annotation", `{"name":"x","inputSchema":{"type":"object","properties":{"a":{"type":"object","x-mcp-header":"Bad Header"}}}}`, "x-mcp-header", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tool, err := convertTool(json.RawMessage(tc.raw), "srv__x")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if tool.Name != "srv__x" {
				t.Errorf("name = %s", tool.Name)
			}
			out, _ := json.Marshal(tool)
			var m map[string]json.RawMessage
			_ = json.Unmarshal(out, &m)
			tc.check(t, string(m["inputSchema"]))
		})
	}
}
