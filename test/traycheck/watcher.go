//go:build ignore

// A stand-in StatusNotifierWatcher, the part of a desktop's tray that items
// register with: it owns org.kde.StatusNotifierWatcher on the session bus
// and prints "SENDER PATH" for every item that registers.
// Used by scripts/tray-check.sh: go run test/traycheck/watcher.go
package main

import (
	"fmt"
	"os"

	"github.com/godbus/dbus/v5"
)

type watcher struct{}

func (watcher) RegisterStatusNotifierItem(sender dbus.Sender, path string) *dbus.Error {
	fmt.Printf("%s %s\n", sender, path)
	_ = os.Stdout.Sync()
	return nil
}

func main() {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		fmt.Fprintln(os.Stderr, "watcher:", err)
		os.Exit(1)
	}
	if err := conn.Export(watcher{}, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		fmt.Fprintln(os.Stderr, "watcher:", err)
		os.Exit(1)
	}
	if _, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil {
		fmt.Fprintln(os.Stderr, "watcher:", err)
		os.Exit(1)
	}
	select {}
}
