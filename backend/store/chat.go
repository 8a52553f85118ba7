package store

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"gorm.io/gorm"
)

// Chat provider kinds.
const (
	ProviderOpenAI    = "openai"    // OpenAI, or any OpenAI-compatible server by base URL
	ProviderAnthropic = "anthropic" // Anthropic's Messages API
)

// ChatProvider is a configured model provider. Its API key is kept apart
// (the OS keychain or a 0600 file), never in the database.
type ChatProvider struct {
	ID           uint      `gorm:"primaryKey" json:"id"`
	Name         string    `json:"name"`
	Kind         string    `json:"kind"`
	BaseURL      string    `json:"baseUrl"`
	DefaultModel string    `json:"defaultModel"`
	Tools        string    `json:"tools"` // auto or off
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
}

// ChatConversation is one conversation of the chat panel.
type ChatConversation struct {
	ID              uint      `gorm:"primaryKey" json:"id"`
	Title           string    `json:"title"`
	Provider        string    `json:"provider"`
	Model           string    `json:"model"`
	DisabledServers []string  `gorm:"serializer:json" json:"disabledServers"`
	ApprovedTools   []string  `gorm:"serializer:json" json:"approvedTools"` // allowed "always in this conversation"
	InputTokens     int64     `json:"inputTokens"`
	OutputTokens    int64     `json:"outputTokens"`
	CreatedAt       time.Time `json:"createdAt"`
	UpdatedAt       time.Time `json:"updatedAt"`
}

// Chat message roles.
const (
	ChatRoleUser      = "user"
	ChatRoleAssistant = "assistant"
)

// ChatMessage is a user message or the assistant's final answer of a turn;
// the tool calls in between are not stored (seed 003), only their count.
type ChatMessage struct {
	ID             uint      `gorm:"primaryKey" json:"id"`
	ConversationID uint      `json:"conversationId"`
	Role           string    `json:"role"`
	Content        string    `json:"content"`
	Model          string    `json:"model,omitempty"`
	InputTokens    int64     `json:"inputTokens"`
	OutputTokens   int64     `json:"outputTokens"`
	ToolCalls      int       `json:"toolCalls"`
	Error          string    `json:"error,omitempty"`
	CreatedAt      time.Time `json:"createdAt"`
}

// ChatRepo stores providers, conversations and messages.
type ChatRepo struct{ db *gorm.DB }

// Chat is the chat panel's repository.
func (s *Store) Chat() ChatRepo { return ChatRepo{db: s.db} }

// MaxChatTitle bounds a conversation's title (runes).
const MaxChatTitle = 200

// Providers lists the configured providers by name.
func (r ChatRepo) Providers(ctx context.Context) ([]ChatProvider, error) {
	var out []ChatProvider
	if err := r.db.WithContext(ctx).Order("name").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list chat providers: %w", err)
	}
	return out, nil
}

// Provider returns the named provider or an error wrapping ErrNotFound.
func (r ChatRepo) Provider(ctx context.Context, name string) (ChatProvider, error) {
	var p ChatProvider
	err := r.db.WithContext(ctx).Where("name = ?", name).Take(&p).Error
	return p, translate(err, "chat provider", name)
}

// SaveProvider creates the provider or replaces the one of the same name.
// The caller validates it.
func (r ChatRepo) SaveProvider(ctx context.Context, p ChatProvider) (ChatProvider, error) {
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var old ChatProvider
		err := tx.Where("name = ?", p.Name).Take(&old).Error
		switch {
		case errors.Is(err, gorm.ErrRecordNotFound):
			p.ID = 0
			return tx.Create(&p).Error
		case err != nil:
			return err
		}
		p.ID, p.CreatedAt = old.ID, old.CreatedAt
		return tx.Save(&p).Error
	})
	return p, translate(err, "chat provider", p.Name)
}

// DeleteProvider removes the named provider.
func (r ChatRepo) DeleteProvider(ctx context.Context, name string) error {
	res := r.db.WithContext(ctx).Where("name = ?", name).Delete(&ChatProvider{})
	if res.Error != nil {
		return translate(res.Error, "chat provider", name)
	}
	if res.RowsAffected == 0 {
		return notFound("chat provider", name)
	}
	return nil
}

// Conversations lists conversations, most recently updated first.
func (r ChatRepo) Conversations(ctx context.Context, limit int) ([]ChatConversation, error) {
	if limit <= 0 || limit > 1000 {
		limit = 1000
	}
	var out []ChatConversation
	if err := r.db.WithContext(ctx).Order("updated_at DESC, id DESC").Limit(limit).Find(&out).Error; err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	return out, nil
}

// Conversation returns one conversation or an error wrapping ErrNotFound.
func (r ChatRepo) Conversation(ctx context.Context, id uint) (ChatConversation, error) {
	var c ChatConversation
	err := r.db.WithContext(ctx).Where("id = ?", id).Take(&c).Error
	return c, translate(err, "conversation", fmt.Sprint(id))
}

// CreateConversation stores a new conversation.
func (r ChatRepo) CreateConversation(ctx context.Context, c ChatConversation) (ChatConversation, error) {
	c.ID = 0
	c.Title = clipTitle(c.Title)
	if err := r.db.WithContext(ctx).Create(&c).Error; err != nil {
		return ChatConversation{}, fmt.Errorf("create conversation: %w", err)
	}
	return c, nil
}

// UpdateConversation writes the conversation's title, provider, model and
// per-conversation switches (not its token totals: AddMessage keeps those).
func (r ChatRepo) UpdateConversation(ctx context.Context, c ChatConversation) (ChatConversation, error) {
	c.Title = clipTitle(c.Title)
	res := r.db.WithContext(ctx).Model(&ChatConversation{}).Where("id = ?", c.ID).
		Select("title", "provider", "model", "disabled_servers", "approved_tools", "updated_at").
		Updates(&ChatConversation{Title: c.Title, Provider: c.Provider, Model: c.Model,
			DisabledServers: c.DisabledServers, ApprovedTools: c.ApprovedTools, UpdatedAt: time.Now().UTC()})
	if res.Error != nil {
		return ChatConversation{}, translate(res.Error, "conversation", fmt.Sprint(c.ID))
	}
	if res.RowsAffected == 0 {
		return ChatConversation{}, notFound("conversation", fmt.Sprint(c.ID))
	}
	return r.Conversation(ctx, c.ID)
}

// DeleteConversation removes a conversation and its messages.
func (r ChatRepo) DeleteConversation(ctx context.Context, id uint) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Where("conversation_id = ?", id).Delete(&ChatMessage{}).Error; err != nil {
			return err
		}
		res := tx.Where("id = ?", id).Delete(&ChatConversation{})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("conversation", fmt.Sprint(id))
		}
		return nil
	})
}

// Messages returns a conversation's messages, oldest first.
func (r ChatRepo) Messages(ctx context.Context, conversation uint) ([]ChatMessage, error) {
	var out []ChatMessage
	if err := r.db.WithContext(ctx).Where("conversation_id = ?", conversation).Order("id").Find(&out).Error; err != nil {
		return nil, fmt.Errorf("conversation %d: %w", conversation, err)
	}
	return out, nil
}

// AddMessage appends a message and adds its tokens to the conversation's
// totals, in one transaction.
func (r ChatRepo) AddMessage(ctx context.Context, m ChatMessage) (ChatMessage, error) {
	m.ID = 0
	err := r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		res := tx.Model(&ChatConversation{}).Where("id = ?", m.ConversationID).Updates(map[string]any{
			"input_tokens":  gorm.Expr("input_tokens + ?", m.InputTokens),
			"output_tokens": gorm.Expr("output_tokens + ?", m.OutputTokens),
			"updated_at":    time.Now().UTC(),
		})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return notFound("conversation", fmt.Sprint(m.ConversationID))
		}
		return tx.Create(&m).Error
	})
	if err != nil {
		return ChatMessage{}, err
	}
	return m, nil
}

// DeleteMessagesFrom removes the conversation's messages from id on (a
// retried answer replaces the old one) and takes their tokens off the
// conversation's totals.
func (r ChatRepo) DeleteMessagesFrom(ctx context.Context, conversation, id uint) error {
	return r.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var sum struct{ In, Out int64 }
		if err := tx.Model(&ChatMessage{}).Select("COALESCE(SUM(input_tokens),0) AS \"in\", COALESCE(SUM(output_tokens),0) AS out").
			Where("conversation_id = ? AND id >= ?", conversation, id).Scan(&sum).Error; err != nil {
			return err
		}
		if err := tx.Where("conversation_id = ? AND id >= ?", conversation, id).Delete(&ChatMessage{}).Error; err != nil {
			return err
		}
		return tx.Model(&ChatConversation{}).Where("id = ?", conversation).Updates(map[string]any{
			"input_tokens":  gorm.Expr(greatest(tx)+"(input_tokens - ?, 0)", sum.In),
			"output_tokens": gorm.Expr(greatest(tx)+"(output_tokens - ?, 0)", sum.Out),
		}).Error
	})
}

func clipTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > MaxChatTitle {
		s = string(r[:MaxChatTitle-1]) + "…"
	}
	return s
}
