package appapi

import (
	"strings"
	"sync"
	"time"

	"github.com/mcp-router/mcp-router/backend/chat"
	"github.com/mcp-router/mcp-router/backend/store"
)

// EventChat carries every turn's events (chat.TurnEvent); text pieces of a
// conversation are batched (chatTextInterval), the rest sent as they come.
const EventChat = "chat:event"

// chatTextInterval coalesces streamed text so a fast model does not send
// the browser one event per token.
const chatTextInterval = 50 * time.Millisecond

// ChatStatus tells the panel what it needs before a turn: whether a
// provider is configured (and how to configure one), whether tools are on
// (MCP_ENABLED, the chatTools setting), where keys are kept, the limits.
func (a *API) ChatStatus() (chat.Status, error) { return a.core.Chat.Status(bg()) }

// ChatProviders lists the configured providers; keys are masked.
func (a *API) ChatProviders() ([]chat.ProviderView, error) { return a.core.Chat.Providers(bg()) }

// SaveChatProvider creates or replaces a provider. apiKey absent keeps the
// stored key, "" removes it; it is stored in the keychain (or the 0600 key
// file) and never comes back in clear.
func (a *API) SaveChatProvider(in chat.ProviderInput) (chat.ProviderView, error) {
	return a.core.Chat.SaveProvider(bg(), in)
}

// RemoveChatProvider removes a provider and its key.
func (a *API) RemoveChatProvider(name string) error { return a.core.Chat.DeleteProvider(bg(), name) }

// ChatModels lists a provider's models ("" the first provider).
func (a *API) ChatModels(provider string) ([]string, error) {
	return a.core.Chat.Models(bg(), provider)
}

// ChatConversations lists conversations, most recent first.
func (a *API) ChatConversations() ([]store.ChatConversation, error) {
	list, err := a.core.Chat.Conversations(bg())
	if list == nil && err == nil {
		list = []store.ChatConversation{}
	}
	return list, err
}

// GetChatConversation returns a conversation to resume: its messages, the
// cards of its last turn and whether a turn runs.
func (a *API) GetChatConversation(id uint) (chat.ConversationView, error) {
	return a.core.Chat.Conversation(bg(), id)
}

// NewChatConversation starts a conversation.
func (a *API) NewChatConversation(in chat.ConversationInput) (store.ChatConversation, error) {
	return a.core.Chat.NewConversation(bg(), in)
}

// UpdateChatConversation changes a conversation's title, provider, model or
// the servers whose tools are off in it.
func (a *API) UpdateChatConversation(id uint, in chat.ConversationInput) (store.ChatConversation, error) {
	return a.core.Chat.UpdateConversation(bg(), id, in)
}

// RemoveChatConversation deletes a conversation.
func (a *API) RemoveChatConversation(id uint) error { return a.core.Chat.DeleteConversation(bg(), id) }

// SendChatMessage stores the message and starts the turn; its progress
// arrives as chat:event.
func (a *API) SendChatMessage(id uint, text string) error { return a.core.Chat.Send(bg(), id, text) }

// RetryChatMessage answers the last message again.
func (a *API) RetryChatMessage(id uint) error { return a.core.Chat.Retry(bg(), id) }

// StopChat cancels the running turn: the model request and the running tool.
func (a *API) StopChat(id uint) error { return a.core.Chat.Stop(id) }

// ApproveChatTool answers a tool call that waits: "once", "always" (in
// this conversation) or "deny" (the model gets a tool error).
func (a *API) ApproveChatTool(id uint, callID string, decision string) error {
	return a.core.Chat.Approve(id, callID, chat.Decision(strings.TrimSpace(decision)))
}

// chatEvents forwards the chat's events to the hub, text batched.
type chatEvents struct {
	emit    func(string, any)
	order   sync.Mutex // held from taking text to emitting it, so events keep their order
	mu      sync.Mutex
	pending map[uint]*strings.Builder
	timer   *time.Timer
	stopped bool
}

func (a *API) followChat(emit func(string, any)) (stop func()) {
	ce := &chatEvents{emit: emit, pending: map[uint]*strings.Builder{}}
	unsub := a.core.Chat.Subscribe(ce.on)
	return func() {
		unsub()
		ce.mu.Lock()
		ce.stopped = true
		if ce.timer != nil {
			ce.timer.Stop()
		}
		ce.mu.Unlock()
		ce.flushAll()
	}
}

func (ce *chatEvents) on(e chat.TurnEvent) {
	if e.Type == chat.EventText {
		ce.mu.Lock()
		defer ce.mu.Unlock()
		if ce.stopped {
			return
		}
		b := ce.pending[e.Conversation]
		if b == nil {
			b = &strings.Builder{}
			ce.pending[e.Conversation] = b
		}
		b.WriteString(e.Text)
		if ce.timer == nil {
			ce.timer = time.AfterFunc(chatTextInterval, ce.flushAll)
		}
		return
	}
	ce.order.Lock()
	defer ce.order.Unlock()
	ce.flushLocked(e.Conversation) // the text before it goes first
	ce.emit(EventChat, e)
}

func (ce *chatEvents) flush(conv uint) {
	ce.order.Lock()
	defer ce.order.Unlock()
	ce.flushLocked(conv)
}

func (ce *chatEvents) flushLocked(conv uint) {
	ce.mu.Lock()
	b := ce.pending[conv]
	delete(ce.pending, conv)
	ce.mu.Unlock()
	if b != nil && b.Len() > 0 {
		ce.emit(EventChat, chat.TurnEvent{Conversation: conv, Type: chat.EventText, Event: chat.Event{Type: chat.EventText, Text: b.String()}})
	}
}

func (ce *chatEvents) flushAll() {
	ce.mu.Lock()
	ce.timer = nil
	convs := make([]uint, 0, len(ce.pending))
	for c := range ce.pending {
		convs = append(convs, c)
	}
	ce.mu.Unlock()
	for _, c := range convs {
		ce.flush(c)
	}
}
