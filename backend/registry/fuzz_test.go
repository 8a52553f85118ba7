package registry

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

// FuzzBuild feeds arbitrary server.json entries and answers to Build: it
// must never panic, and whatever it builds is a valid definition whose
// command is one of the runtimes and whose package reference never reads as
// a flag.
func FuzzBuild(f *testing.F) {
	f.Add(`{"name":"io.github.a/b","version":"1.0.0","packages":[{"registryType":"npm","identifier":"x","version":"1.0.0","transport":{"type":"stdio"},"packageArguments":[{"type":"positional","valueHint":"p","isRequired":true}],"environmentVariables":[{"name":"K","isSecret":true,"isRequired":true}]}]}`, "p", "-rf /", "K", "v")
	f.Add(`{"name":"io.github.a/b","version":"1","packages":[{"registryType":"oci","identifier":"docker.io/a/b","runtimeArguments":[{"type":"named","name":"--mount","value":"src={s},dst=/x","variables":{"s":{"isRequired":true}}}]}]}`, "s", "/etc", "", "")
	f.Add(`{"name":"io.github.a/b","version":"1","remotes":[{"type":"sse","url":"https://{h}.example.com/sse","variables":{"h":{"default":"eu"}},"headers":[{"name":"Authorization","value":"Bearer {t}","variables":{"t":{"isSecret":true}}}]}]}`, "t", "tok", "", "")
	f.Add(`{"name":"io.github.a/../b","version":"1;id","packages":[{"registryType":"npm","identifier":"--call=x","version":"-e"}]}`, "", "", "", "")
	f.Fuzz(func(t *testing.T, entry, argKey, argValue, envKey, envValue string) {
		var s Server
		if json.Unmarshal([]byte(entry), &s) != nil {
			return
		}
		ans := Answers{Args: map[string]string{argKey: argValue}, Env: map[string]string{envKey: envValue}, Headers: map[string]string{envKey: envValue}}
		for _, tgt := range []Target{{}, {Kind: "package", Index: 1}, {Kind: "remote", Index: 1}} {
			p, err := Build("https://registry.example.com", s, tgt, "", ans)
			if err != nil {
				continue
			}
			d := p.Server
			if err := d.Validate(); err != nil {
				t.Fatalf("built an invalid definition: %v", err)
			}
			if d.Transport == spec.Stdio {
				switch d.Command {
				case "npx", "uvx", "docker":
				default:
					t.Fatalf("command %q", d.Command)
				}
				if id := s.Packages[p.Target.Index-1].Identifier; strings.HasPrefix(id, "-") {
					t.Fatalf("a package identifier %q that reads as a flag was installed", id)
				}
			}
			for _, k := range d.SecretEnv {
				if _, ok := d.Env[k]; !ok {
					t.Fatalf("secret env %s without its value", k)
				}
			}
		}
	})
}
