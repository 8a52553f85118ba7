package chat

import (
	"fmt"
	"net/url"
	"strings"

	"github.com/mcp-router/mcp-router/backend/store"
)

// A first chat without setup: with no provider configured, the chat uses
// the vendor's key from the environment, the variables the vendors' own SDKs
// read by default (openai-go: OPENAI_API_KEY, OPENAI_BASE_URL;
// anthropic-sdk-go: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL). The values are
// read when a turn needs them and never stored or logged.

// Choices of the chatEnvProvider setting and of `chat --env-provider`.
const (
	EnvAuto = "auto" // OpenAI's key if set, else Anthropic's
	EnvOff  = "off"  // never use the environment
)

// EnvVendor is one vendor whose key the chat can take from the environment.
type EnvVendor struct {
	Kind         string // store.ProviderOpenAI or store.ProviderAnthropic
	Label        string // the vendor's name, for people
	KeyVar       string
	BaseURLVar   string
	DefaultModel string
}

// EnvVendors in the order auto picks them: the first whose key variable is
// set.
func EnvVendors(openaiModel, anthropicModel string) []EnvVendor {
	return []EnvVendor{
		{Kind: store.ProviderOpenAI, Label: "OpenAI", KeyVar: "OPENAI_API_KEY", BaseURLVar: "OPENAI_BASE_URL", DefaultModel: openaiModel},
		{Kind: store.ProviderAnthropic, Label: "Anthropic", KeyVar: "ANTHROPIC_API_KEY", BaseURLVar: "ANTHROPIC_BASE_URL", DefaultModel: anthropicModel},
	}
}

// Bounds of what is read from the environment.
const (
	MaxAPIKeyLen  = 4096
	MaxBaseURLLen = 2048
)

// EnvProvider is the provider the environment gives, for the panel and the
// CLI to say what they use; it never carries the key.
type EnvProvider struct {
	Kind       string `json:"kind"`
	Label      string `json:"label"`
	KeyVar     string `json:"keyVar"`
	BaseURLVar string `json:"baseUrlVar,omitempty"` // set when the base URL came from it
	// BaseURL as shown: without its query, which may carry a token.
	BaseURL string `json:"baseUrl,omitempty"`
	Model   string `json:"model"`
	// Reason says which variable was used and why this vendor.
	Reason string `json:"reason"`
}

// envProvider is an EnvProvider with its key and whole base URL.
type envProvider struct {
	EnvProvider
	key, baseURL string
}

// config is the provider as the factory takes it; the name says where it
// came from and is never stored.
func (e envProvider) config() store.ChatProvider {
	return store.ChatProvider{Name: e.Label + " (from environment)", Kind: e.Kind, BaseURL: e.baseURL,
		DefaultModel: e.Model, Tools: "auto"}
}

// fromEnvironment picks the vendor: pick is auto, off or a kind. It returns
// (nil, nil) when the environment offers nothing, and an error naming the
// variable when a value is unusable.
func fromEnvironment(lookup func(string) (string, bool), vendors []EnvVendor, pick string) (*envProvider, error) {
	pick = strings.ToLower(strings.TrimSpace(pick))
	if pick == "" {
		pick = EnvAuto
	}
	if pick == EnvOff {
		return nil, nil
	}
	if pick != EnvAuto && !validPick(vendors, pick) {
		return nil, invalid("environment provider %q must be auto, off, openai or anthropic", pick)
	}
	var set []EnvVendor
	for _, v := range vendors {
		if pick != EnvAuto && pick != v.Kind {
			continue
		}
		if _, ok := lookup(v.KeyVar); ok {
			set = append(set, v)
		}
	}
	if len(set) == 0 {
		if pick != EnvAuto {
			for _, v := range vendors {
				if v.Kind == pick {
					return nil, fmt.Errorf("%w: %s was asked for, but %s is not set", ErrNoProvider, v.Label, v.KeyVar)
				}
			}
		}
		return nil, nil
	}
	v := set[0]
	var why string
	switch {
	case pick != EnvAuto:
		why = fmt.Sprintf("%s was asked for", v.Label)
	case len(set) > 1:
		why = fmt.Sprintf("%s and %s are both set; %s comes first (the chatEnvProvider setting or --env-provider picks)",
			v.KeyVar, set[1].KeyVar, v.KeyVar)
	default:
		why = "no provider is configured"
	}
	raw, _ := lookup(v.KeyVar)
	key := strings.TrimSpace(raw)
	switch {
	case key == "":
		return nil, invalid("%s is set but empty: set it to your %s API key, or unset it", v.KeyVar, v.Label)
	case len(key) > MaxAPIKeyLen:
		return nil, invalid("%s is longer than %d characters, the cap of an API key", v.KeyVar, MaxAPIKeyLen)
	case strings.ContainsAny(key, " \t\r\n"):
		return nil, invalid("%s must be one word (an API key), it has spaces or line breaks", v.KeyVar)
	}
	p := &envProvider{EnvProvider: EnvProvider{Kind: v.Kind, Label: v.Label, KeyVar: v.KeyVar, Model: v.DefaultModel}, key: key}
	if base, ok := lookup(v.BaseURLVar); ok && strings.TrimSpace(base) != "" {
		// Empty counts as unset, as anthropic-sdk-go does.
		base = strings.TrimSpace(base)
		shown, err := checkEnvBaseURL(v.BaseURLVar, base)
		if err != nil {
			return nil, err
		}
		p.baseURL, p.BaseURL, p.BaseURLVar = base, shown, v.BaseURLVar
	}
	p.Reason = fmt.Sprintf("using %s from the environment (%s)", v.KeyVar, why)
	if p.BaseURLVar != "" {
		p.Reason += fmt.Sprintf(", %s=%s", p.BaseURLVar, p.BaseURL)
	}
	return p, nil
}

func validPick(vendors []EnvVendor, pick string) bool {
	for _, v := range vendors {
		if v.Kind == pick {
			return true
		}
	}
	return false
}

// checkEnvBaseURL refuses a base URL the SDK could not use and returns it
// as shown (without its query). Errors never echo the value: a key pasted
// into the wrong variable would end up in a stored error.
func checkEnvBaseURL(name, raw string) (string, error) {
	if len(raw) > MaxBaseURLLen {
		return "", invalid("%s is longer than %d characters, the cap of a base URL", name, MaxBaseURLLen)
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", invalid("%s is not a URL (want http(s)://host[:port]/path)", name)
	}
	if u.User != nil {
		return "", invalid("%s must not carry a user or password: put the key in the API key variable", name)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", invalid("%s is not an http(s) URL with a host (want e.g. https://api.example.com/v1)", name)
	}
	shown := *u
	shown.RawQuery, shown.ForceQuery, shown.Fragment, shown.RawFragment = "", false, "", ""
	return shown.String(), nil
}
