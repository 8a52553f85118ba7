package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/pkg/browser"
	"github.com/spf13/cobra"

	"github.com/mcp-router/mcp-router/backend/oauthclient"
	"github.com/mcp-router/mcp-router/backend/settings"
	"github.com/mcp-router/mcp-router/backend/store"
)

// openBrowser opens a URL in the user's browser (tests replace it).
var openBrowser = func(url string) error {
	browser.Stdout, browser.Stderr = io.Discard, io.Discard
	return browser.OpenURL(url)
}

// logins is the upstream logins of the data dir, recording each change in
// st so that a running router reconnects the server.
func (e *env) logins(st *store.Store) (*oauthclient.Manager, error) {
	dir, err := e.resolveDataDir()
	if err != nil {
		return nil, err
	}
	set := settings.New(st)
	return oauthclient.New(oauthclient.Options{
		DataDir: dir,
		ClientMetadataURL: func() string {
			return oauthclient.ClientMetadataURL(set.PublicURL(context.Background()))
		},
		Changed: func(server string) {
			if err := st.Logins().Changed(context.Background(), server); err != nil {
				fmt.Fprintf(e.opts.Stderr, "warning: a running router will not notice the change: %v\n", err)
			}
		},
	}), nil
}

func (e *env) serversLogin() *cobra.Command {
	var clientID string
	var scopes []string
	var noBrowser bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "login NAME",
		Short: "Log in to an HTTP server that asks for OAuth (prints the URL, opens the browser, waits)",
		Long: "Runs the OAuth authorization code flow with PKCE for an HTTP or SSE server that answers 401:\n" +
			"finds its authorization server, registers the router (Client ID Metadata Document, else dynamic\n" +
			"registration, else --client-id), prints the authorization URL, opens it in the browser unless\n" +
			"--no-browser, and waits for the browser to come back to a listener on 127.0.0.1. The tokens are\n" +
			"kept in the OS keychain, else a 0600 file in the data dir; a running router reconnects the server.",
		Args: exactArgs(1, "servers login NAME [--client-id ID] [--scope S] [--no-browser] [--timeout D]"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				def, err := getServer(cmd, st, args[0])
				if err != nil {
					return err
				}
				m, err := e.logins(st)
				if err != nil {
					return err
				}
				// The login's first request carries the server's headers,
				// secret ones with their values.
				sec, err := e.serverSecrets()
				if err != nil {
					return err
				}
				withValues, err := sec.Resolve(def.Server)
				if err != nil {
					return err
				}
				ctx, cancel := context.WithTimeout(cmd.Context(), time.Minute)
				f, err := m.Begin(ctx, withValues, oauthclient.LoginOptions{ClientID: clientID, Scopes: scopes, Timeout: timeout})
				cancel()
				if err != nil {
					return fmt.Errorf("%s: %w", def.Name, err)
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "Open this URL to log in to %s (client: %s):\n%s\n", def.Name, f.Registration, f.URL)
				if !noBrowser {
					if err := openBrowser(f.URL); err != nil {
						fmt.Fprintf(cmd.ErrOrStderr(), "could not open a browser (%v): open the URL yourself\n", err)
					}
				}
				fmt.Fprintf(out, "Waiting for the browser (up to %s)…\n", timeout)
				if err := f.Wait(cmd.Context()); err != nil {
					return fmt.Errorf("%s: %w", def.Name, err)
				}
				fmt.Fprintf(out, "logged in to %s; tokens kept in the %s\n", def.Name, m.Backend())
				return nil
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&clientID, "client-id", "", "a client id registered for the router at the server's authorization server")
	f.StringArrayVar(&scopes, "scope", nil, "a scope to ask for (repeatable; default: what the server names)")
	f.BoolVar(&noBrowser, "no-browser", false, "only print the URL")
	f.DurationVar(&timeout, "timeout", oauthclient.DefaultLoginTimeout, "how long to wait for the browser")
	return cmd
}

func (e *env) serversLogout() *cobra.Command {
	return &cobra.Command{
		Use:   "logout NAME",
		Short: "Remove the OAuth login of a server (its tokens)",
		Args:  exactArgs(1, "servers logout NAME"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return e.withStore(func(st *store.Store) error {
				def, err := getServer(cmd, st, args[0])
				if err != nil {
					return err
				}
				m, err := e.logins(st)
				if err != nil {
					return err
				}
				if err := m.Logout(def.Name); err != nil {
					if errors.Is(err, oauthclient.ErrNoLogin) {
						return fmt.Errorf("%s has no login to remove", def.Name)
					}
					return err
				}
				fmt.Fprintf(cmd.OutOrStdout(), "logged out of %s\n", def.Name)
				return nil
			})
		},
	}
}

// forgetLogin deletes the OAuth login of a removed server, if it had one:
// its tokens must not outlive it nor serve a new server of the same name.
func (e *env) forgetLogin(cmd *cobra.Command, st *store.Store, name string) {
	m, err := e.logins(st)
	if err == nil {
		err = m.Logout(name)
	}
	switch {
	case err == nil:
		fmt.Fprintf(cmd.OutOrStdout(), "removed its login\n")
	case !errors.Is(err, oauthclient.ErrNoLogin):
		fmt.Fprintf(e.opts.Stderr, "warning: the login of %s was not removed: %v (run `mcp-router servers logout` after adding it back, or delete it from the keychain)\n", name, err)
	}
}
