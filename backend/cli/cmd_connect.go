package cli

import (
	"context"
	"net/url"
	"os"
	"strings"

	"github.com/sirupsen/logrus"
	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/bridge"
	"github.com/mcp-router/mcp-router/backend/config"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Environment variables of `connect`.
const (
	envToken = config.TokenEnv // what the stdio snippets set
	envURL   = "MCPR_URL"
)

func (e *env) connectCommand() *cobra.Command {
	var rawURL, token string
	cmd := &cobra.Command{
		Use:   "connect",
		Short: "Bridge stdin/stdout to a running router, for AI clients that only start stdio servers",
		Long: "connect reads JSON-RPC messages (one per line) on stdin, sends them to a running router's\n" +
			"endpoint and writes the router's messages to stdout. The endpoint is --url, else $MCPR_URL,\n" +
			"else the listen and port settings of the data dir, else " + config.DefaultEndpointURL + ".\n" +
			"The token is --token, else $MCPR_TOKEN. See docs/connect.md.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			u, err := e.connectURL(cmd.Context(), rawURL, cmd.Flags().Changed("url"))
			if err != nil {
				return err
			}
			tok := token
			if !cmd.Flags().Changed("token") {
				tok = os.Getenv(envToken)
			}
			tok = strings.TrimSpace(tok)
			if strings.ContainsAny(tok, " \t\r\n") {
				return usagef("bad token: it must not contain spaces or line breaks")
			}
			err = bridge.Run(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout(), bridge.Options{
				URL: u, Token: tok, Logger: logrus.StandardLogger(),
			})
			if cmd.Context().Err() != nil {
				return nil // interrupted: SIGINT or SIGTERM
			}
			return err
		},
	}
	cmd.Flags().StringVar(&rawURL, "url", "", "the router's endpoint (default $"+envURL+", else from the settings, else "+config.DefaultEndpointURL+")")
	cmd.Flags().StringVar(&token, "token", "", "access token (default $"+envToken+")")
	return cmd
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
	if _, err := os.Stat(config.DBPath(dir)); err != nil {
		return ""
	}
	st, err := store.Open(config.DBPath(dir))
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
