package upstream

import (
	"net/http"
	"net/url"
)

// SetProxyForTest makes newHTTPTransport see f as the proxy settings (for
// the tests of package upstream_test); it returns the undo.
func SetProxyForTest(f func(*http.Request) (*url.URL, error)) (restore func()) {
	old := proxyFor
	proxyFor = f
	return func() { proxyFor = old }
}
