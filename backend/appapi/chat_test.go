package appapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/chat/chattest"
	"github.com/mcp-router/mcp-router/internal/testpeers"
)

// The browser UI gets keys masked, a turn's streamed text batched into few
// events (in order, nothing lost), a card for the tool call through the
// router, and the answer; GetChatConversation then resumes it.
func TestChatOverTheUIAPI(t *testing.T) {
	t.Setenv(chat.EnvKeyStore, chat.KeysInFile)
	h := newHTTPFixture(t, nil)
	h.waitState(t, "everything", "running")
	h.c.Gateway.Rebuild()
	pieces := make([]string, 60)
	for i := range pieces {
		pieces[i] = "w" + strings.Repeat("o", i%3) + " "
	}
	model := chattest.OpenAI(t,
		chattest.Step{Calls: []chattest.Call{{ID: "c1", Name: "everything__echo", Args: []string{`{"message":"hi"}`}}}},
		chattest.Step{Text: pieces, InputTokens: 3, OutputTokens: 60})
	secret := "sk-proj-abcdefghijklmnop"
	body, _ := json.Marshal([]any{map[string]any{"name": "mock", "kind": "openai", "baseUrl": model.URL + "/v1", "defaultModel": "m1", "apiKey": secret}})
	if r := h.call(t, "SaveChatProvider", h.token, string(body)); r.code != 200 || strings.Contains(r.body, secret) || !strings.Contains(r.body, `"keyMask":"sk-…mnop"`) {
		t.Fatalf("SaveChatProvider: %d %s", r.code, r.body)
	}
	if r := h.call(t, "ChatProviders", h.token, "[]"); r.code != 200 || strings.Contains(r.body, secret) || !strings.Contains(r.body, `"hasKey":true`) {
		t.Fatalf("ChatProviders: %d %s", r.code, r.body)
	}
	if r := h.call(t, "ChatStatus", h.token, "[]"); !strings.Contains(r.body, `"configured":true`) || !strings.Contains(r.body, `"keyStore":"file"`) {
		t.Fatalf("ChatStatus: %s", r.body)
	}
	conv, err := h.api.NewChatConversation(chat.ConversationInput{})
	if err != nil {
		t.Fatal(err)
	}
	if r := h.call(t, "SendChatMessage", h.token, `[`+jsonNum(conv.ID)+`,"echo hi"]`); r.code != 200 {
		t.Fatalf("SendChatMessage: %d %s", r.code, r.body)
	}
	var done *chat.TurnEvent
	testpeers.Eventually(t, 30*time.Second, "the turn's done event", func() bool {
		for _, p := range h.rec.of(EventChat) {
			if e := p.(chat.TurnEvent); e.Type == chat.EventDone {
				done = &e
				return true
			}
		}
		return false
	})
	want := strings.Join(pieces, "")
	if done.Message == nil || done.Message.Content != want || done.Error != "" {
		t.Fatalf("done %+v", done)
	}
	var text strings.Builder
	texts, cards := 0, 0
	for _, p := range h.rec.of(EventChat) {
		e := p.(chat.TurnEvent)
		switch e.Type {
		case chat.EventText:
			texts++
			text.WriteString(e.Text)
		case chat.EventCard:
			cards++
			if e.Card.Status == chat.CardDone && e.Card.Result != "Echo: hi" {
				t.Errorf("card %+v", e.Card)
			}
		}
	}
	if text.String() != want || texts >= len(pieces)/2 {
		t.Fatalf("%d text events for %d pieces; text ok: %v", texts, len(pieces), text.String() == want)
	}
	if cards != 2 { // running, done
		t.Fatalf("%d card events", cards)
	}
	r := h.call(t, "GetChatConversation", h.token, "["+jsonNum(conv.ID)+"]")
	var view chat.ConversationView
	if err := json.Unmarshal([]byte(r.body), &view); err != nil || len(view.Messages) != 2 || len(view.Cards) != 1 || view.Running {
		t.Fatalf("GetChatConversation: %s", r.body)
	}
	if r := h.call(t, "ApproveChatTool", h.token, "["+jsonNum(conv.ID)+`,"c1","once"]`); r.code != 400 || !strings.Contains(errorOf(t, r), "no turn is running") {
		t.Fatalf("ApproveChatTool: %d %s", r.code, r.body)
	}
	if r := h.call(t, "RemoveChatConversation", h.token, "[424242]"); r.code != 404 {
		t.Fatalf("RemoveChatConversation of nothing: %d %s", r.code, r.body)
	}
}

func jsonNum(n uint) string { b, _ := json.Marshal(n); return string(b) }
