//go:build unix

package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestServersExportIsPrivateWhateverTheUmask: an export holds servers' env
// and header values, so `servers export -o FILE` makes FILE 0600 under any
// umask (not 0644 under 0, nor 0400 under 0277).
func TestServersExportIsPrivateWhateverTheUmask(t *testing.T) {
	dir := t.TempDir()
	mustRun(t, dir, "servers", "add", "gh", "--url", "https://api.example.com/mcp", "--header", "Authorization=Bearer sk-secret")
	for _, mask := range []int{0o022, 0, 0o277} {
		t.Run(fmt.Sprintf("umask %04o", mask), func(t *testing.T) {
			old := syscall.Umask(mask)
			defer syscall.Umask(old)
			file := filepath.Join(t.TempDir(), "servers.json")
			mustRun(t, dir, "servers", "export", "-o", file)
			st, err := os.Stat(file)
			if err != nil || st.Mode().Perm() != 0o600 {
				t.Fatalf("exported file: %v %v", st.Mode(), err)
			}
		})
	}
}
