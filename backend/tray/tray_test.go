package tray

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/mcp-router/mcp-router/internal/testpeers"
)

type logs struct {
	mu    sync.Mutex
	lines []string
}

func (l *logs) logf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, fmt.Sprintf(format, args...))
}

func (l *logs) text() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// startBus runs a private D-Bus session daemon and returns its address.
func startBus(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("dbus-daemon"); err != nil {
		if os.Getenv("MCPR_REQUIRE_PEERS") != "" {
			t.Fatal("dbus-daemon is missing (apt-get install dbus)")
		}
		t.Skip("dbus-daemon is missing")
	}
	sock := filepath.Join(t.TempDir(), "bus")
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--address=unix:path="+sock)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(line)
}

// watcher is a stand-in StatusNotifierWatcher (what a desktop's tray runs).
type watcher struct {
	mu    sync.Mutex
	items []string // D-Bus senders that registered an item
}

func (w *watcher) RegisterStatusNotifierItem(sender dbus.Sender, path string) *dbus.Error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.items = append(w.items, string(sender)+" "+path)
	return nil
}

func (w *watcher) registered() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.items...)
}

type menuItem struct {
	id    int32
	label string
}

// menu reads the tray's menu over D-Bus, as the desktop's tray does.
func menu(t *testing.T, conn *dbus.Conn, sender string) []menuItem {
	t.Helper()
	var rev uint32
	var layout struct {
		ID       int32
		Props    map[string]dbus.Variant
		Children []dbus.Variant
	}
	err := conn.Object(sender, "/StatusNotifierItem/menu").
		Call("com.canonical.dbusmenu.GetLayout", 0, int32(0), int32(-1), []string{}).Store(&rev, &layout)
	if err != nil {
		t.Fatal(err)
	}
	var out []menuItem
	for _, c := range layout.Children {
		fields, ok := c.Value().([]any)
		if !ok || len(fields) < 2 {
			continue
		}
		id, _ := fields[0].(int32)
		props, _ := fields[1].(map[string]dbus.Variant)
		label, _ := props["label"].Value().(string)
		out = append(out, menuItem{id, label})
	}
	return out
}

// TestTrayOverDBus checks the Linux tray for real, over a private session
// bus: no bus at all, a bus without a StatusNotifierWatcher (a bare Xvfb),
// a watcher that turns up later, the menu a desktop reads, and Quit.
func TestTrayOverDBus(t *testing.T) {
	// No session bus: no icon, a log line, no hang.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path="+filepath.Join(t.TempDir(), "none"))
	var l logs
	done := make(chan *Tray, 1)
	go func() { done <- Start(Options{Logf: l.logf}) }()
	select {
	case tr := <-done:
		if tr.Visible() || !strings.Contains(l.text(), "no D-Bus session bus") {
			t.Errorf("without a bus: visible %v, log %q", tr.Visible(), l.text())
		}
		tr.Stop()
	case <-time.After(10 * time.Second):
		t.Fatal("Start hung without a session bus")
	}

	// A bus, no watcher yet.
	addr := startBus(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", addr)
	status := "Router on http://127.0.0.1:3282/mcp · 0 of 1 servers running"
	var statusMu sync.Mutex
	lang := "en"
	opened, quit := make(chan struct{}, 1), make(chan struct{}, 1)
	l = logs{}
	go func() {
		done <- Start(Options{Logf: l.logf, Icon: pngIcon(t),
			Status:   func() string { statusMu.Lock(); defer statusMu.Unlock(); return status },
			Language: func() string { statusMu.Lock(); defer statusMu.Unlock(); return lang },
			OnOpen:   func() { opened <- struct{}{} }, OnQuit: func() { quit <- struct{}{} }})
	}()
	var tr *Tray
	select {
	case tr = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Start hung without a StatusNotifierWatcher")
	}
	defer tr.Stop()
	if tr.Visible() || !strings.Contains(l.text(), "no StatusNotifierWatcher") {
		t.Errorf("without a watcher: visible %v, log %q", tr.Visible(), l.text())
	}

	// The desktop's tray starts: the item registers itself with it.
	conn, err := dbus.Connect(addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := &watcher{}
	if err := conn.Export(w, "/StatusNotifierWatcher", "org.kde.StatusNotifierWatcher"); err != nil {
		t.Fatal(err)
	}
	if reply, err := conn.RequestName("org.kde.StatusNotifierWatcher", dbus.NameFlagDoNotQueue); err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("RequestName = %v, %v", reply, err)
	}
	testpeers.Eventually(t, 10*time.Second, "the item to register", func() bool { return len(w.registered()) > 0 })
	if !tr.Visible() {
		t.Error("not visible with a watcher")
	}
	sender, path, _ := strings.Cut(w.registered()[0], " ")
	if path != "/StatusNotifierItem" {
		t.Errorf("registered path %q", path)
	}

	items := menu(t, conn, sender)
	var labels []string
	ids := map[string]int32{}
	for _, it := range items {
		labels = append(labels, it.label)
		ids[it.label] = it.id
	}
	joined := strings.Join(labels, " | ")
	for _, want := range []string{status, LabelOpen, LabelQuit} {
		if _, ok := ids[want]; !ok {
			t.Errorf("menu %q lacks %q", joined, want)
		}
	}

	statusMu.Lock()
	status = "Router on http://127.0.0.1:3282/mcp · 1 of 1 servers running"
	statusMu.Unlock()
	tr.Refresh()
	testpeers.Eventually(t, 5*time.Second, "the new status line", func() bool {
		for _, it := range menu(t, conn, sender) {
			if it.label == status {
				return true
			}
		}
		return false
	})

	// The UI language changes to Japanese: the menu follows on Refresh.
	statusMu.Lock()
	lang = "ja"
	status = "ルーター: http://127.0.0.1:3282/mcp · サーバー 1 台中 1 台が実行中"
	statusMu.Unlock()
	tr.Refresh()
	testpeers.Eventually(t, 5*time.Second, "the Japanese menu", func() bool {
		have := map[string]int32{}
		for _, it := range menu(t, conn, sender) {
			have[it.label] = it.id
		}
		_, s := have[status]
		return s && have["ウィンドウを開く"] == ids[LabelOpen] && have["終了"] == ids[LabelQuit]
	})

	click := func(id int32) {
		t.Helper()
		err := conn.Object(sender, "/StatusNotifierItem/menu").
			Call("com.canonical.dbusmenu.Event", 0, id, "clicked", dbus.MakeVariant(""), uint32(0)).Err
		if err != nil {
			t.Fatal(err)
		}
	}
	click(ids[LabelOpen])
	select {
	case <-opened:
	case <-time.After(5 * time.Second):
		t.Error("Open window did nothing")
	}
	click(ids[LabelQuit])
	select {
	case <-quit:
	case <-time.After(5 * time.Second):
		t.Error("Quit did nothing")
	}
}

func pngIcon(t *testing.T) []byte {
	data, err := os.ReadFile(filepath.Join(testpeers.RepoRoot(t), "build", "appicon.png"))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func TestIcon(t *testing.T) {
	small := scalePNG(pngIcon(t), 64)
	if len(small) == 0 || len(small) > 64<<10 {
		t.Errorf("64 px icon is %d bytes", len(small))
	}
	ico := icoFromPNG(small, 64)
	if len(ico) != len(small)+22 || ico[2] != 1 || ico[4] != 1 || ico[6] != 64 {
		t.Errorf("ICO header % x", ico[:22])
	}
}

func TestLanguageAndTexts(t *testing.T) {
	for _, tc := range []struct{ setting, lcAll, lang, want string }{
		{"en", "ja_JP.UTF-8", "", "en"},
		{"ja", "", "C", "ja"},
		{"system", "", "ja_JP.UTF-8", "ja"},
		{"system", "en_US.UTF-8", "ja_JP.UTF-8", "en"},
		{"system", "", "de_DE.UTF-8", "en"},
		{"system", "", "", "en"},
	} {
		t.Setenv("LC_ALL", tc.lcAll)
		t.Setenv("LC_MESSAGES", "")
		t.Setenv("LANG", tc.lang)
		if got := Language(tc.setting); got != tc.want {
			t.Errorf("Language(%q) with LC_ALL=%q LANG=%q = %q, want %q", tc.setting, tc.lcAll, tc.lang, got, tc.want)
		}
	}
	if en, ja := Texts("en"), Texts("ja"); en.Open != LabelOpen || ja.Open == en.Open || ja.ServersSummary(2, 3) != "サーバー 3 台中 2 台が実行中" ||
		en.ServersSummary(2, 3) != "2 of 3 servers running" || Texts("fr").Quit != LabelQuit ||
		en.ApprovalsWaiting(1) != "1 call waiting for approval" || en.ApprovalsWaiting(2) != "2 calls waiting for approval" ||
		ja.ApprovalsWaiting(2) != "承認待ちの呼び出し 2 件" {
		t.Errorf("texts: %+v %+v", en, ja)
	}
}
