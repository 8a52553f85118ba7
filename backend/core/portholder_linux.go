package core

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// portHolder names the process listening on TCP port, from /proc: the
// listening socket's inode in /proc/net/tcp{,6}, then the process with a
// file descriptor on that socket. "" when it cannot tell (another user's
// process hides its descriptors from us).
func portHolder(port int) string {
	inodes := map[string]bool{}
	for _, f := range []string{"/proc/net/tcp", "/proc/net/tcp6"} {
		fh, err := os.Open(f)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			// sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode
			fields := strings.Fields(sc.Text())
			if len(fields) < 10 || fields[3] != "0A" { // 0A: LISTEN
				continue
			}
			i := strings.LastIndexByte(fields[1], ':')
			if p, err := strconv.ParseUint(fields[1][i+1:], 16, 16); err == nil && int(p) == port && fields[9] != "0" {
				inodes["socket:["+fields[9]+"]"] = true
			}
		}
		fh.Close()
	}
	if len(inodes) == 0 {
		return ""
	}
	fds, _ := filepath.Glob("/proc/[0-9]*/fd/*")
	for _, fd := range fds {
		if target, err := os.Readlink(fd); err == nil && inodes[target] {
			pid := strings.Split(fd, "/")[2]
			comm, _ := os.ReadFile("/proc/" + pid + "/comm")
			return fmt.Sprintf("pid %s (%s)", pid, strings.TrimSpace(string(comm)))
		}
	}
	return ""
}
