package config

import (
	"encoding/base64"
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

// Each link decodes back to the entry the snippet holds, with its name.
func TestInstallLinksDecodeBack(t *testing.T) {
	for _, client := range LinkClients {
		for _, mode := range SnippetModes {
			o := SnippetOptions{Token: testToken, BinaryPath: testBin, URL: "http://127.0.0.1:4000/mcp?a=1&b=<2> +", Name: "mcp-router-work"}
			link, err := InstallLink(client, mode, o)
			if err != nil {
				t.Fatal(err)
			}
			snippet, _ := Snippet(client, mode, o)
			var doc map[string]map[string]map[string]any
			if err := json.Unmarshal([]byte(snippet), &doc); err != nil {
				t.Fatal(err)
			}
			want := doc[JSONTopKey(client)]["mcp-router-work"]

			var got map[string]any
			var name string
			switch client {
			case ClientCursor, ClientLMStudio:
				prefix := map[string]string{ClientCursor: "cursor://anysphere.cursor-deeplink/mcp/install?", ClientLMStudio: "lmstudio://add_mcp?"}[client]
				if !strings.HasPrefix(link, prefix) {
					t.Fatalf("%s: %s", client, link)
				}
				q, err := url.ParseQuery(strings.TrimPrefix(link, prefix))
				if err != nil {
					t.Fatal(err)
				}
				name = q.Get("name")
				raw, err := base64.StdEncoding.DecodeString(q.Get("config"))
				if err != nil {
					t.Fatalf("%s: config is not base64: %v", client, err)
				}
				if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatal(err)
				}
			case ClientVSCode:
				const prefix = "vscode:mcp/install?"
				if !strings.HasPrefix(link, prefix) || strings.ContainsAny(link[len(prefix):], " {}\"&<>+") {
					t.Fatalf("vscode: not an encoded JSON query: %s", link)
				}
				raw, err := url.PathUnescape(link[len(prefix):])
				if err != nil {
					t.Fatal(err)
				}
				if err := json.Unmarshal([]byte(raw), &got); err != nil {
					t.Fatal(err)
				}
				name, _ = got["name"].(string)
				delete(got, "name")
			}
			if name != "mcp-router-work" {
				t.Errorf("%s %s: name %q", client, mode, name)
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: link holds %v, the snippet %v", client, mode, got, want)
			}
		}
	}
	if _, err := InstallLink(ClientZed, ModeHTTP, SnippetOptions{}); err == nil || !strings.Contains(err.Error(), "no install link") {
		t.Errorf("zed link: %v", err)
	}
}

// The documented examples' encodings: LM Studio's docs show the config
// base64 with '=' escaped in the query.
func TestInstallLinkEncodingMatchesTheDocs(t *testing.T) {
	if got := uriComponent(`{"a b":"x&y=z/é"}`); got != "%7B%22a%20b%22%3A%22x%26y%3Dz%2F%C3%A9%22%7D" {
		t.Errorf("uriComponent: %s", got)
	}
	link, err := InstallLink(ClientLMStudio, ModeHTTP, SnippetOptions{URL: "https://huggingface.co/mcp", Name: "hf-mcp-server"})
	if err != nil {
		t.Fatal(err)
	}
	// The docs' example entry has no type and is {"url": …}.
	if want := "lmstudio://add_mcp?config=" + url.QueryEscape(base64.StdEncoding.EncodeToString([]byte(`{"url":"https://huggingface.co/mcp"}`))) + "&name=hf-mcp-server"; link != want {
		t.Errorf("got  %s\nwant %s", link, want)
	}
}
