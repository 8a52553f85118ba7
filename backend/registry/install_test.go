package registry

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/mcp-router/mcp-router/backend/spec"
)

const testRegistry = "http://127.0.0.1:1"

func npmServer() Server {
	return Server{Name: "io.github.example/weather", Version: "1.2.3", Packages: []Package{{
		RegistryType: "npm", Identifier: "@example/weather-mcp", Version: "1.2.3", RuntimeHint: "npx",
		Transport: Transport{Type: "stdio"},
		PackageArguments: []Argument{
			{Type: "named", Name: "--units", Input: Input{Choices: []string{"metric", "imperial"}, Default: "metric"}},
			{Type: "positional", ValueHint: "city", Input: Input{IsRequired: true}},
			{Type: "named", Name: "--verbose"},
		},
		EnvironmentVariables: []KeyValueInput{
			{Name: "WEATHER_API_KEY", Input: Input{IsRequired: true, IsSecret: true}},
			{Name: "WEATHER_REGION", Input: Input{Default: "eu"}},
			{Name: "WEATHER_DEBUG"},
		},
	}}}
}

func TestBuildNpmPackage(t *testing.T) {
	ans := Answers{Args: map[string]string{"city": "Tokyo; rm -rf ~"}, Env: map[string]string{"WEATHER_API_KEY": "k-123"}}
	p, err := Build(testRegistry, npmServer(), Target{}, "", ans)
	if err != nil {
		t.Fatal(err)
	}
	d := p.Server
	if d.Name != "weather" || d.Transport != spec.Stdio || d.Command != "npx" {
		t.Fatalf("definition %+v", d)
	}
	// The answer with shell metacharacters is one argv item, as given.
	if want := []string{"-y", "@example/weather-mcp@1.2.3", "--units", "metric", "Tokyo; rm -rf ~"}; !reflect.DeepEqual(d.Args, want) {
		t.Fatalf("args %q, want %q", d.Args, want)
	}
	if want := map[string]string{"WEATHER_API_KEY": "k-123", "WEATHER_REGION": "eu"}; !reflect.DeepEqual(d.Env, want) {
		t.Fatalf("env %v", d.Env)
	}
	if !reflect.DeepEqual(d.SecretEnv, []string{"WEATHER_API_KEY"}) {
		t.Fatalf("secret env %v", d.SecretEnv)
	}
	if d.Source != (spec.Source{Registry: testRegistry, Name: "io.github.example/weather", Version: "1.2.3"}) {
		t.Fatalf("source %+v", d.Source)
	}
	if p.Target != (Target{"package", 1}) || len(p.Fields) != 6 {
		t.Fatalf("target %v fields %+v", p.Target, p.Fields)
	}
}

func TestBuildNamesEveryMissingValue(t *testing.T) {
	_, err := Build(testRegistry, npmServer(), Target{}, "", Answers{})
	var miss *MissingError
	if !errors.As(err, &miss) || !errors.Is(err, ErrMissing) {
		t.Fatalf("err %v", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "--arg city=…") || !strings.Contains(msg, "--env WEATHER_API_KEY=… (secret)") {
		t.Fatalf("message %q", msg)
	}
	_, err = Build(testRegistry, npmServer(), Target{}, "", Answers{Args: map[string]string{"city": "x", "units": "kelvin"}, Env: map[string]string{"WEATHER_API_KEY": "k"}})
	if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "metric, imperial") {
		t.Fatalf("a value outside the choices: %v", err)
	}
}

func TestBuildPyPIAndOCI(t *testing.T) {
	s := Server{Name: "io.github.example/multi", Version: "2.0.0", Packages: []Package{
		{RegistryType: "pypi", Identifier: "mcp-server-time", Version: "2.0.0", Transport: Transport{Type: "stdio"}},
		{RegistryType: "oci", Identifier: "docker.io/example/multi", Version: "2.0.0", Transport: Transport{Type: "stdio"},
			RuntimeArguments:     []Argument{{Type: "named", Name: "--network", Input: Input{Value: "none"}}},
			EnvironmentVariables: []KeyValueInput{{Name: "TOKEN", Input: Input{IsRequired: true, IsSecret: true}}}},
	}}
	p, err := Build(testRegistry, s, Target{}, "", Answers{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Server.Command != "uvx" || !reflect.DeepEqual(p.Server.Args, []string{"mcp-server-time==2.0.0"}) {
		t.Fatalf("pypi %+v", p.Server)
	}
	p, err = Build(testRegistry, s, Target{"package", 2}, "multi-docker", Answers{Env: map[string]string{"TOKEN": "tok-9"}})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"run", "-i", "--rm", "--network", "none", "-e", "TOKEN", "docker.io/example/multi:2.0.0"}
	if p.Server.Command != "docker" || !reflect.DeepEqual(p.Server.Args, want) {
		t.Fatalf("oci args %q, want %q", p.Server.Args, want)
	}
	if strings.Contains(strings.Join(p.Server.Args, " "), "tok-9") || p.Server.Env["TOKEN"] != "tok-9" {
		t.Fatalf("the secret must reach docker by its environment only: %+v", p.Server)
	}
}

func TestBuildRemote(t *testing.T) {
	s := Server{Name: "com.example/hosted", Version: "0.3.0", Remotes: []Remote{{
		Type: "streamable-http", URL: "https://{tenant}.example.com/mcp",
		Variables: map[string]Input{"tenant": {IsRequired: true}},
		Headers: []KeyValueInput{
			{Name: "Authorization", Input: Input{Value: "Bearer {api_key}", Variables: map[string]Input{"api_key": {IsRequired: true, IsSecret: true}}}},
			{Name: "X-Region", Input: Input{Default: "eu"}},
		},
	}}}
	p, err := Build(testRegistry, s, Target{}, "", Answers{Args: map[string]string{"tenant": "acme", "api_key": "sk-1"}})
	if err != nil {
		t.Fatal(err)
	}
	d := p.Server
	if d.Transport != spec.HTTP || d.URL != "https://acme.example.com/mcp" || d.Headers["Authorization"] != "Bearer sk-1" || d.Headers["X-Region"] != "eu" {
		t.Fatalf("remote %+v", d)
	}
	if !reflect.DeepEqual(d.SecretHeaders, []string{"Authorization"}) {
		t.Fatalf("secret headers %v", d.SecretHeaders)
	}
	// A tenant that would move the URL's host elsewhere is refused by the URL check.
	for _, tenant := range []string{"evil.com/#", "evil.com?", "a@evil.com", "evil.com:1"} {
		_, err := Build(testRegistry, s, Target{}, "", Answers{Args: map[string]string{"tenant": tenant, "api_key": "k"}})
		if !errors.Is(err, ErrBadInput) || !strings.Contains(err.Error(), "URL variable tenant") {
			t.Fatalf("tenant %q: %v", tenant, err)
		}
	}
}

// Attacks an entry could carry: names and identifiers that would be read as
// flags, paths or shell, secrets steered onto the command line.
func TestBuildRefusesHostileEntries(t *testing.T) {
	base := func(mut func(*Package)) Server {
		s := Server{Name: "io.github.evil/x", Version: "1.0.0", Packages: []Package{{RegistryType: "npm", Identifier: "ok-pkg", Version: "1.0.0", Transport: Transport{Type: "stdio"}}}}
		mut(&s.Packages[0])
		return s
	}
	cases := map[string]struct {
		s    Server
		want error
		msg  string
	}{
		"identifier is a flag":    {base(func(p *Package) { p.Identifier = "--call=touch /tmp/x" }), ErrBadAnswer, "not an npm package name"},
		"identifier with shell":   {base(func(p *Package) { p.Identifier = "x;$(reboot)" }), ErrBadAnswer, "not an npm package name"},
		"identifier climbs":       {base(func(p *Package) { p.Identifier = "../../etc" }), ErrBadAnswer, "not an npm package name"},
		"version is a range":      {base(func(p *Package) { p.Version = ">=1 || --foo" }), ErrBadAnswer, "not a plain version"},
		"version is a flag":       {base(func(p *Package) { p.Version = "-e" }), ErrBadAnswer, "not a plain version"},
		"runtime hint is a shell": {base(func(p *Package) { p.RuntimeHint = "bash" }), ErrUnsupported, "runtime hint"},
		"named arg is not a flag": {base(func(p *Package) {
			p.PackageArguments = []Argument{{Type: "named", Name: "; rm", Input: Input{Value: "x"}}}
		}), ErrBadAnswer, "not a flag"},
		"secret on the command line": {base(func(p *Package) {
			p.PackageArguments = []Argument{{Type: "named", Name: "--token", Input: Input{IsSecret: true, Default: "d"}}}
		}), ErrUnsupported, "is secret"},
		"mcpb":                 {base(func(p *Package) { p.RegistryType = "mcpb" }), ErrUnsupported, "mcpb packages"},
		"oci ref with a space": {base(func(p *Package) { p.RegistryType = "oci"; p.Identifier = "img --privileged" }), ErrBadAnswer, "not an OCI image"},
		"env name with =": {base(func(p *Package) {
			p.EnvironmentVariables = []KeyValueInput{{Name: "LD_PRELOAD=/x", Input: Input{Value: "y"}}}
		}), ErrBadAnswer, "environment variable name"},
		"registry name with ../":   {Server{Name: "io.github.evil/../../x", Version: "1"}, ErrBadAnswer, "not a registry name"},
		"registry name with shell": {Server{Name: "io.github.evil/$(id)", Version: "1"}, ErrBadAnswer, "not a registry name"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := Build(testRegistry, c.s, Target{}, "", Answers{})
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("err %v, want %v with %q", err, c.want, c.msg)
			}
		})
	}
}

func TestDefaultNameAndNewer(t *testing.T) {
	for in, want := range map[string]string{"io.github.a/server-fs": "server-fs", "com.x/My.Server": "My-Server", "a.b/...": "server",
		"a.b/" + strings.Repeat("x", 60): strings.Repeat("x", 48)} {
		if got := DefaultName(in); got != want || !spec.ValidName(got) {
			t.Errorf("DefaultName(%q) = %q, want %q", in, got, want)
		}
	}
	for _, c := range []struct {
		a, b string
		want bool
	}{{"1.2.3", "1.10.0", true}, {"1.10.0", "1.2.3", false}, {"1.0.0", "1.0.0", false}, {"2024-01", "2024-02", true}, {"v1.0.0", "1.0.1", true}} {
		if got := Newer(c.a, c.b); got != c.want {
			t.Errorf("Newer(%q, %q) = %v", c.a, c.b, got)
		}
	}
}
