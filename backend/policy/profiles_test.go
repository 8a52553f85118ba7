package policy

import (
	"context"
	"slices"
	"testing"

	"github.com/mcp-router/mcp-router/backend/pipeline"
)

// match.profiles: a rule applies to requests that came through a profile
// whose name matches, plain /mcp being "default". Before it, the key was
// unknown and the file did not load.
func TestMatchByProfile(t *testing.T) {
	rg := newRig(t, "policies:\n"+
		"  - name: research-reads-only\n    match: {profiles: [\"research*\"]}\n    tools: {hide: [\"delete_*\"]}\n"+
		"  - name: nothing-by-default\n    match: {profiles: [default]}\n    servers: {deny: [\"secret\"]}\n")
	if st := rg.svc.Status(); !st.Active || st.Error != nil {
		t.Fatalf("policy: %+v", st)
	}
	as := func(profile string) context.Context {
		return pipeline.WithCaller(context.Background(), pipeline.Caller{Name: "c", Profile: profile})
	}
	call := func(profile, server, tool string) error {
		_, err := rg.chain.Serve(as(profile), &pipeline.Request{Method: pipeline.MethodToolsCall, Server: server, Item: tool, Target: server + "__" + tool})
		return err
	}
	routeErr(t, call("research-1", "notes", "delete_note"), pipeline.ReasonDenied)
	if err := call("writing", "notes", "delete_note"); err != nil {
		t.Errorf("another profile: %v", err)
	}
	if err := call("", "notes", "delete_note"); err != nil {
		t.Errorf("plain /mcp: %v", err)
	}
	routeErr(t, call("", "secret", "read"), pipeline.ReasonDenied)
	if err := call("research-1", "secret", "read"); err != nil {
		t.Errorf("the default profile's rule applied to a named profile: %v", err)
	}
	r := &pipeline.Request{Method: pipeline.MethodToolsList, List: &pipeline.List{Items: []pipeline.ListItem{tool("notes", "delete_note"), tool("notes", "show")}}}
	if _, err := rg.chain.Serve(as("research-1"), r); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, it := range r.List.Items {
		names = append(names, it.Name)
	}
	if !slices.Equal(names, []string{"notes__show"}) {
		t.Errorf("tools/list through research-1: %v", names)
	}
}
