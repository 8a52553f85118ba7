package tray

import (
	"fmt"
	"os"
	"strings"
)

// Text is what the tray says, in one language.
type Text struct {
	Open, OpenTip, Quit, QuitTip string
	// Status parts: "Router on URL · 2 of 3 servers running".
	RouterOn       func(url string) string
	EndpointOff    string
	EndpointDown   func(err string) string
	ServersSummary func(running, enabled int) string
	// ApprovalsWaiting leads the status while tool calls wait for a
	// person's approval in the window.
	ApprovalsWaiting func(n int) string
}

var texts = map[string]Text{
	"en": {
		Open: LabelOpen, OpenTip: "Show the MCP Router window",
		Quit: LabelQuit, QuitTip: "Stop the router and every server, and exit",
		RouterOn:       func(url string) string { return "Router on " + url },
		EndpointOff:    "Endpoint not running",
		EndpointDown:   func(err string) string { return "Endpoint down: " + err },
		ServersSummary: func(r, e int) string { return fmt.Sprintf("%d of %d servers running", r, e) },
		ApprovalsWaiting: func(n int) string {
			if n == 1 {
				return "1 call waiting for approval"
			}
			return fmt.Sprintf("%d calls waiting for approval", n)
		},
	},
	"ja": {
		Open: "ウィンドウを開く", OpenTip: "MCP Router のウィンドウを表示します",
		Quit: "終了", QuitTip: "ルーターとすべてのサーバーを止めて終了します",
		RouterOn:         func(url string) string { return "ルーター: " + url },
		EndpointOff:      "エンドポイント停止中",
		EndpointDown:     func(err string) string { return "エンドポイント停止: " + err },
		ServersSummary:   func(r, e int) string { return fmt.Sprintf("サーバー %d 台中 %d 台が実行中", e, r) },
		ApprovalsWaiting: func(n int) string { return fmt.Sprintf("承認待ちの呼び出し %d 件", n) },
	},
}

// Texts returns the tray's text in lang ("en" or "ja"; anything else is
// English).
func Texts(lang string) Text {
	if t, ok := texts[lang]; ok {
		return t
	}
	return texts["en"]
}

// Language resolves the language setting (system, en, ja) as the UI does:
// for "system", Japanese when the user's locale ($LC_ALL, $LC_MESSAGES,
// $LANG, the first one set) is Japanese, else English.
func Language(setting string) string {
	switch setting {
	case "en", "ja":
		return setting
	}
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		if v := os.Getenv(k); v != "" {
			if strings.HasPrefix(strings.ToLower(v), "ja") {
				return "ja"
			}
			return "en"
		}
	}
	return "en"
}
