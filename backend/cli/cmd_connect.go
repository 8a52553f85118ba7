package cli

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"strings"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/bridge"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/profile"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Environment variables of `connect`.
const (
	envToken = config.TokenEnv // what the stdio snippets set
	envURL   = "MCPR_URL"
)

func (e *env) connectCommand() *cobra.Command {
	var rawURL, token, profileName string
	var upAuth []string
	cmd := &cobra.Command{
		Use:   "connect",
		Short: "Bridge stdin/stdout to a running router, for AI clients that only start stdio servers",
		Long: "connect reads JSON-RPC messages (one per line) on stdin, sends them to a running router's\n" +
			"endpoint and writes the router's messages to stdout. The endpoint is --url, else $MCPR_URL,\n" +
			"else the listen and port settings of the data dir, else " + config.DefaultEndpointURL + ".\n" +
			"The token is --token, else $MCPR_TOKEN. See docs/connect.md.\n\n" +
			"--upstream-auth SERVER=VALUE (repeatable), else $" + config.UpstreamAuthEnv + " (one SERVER=VALUE a line), sends\n" +
			"VALUE as the Authorization of the server SERVER (* for every server) if it has passUpstreamAuth,\n" +
			"on this client's calls, as an HTTP client's X-Upstream-Authorization does. See docs/auth.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := e.connectURL(cmd.Context(), rawURL, cmd.Flags().Changed("url"))
			if err != nil {
				return err
			}
			if profileName != "" {
				if err := profile.CheckName(profileName); err != nil {
					return usageError{err}
				}
				// The profile's endpoint beside the router's: /mcp/NAME.
				u = strings.TrimSuffix(u, "/") + "/" + profileName
			}
			tok := token
			if !cmd.Flags().Changed("token") {
				tok = os.Getenv(envToken)
			}
			tok = strings.TrimSpace(tok)
			if strings.ContainsAny(tok, " \t\r\n") {
				return usagef("bad token: it must not contain spaces or line breaks")
			}
			header, err := upstreamAuthHeader(upAuth, cmd.Flags().Changed("upstream-auth"))
			if err != nil {
				return err
			}
			err = bridge.Run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), bridge.Options{
				URL: u, Token: tok, Logger: logrus.StandardLogger(), Header: header,
			})
			if cmd.Context().Err() != nil {
				return nil // interrupted: SIGINT or SIGTERM
			}
			return err
		},
	}
	cmd.Flags().StringVar(&rawURL, "url", "", "the router's endpoint (default $"+envURL+", else from the settings, else "+config.DefaultEndpointURL+")")
	cmd.Flags().StringVar(&token, "token", "", "access token (default $"+envToken+")")
	cmd.Flags().StringVar(&profileName, "profile", "", "connect to this profile's endpoint (URL/NAME, e.g. /mcp/NAME; docs/profiles.md)")
	addUpstreamAuthFlag(cmd, &upAuth)
	return cmd
}

// addUpstreamAuthFlag adds --upstream-auth SERVER=VALUE (connect, stdio).
func addUpstreamAuthFlag(cmd *cobra.Command, into *[]string) {
	cmd.Flags().StringArrayVar(into, "upstream-auth", nil,
		"SERVER=VALUE: VALUE goes as the Authorization of SERVER (* for all) when it has passUpstreamAuth; repeatable (default $"+config.UpstreamAuthEnv+", one a line)")
}

// upstreamAuth is a client's upstream credentials: the --upstream-auth
// entries when given, else the lines of $MCPR_UPSTREAM_AUTH. A bad entry is
// a usage error, which never repeats a value.
func upstreamAuth(flagVals []string, flagSet bool) (map[string]string, error) {
	entries := flagVals
	if !flagSet {
		entries = config.SplitUpstreamAuthEnv(os.Getenv(config.UpstreamAuthEnv))
	}
	m, err := config.ParseUpstreamAuth(entries)
	if err != nil {
		if !flagSet {
			err = fmt.Errorf("$%s: %w", config.UpstreamAuthEnv, err)
		}
		return nil, usageError{err}
	}
	return m, nil
}

// upstreamAuthHeader is upstreamAuth as the header lines connect sends.
func upstreamAuthHeader(flagVals []string, flagSet bool) (http.Header, error) {
	m, err := upstreamAuth(flagVals, flagSet)
	if err != nil {
		return nil, err
	}
	h, err := config.UpstreamAuthHeader(m)
	if err != nil {
		return nil, usageError{err}
	}
	return h, nil
}

// connectURL picks the endpoint: --url, $MCPR_URL, the settings of an
// existing data dir, the default.
func (e *env) connectURL(ctx context.Context, flagURL string, flagSet bool) (string, error) {
	if flagSet {
		return checkURL("--url", flagURL)
	}
	if v := strings.TrimSpace(os.Getenv(envURL)); v != "" {
		return checkURL("$"+envURL, v)
	}
	if u := e.settingsURL(ctx); u != "" {
		return u, nil
	}
	return config.DefaultEndpointURL, nil
}

// settingsURL reads the endpoint from the data dir's settings, if the data
// dir has a database; it never creates one.
func (e *env) settingsURL(ctx context.Context) string {
	dir, err := e.resolveDataDir()
	if err != nil {
		return ""
	}
	if _, err := os.Stat(config.DBPath(dir)); err != nil && e.database == "" {
		return ""
	}
	st, err := store.OpenDatabase(ctx, e.database, config.DBPath(dir), store.Options{})
	if err != nil {
		logrus.Debugf("connect: not reading the settings: %v", err)
		return ""
	}
	defer st.Close()
	return settings.New(st).EndpointURL(ctx)
}

// checkURL validates an endpoint URL; a bare http://host:port gets /mcp.
func checkURL(source, raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return "", usagef("bad %s %q: want an http:// or https:// URL such as %s", source, raw, config.DefaultEndpointURL)
	}
	if u.Path == "" || u.Path == "/" {
		u.Path = "/mcp"
	}
	return u.String(), nil
}
