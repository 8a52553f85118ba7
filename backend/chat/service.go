package chat

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/mcp-router/mcp-router/backend/spec"
	"github.com/mcp-router/mcp-router/backend/store"
)

// Sentinel errors of the service.
var (
	ErrInvalid    = errors.New("invalid chat input")
	ErrNoProvider = errors.New("no chat provider is configured")
	ErrBusy       = errors.New("a turn is already running in this conversation")
	ErrNotRunning = errors.New("no turn is running in this conversation")
)

// ProviderFactory builds a provider from its configuration and key; core
// wires the openai and anthropic packages in.
type ProviderFactory func(p store.ChatProvider, key string) (Provider, error)

// ServiceOptions configure NewService.
type ServiceOptions struct {
	Repo   store.ChatRepo
	Keys   *Keys
	Router Router
	// Servers returns the server definitions (their chat settings).
	Servers func(ctx context.Context) []spec.Server
	// Providers builds a provider (required).
	Providers ProviderFactory
	// MCPEnabled is false when the environment says MCP_ENABLED=false: the
	// chat then never offers tools (seed 003).
	MCPEnabled bool
	// ToolsSetting reports the chatTools setting.
	ToolsSetting func(ctx context.Context) bool
	// Limits returns the loop's limits in force.
	Limits func() Limits
	Logger logrus.FieldLogger
	// EnvVendors are the vendors whose keys a chat without a configured
	// provider may take from the environment (EnvVendors); nil: none.
	EnvVendors []EnvVendor
	// LookupEnv reads the environment; default os.LookupEnv.
	LookupEnv func(string) (string, bool)
	// EnvPick reports the chatEnvProvider setting (auto, off, openai,
	// anthropic); nil: auto.
	EnvPick func(ctx context.Context) string
}

// TurnEvent is what the panel hears while a turn runs.
type TurnEvent struct {
	Conversation uint   `json:"conversation"`
	Type         string `json:"type"` // start, text, card, notice, usage, round, done
	Event
	// Message is the stored answer (done).
	Message *store.ChatMessage `json:"message,omitempty"`
	// Error is why the turn ended without an answer (done): "stopped" or
	// the provider's error.
	Error string `json:"error,omitempty"`
}

// Event types of the service on top of the loop's.
const (
	EventStart = "start"
	EventDone  = "done"
)

// StoppedError is the stored error of a turn the user stopped.
const StoppedError = "stopped"

// Service is the chat panel's backend: providers, keys, conversations and
// the turns running in them. One per process.
type Service struct {
	o      ServiceOptions
	engine *Engine
	log    logrus.FieldLogger

	mu      sync.Mutex
	running map[uint]*turnState
	cards   map[uint][]Card // the last turn's cards per conversation (kept in memory only)

	subMu  sync.RWMutex
	subs   map[int]func(TurnEvent)
	nextID int
}

// Subscribe calls fn with every event of every turn until unsubscribed
// (the UI's event stream).
func (s *Service) Subscribe(fn func(TurnEvent)) (unsubscribe func()) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	id := s.nextID
	s.nextID++
	s.subs[id] = fn
	return func() {
		s.subMu.Lock()
		delete(s.subs, id)
		s.subMu.Unlock()
	}
}

func (s *Service) publish(e TurnEvent) {
	s.subMu.RLock()
	defer s.subMu.RUnlock()
	for _, fn := range s.subs {
		fn(e)
	}
}

type turnState struct {
	ctx     context.Context
	cancel  context.CancelFunc
	done    chan struct{}
	pending map[string]chan Decision // call ID → the user's answer
}

// NewService builds the service.
func NewService(o ServiceOptions) *Service {
	if o.Logger == nil {
		o.Logger = logrus.StandardLogger()
	}
	if o.ToolsSetting == nil {
		o.ToolsSetting = func(context.Context) bool { return true }
	}
	if o.Servers == nil {
		o.Servers = func(context.Context) []spec.Server { return nil }
	}
	if o.LookupEnv == nil {
		o.LookupEnv = os.LookupEnv
	}
	if o.EnvPick == nil {
		o.EnvPick = func(context.Context) string { return EnvAuto }
	}
	s := &Service{o: o, log: o.Logger.WithField("component", "chat"), running: map[uint]*turnState{}, cards: map[uint][]Card{},
		subs: map[int]func(TurnEvent){}}
	s.engine = NewEngine(o.Router, EngineOptions{Limits: o.Limits, Servers: func(ctx context.Context) map[string]spec.Chat {
		out := map[string]spec.Chat{}
		for _, d := range o.Servers(ctx) {
			out[d.Name] = d.Chat
		}
		return out
	}})
	return s
}

// Engine is the service's tool loop.
func (s *Service) Engine() *Engine { return s.engine }

// ---- providers --------------------------------------------------------------

// ProviderView is a provider as the UI sees it: the key masked.
type ProviderView struct {
	store.ChatProvider
	HasKey  bool   `json:"hasKey"`
	KeyMask string `json:"keyMask,omitempty"`
}

// ProviderInput is the provider form. APIKey nil keeps the stored key, ""
// removes it.
type ProviderInput struct {
	Name         string  `json:"name"`
	Kind         string  `json:"kind"`
	BaseURL      string  `json:"baseUrl"`
	DefaultModel string  `json:"defaultModel"`
	Tools        string  `json:"tools"`
	APIKey       *string `json:"apiKey,omitempty"`
}

var providerNameRe = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,47}$`)

func invalid(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...))
}

// Validate checks the form and normalizes it.
func (in *ProviderInput) Validate() error {
	in.Name, in.Kind = strings.TrimSpace(in.Name), strings.ToLower(strings.TrimSpace(in.Kind))
	in.BaseURL, in.DefaultModel = strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.DefaultModel)
	in.Tools = strings.ToLower(strings.TrimSpace(in.Tools))
	if !providerNameRe.MatchString(in.Name) {
		return invalid("provider name %q must be 1-48 letters, digits, '.', '-' or '_', starting with a letter or digit", in.Name)
	}
	switch in.Kind {
	case store.ProviderOpenAI, store.ProviderAnthropic:
	default:
		return invalid("provider %q: kind %q must be openai (also for OpenAI-compatible servers) or anthropic", in.Name, in.Kind)
	}
	if in.BaseURL != "" {
		if err := spec.ValidateURL(in.BaseURL); err != nil {
			return invalid("provider %q: base URL: %v", in.Name, err)
		}
		if u, _ := url.Parse(in.BaseURL); u.User != nil {
			return invalid("provider %q: put the key in the API key field, not in the base URL", in.Name)
		}
	}
	switch in.Tools {
	case "":
		in.Tools = "auto"
	case "auto", "off":
	default:
		return invalid("provider %q: tools %q must be auto or off", in.Name, in.Tools)
	}
	if len(in.DefaultModel) > 200 || strings.ContainsAny(in.DefaultModel, "\n\r\t") {
		return invalid("provider %q: the default model must be one line of at most 200 characters", in.Name)
	}
	if in.APIKey != nil {
		k := strings.TrimSpace(*in.APIKey)
		if strings.ContainsAny(k, "\n\r\t ") || len(k) > 4096 {
			return invalid("provider %q: the API key must be one word of at most 4096 characters", in.Name)
		}
		in.APIKey = &k
	}
	return nil
}

func (s *Service) view(p store.ChatProvider) ProviderView {
	v := ProviderView{ChatProvider: p}
	if key, err := s.o.Keys.Get(p.Name); err == nil {
		v.HasKey, v.KeyMask = true, Mask(key)
	}
	return v
}

// Providers lists the configured providers, keys masked.
func (s *Service) Providers(ctx context.Context) ([]ProviderView, error) {
	ps, err := s.o.Repo.Providers(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ProviderView, 0, len(ps))
	for _, p := range ps {
		out = append(out, s.view(p))
	}
	return out, nil
}

// SaveProvider creates or replaces a provider, and stores or removes its key.
func (s *Service) SaveProvider(ctx context.Context, in ProviderInput) (ProviderView, error) {
	if err := in.Validate(); err != nil {
		return ProviderView{}, err
	}
	p, err := s.o.Repo.SaveProvider(ctx, store.ChatProvider{Name: in.Name, Kind: in.Kind, BaseURL: in.BaseURL,
		DefaultModel: in.DefaultModel, Tools: in.Tools})
	if err != nil {
		return ProviderView{}, err
	}
	if in.APIKey != nil {
		if err := s.o.Keys.Set(in.Name, *in.APIKey); err != nil {
			return ProviderView{}, err
		}
	}
	return s.view(p), nil
}

// DeleteProvider removes a provider and its key.
func (s *Service) DeleteProvider(ctx context.Context, name string) error {
	if err := s.o.Repo.DeleteProvider(ctx, name); err != nil {
		return err
	}
	return s.o.Keys.Delete(name)
}

// provider builds the named provider ("" the first one; with none
// configured, the one the environment gives).
func (s *Service) provider(ctx context.Context, name string) (store.ChatProvider, Provider, *EnvProvider, error) {
	var cfg store.ChatProvider
	if name == "" {
		ps, err := s.o.Repo.Providers(ctx)
		if err != nil {
			return cfg, nil, nil, err
		}
		if len(ps) == 0 {
			return s.envProvider(ctx, s.o.EnvPick(ctx))
		}
		cfg = ps[0]
	} else {
		var err error
		if cfg, err = s.o.Repo.Provider(ctx, name); err != nil {
			if errors.Is(err, store.ErrNotFound) {
				return cfg, nil, nil, fmt.Errorf("%w: %q (%s)", ErrNoProvider, name, ConfigureHint)
			}
			return cfg, nil, nil, err
		}
	}
	key, err := s.o.Keys.Get(cfg.Name)
	if err != nil && !errors.Is(err, ErrNoKey) {
		return cfg, nil, nil, err
	}
	p, err := s.o.Providers(cfg, key)
	return cfg, p, nil, err
}

// envProvider builds the provider the environment gives (pick: auto, off
// or a kind); the key goes to the provider only.
func (s *Service) envProvider(ctx context.Context, pick string) (store.ChatProvider, Provider, *EnvProvider, error) {
	e, err := fromEnvironment(s.o.LookupEnv, s.o.EnvVendors, pick)
	if err != nil {
		return store.ChatProvider{}, nil, nil, err
	}
	if e == nil {
		return store.ChatProvider{}, nil, nil, fmt.Errorf("%w: %s", ErrNoProvider, ConfigureHint)
	}
	cfg := e.config()
	p, err := s.o.Providers(cfg, e.key)
	return cfg, p, &e.EnvProvider, err
}

// ConfigureHint says how to configure a provider.
const ConfigureHint = "set OPENAI_API_KEY or ANTHROPIC_API_KEY in the environment, add one in Settings → Chat, " +
	"or with `mcp-router chat providers add NAME --kind openai|anthropic [--base-url URL] [--model M]` " +
	"(a local server such as Ollama: --kind openai --base-url http://127.0.0.1:11434/v1)"

// envNotice says where the turn's provider came from.
func envNotice(e *EnvProvider, model string) []Notice {
	if e == nil {
		return nil
	}
	text := e.Reason + "; model " + model
	if model == e.Model {
		text += " (the default; --model or the panel's model picks another)"
	}
	return []Notice{{Code: NoticeProviderEnv, Text: text}}
}

// Models lists a provider's models.
func (s *Service) Models(ctx context.Context, provider string) ([]string, error) {
	_, p, _, err := s.provider(ctx, provider)
	if err != nil {
		return nil, err
	}
	return p.Models(ctx)
}

// ---- status -----------------------------------------------------------------

// Status is what the panel needs to know before a turn.
type Status struct {
	Configured bool `json:"configured"` // at least one provider
	// Environment is the provider a chat uses with none configured, from
	// the environment's variables (never the key); EnvironmentError why
	// the environment's values cannot be used.
	Environment      *EnvProvider `json:"environment,omitempty"`
	EnvironmentError string       `json:"environmentError,omitempty"`
	Hint             string       `json:"hint,omitempty"`
	MCPEnabled       bool         `json:"mcpEnabled"`   // MCP_ENABLED is not false
	ToolsSetting     bool         `json:"toolsSetting"` // the chatTools setting
	KeyStore         string       `json:"keyStore"`     // keychain or file
	KeyFile          string       `json:"keyFile,omitempty"`
	MaxRounds        int          `json:"maxRounds"`
	ToolTimeout      int          `json:"toolTimeoutSeconds"`
}

// Status reports the chat's configuration.
func (s *Service) Status(ctx context.Context) (Status, error) {
	ps, err := s.o.Repo.Providers(ctx)
	if err != nil {
		return Status{}, err
	}
	l := s.limits()
	st := Status{Configured: len(ps) > 0, MCPEnabled: s.o.MCPEnabled, ToolsSetting: s.o.ToolsSetting(ctx),
		KeyStore: s.o.Keys.Backend(), MaxRounds: l.MaxRounds, ToolTimeout: int(l.ToolTimeout / time.Second)}
	if !st.Configured {
		e, err := fromEnvironment(s.o.LookupEnv, s.o.EnvVendors, s.o.EnvPick(ctx))
		switch {
		case err != nil:
			st.EnvironmentError = err.Error()
			st.Hint = ConfigureHint
		case e != nil:
			st.Environment = &e.EnvProvider
		default:
			st.Hint = ConfigureHint
		}
	}
	if st.KeyStore == KeysInFile {
		st.KeyFile = s.o.Keys.File()
	}
	return st, nil
}

func (s *Service) limits() Limits {
	if s.o.Limits == nil {
		return Limits{}.withDefaults()
	}
	return s.o.Limits().withDefaults()
}

// ---- conversations ----------------------------------------------------------

// ConversationView is a conversation with its messages, the cards of its
// last turn and whether a turn runs now.
type ConversationView struct {
	store.ChatConversation
	Messages []store.ChatMessage `json:"messages"`
	Cards    []Card              `json:"cards"`
	Running  bool                `json:"running"`
}

// Conversations lists conversations, most recent first.
func (s *Service) Conversations(ctx context.Context) ([]store.ChatConversation, error) {
	return s.o.Repo.Conversations(ctx, 0)
}

// Conversation returns one conversation to resume.
func (s *Service) Conversation(ctx context.Context, id uint) (ConversationView, error) {
	c, err := s.o.Repo.Conversation(ctx, id)
	if err != nil {
		return ConversationView{}, err
	}
	msgs, err := s.o.Repo.Messages(ctx, id)
	if err != nil {
		return ConversationView{}, err
	}
	s.mu.Lock()
	cards := append([]Card{}, s.cards[id]...)
	_, running := s.running[id]
	s.mu.Unlock()
	if msgs == nil {
		msgs = []store.ChatMessage{}
	}
	return ConversationView{ChatConversation: c, Messages: msgs, Cards: cards, Running: running}, nil
}

// ConversationInput creates or edits a conversation.
type ConversationInput struct {
	Title           string   `json:"title"`
	Provider        string   `json:"provider"`
	Model           string   `json:"model"`
	DisabledServers []string `json:"disabledServers"`
}

// NewConversation starts an empty conversation; an empty provider picks
// the first one, an empty model the provider's default.
func (s *Service) NewConversation(ctx context.Context, in ConversationInput) (store.ChatConversation, error) {
	if in.Provider == "" {
		ps, err := s.o.Repo.Providers(ctx)
		if err != nil {
			return store.ChatConversation{}, err
		}
		if len(ps) > 0 {
			in.Provider = ps[0].Name
			if in.Model == "" {
				in.Model = ps[0].DefaultModel
			}
		} else if e, err := fromEnvironment(s.o.LookupEnv, s.o.EnvVendors, s.o.EnvPick(ctx)); err == nil && e != nil && in.Model == "" {
			// Provider stays "": the environment's, whichever it is then.
			in.Model = e.Model
		}
	} else if in.Model == "" {
		if p, err := s.o.Repo.Provider(ctx, in.Provider); err == nil {
			in.Model = p.DefaultModel
		}
	}
	if err := checkModel(in.Model); err != nil {
		return store.ChatConversation{}, err
	}
	return s.o.Repo.CreateConversation(ctx, store.ChatConversation{Title: in.Title, Provider: in.Provider, Model: in.Model,
		DisabledServers: clean(in.DisabledServers), ApprovedTools: []string{}})
}

func checkModel(m string) error {
	if len(m) > 200 || strings.ContainsAny(m, "\n\r\t") {
		return invalid("the model must be one line of at most 200 characters")
	}
	return nil
}

func clean(list []string) []string {
	out := []string{}
	for _, v := range list {
		if v = strings.TrimSpace(v); v != "" && !slices.Contains(out, v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// UpdateConversation changes a conversation's title, provider, model or
// the servers whose tools are off in it.
func (s *Service) UpdateConversation(ctx context.Context, id uint, in ConversationInput) (store.ChatConversation, error) {
	c, err := s.o.Repo.Conversation(ctx, id)
	if err != nil {
		return c, err
	}
	if err := checkModel(in.Model); err != nil {
		return c, err
	}
	if in.Provider != "" {
		if _, err := s.o.Repo.Provider(ctx, in.Provider); err != nil {
			return c, err
		}
	}
	c.Title, c.Provider, c.Model, c.DisabledServers = in.Title, in.Provider, in.Model, clean(in.DisabledServers)
	return s.o.Repo.UpdateConversation(ctx, c)
}

// DeleteConversation stops its turn, if any, and removes it.
func (s *Service) DeleteConversation(ctx context.Context, id uint) error {
	_ = s.Stop(id)
	if err := s.o.Repo.DeleteConversation(ctx, id); err != nil {
		return err
	}
	s.mu.Lock()
	delete(s.cards, id)
	s.mu.Unlock()
	return nil
}

// ---- turns ------------------------------------------------------------------

// Send stores the user's message and starts a turn in the background; its
// events go to Emit.
func (s *Service) Send(ctx context.Context, id uint, text string) error {
	if strings.TrimSpace(text) == "" {
		return invalid("the message is empty")
	}
	ts, conv, err := s.begin(ctx, id)
	if err != nil {
		return err
	}
	if _, err := s.o.Repo.AddMessage(ctx, store.ChatMessage{ConversationID: id, Role: store.ChatRoleUser, Content: text}); err != nil {
		s.end(id, ts)
		return err
	}
	if conv.Title == "" {
		conv.Title = text
		if r := []rune(strings.TrimSpace(text)); len(r) > 60 {
			conv.Title = string(r[:59]) + "…"
		}
		_, _ = s.o.Repo.UpdateConversation(ctx, conv)
	}
	go s.turn(ts, conv)
	return nil
}

// Retry answers the last user message again, replacing the answer after it.
func (s *Service) Retry(ctx context.Context, id uint) error {
	ts, conv, err := s.begin(ctx, id)
	if err != nil {
		return err
	}
	msgs, err := s.o.Repo.Messages(ctx, id)
	if err != nil {
		s.end(id, ts)
		return err
	}
	last := -1
	for i, m := range msgs {
		if m.Role == store.ChatRoleUser {
			last = i
		}
	}
	if last < 0 {
		s.end(id, ts)
		return invalid("there is no message to answer again")
	}
	if last+1 < len(msgs) {
		if err := s.o.Repo.DeleteMessagesFrom(ctx, id, msgs[last+1].ID); err != nil {
			s.end(id, ts)
			return err
		}
	}
	go s.turn(ts, conv)
	return nil
}

// begin registers a turn for the conversation.
func (s *Service) begin(ctx context.Context, id uint) (*turnState, store.ChatConversation, error) {
	conv, err := s.o.Repo.Conversation(ctx, id)
	if err != nil {
		return nil, conv, err
	}
	tctx, cancel := context.WithCancel(context.Background())
	ts := &turnState{ctx: tctx, cancel: cancel, done: make(chan struct{}), pending: map[string]chan Decision{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, busy := s.running[id]; busy {
		cancel()
		return nil, conv, fmt.Errorf("conversation %d: %w; stop it first", id, ErrBusy)
	}
	s.running[id] = ts
	s.cards[id] = nil
	return ts, conv, nil
}

func (s *Service) end(id uint, ts *turnState) {
	s.mu.Lock()
	if s.running[id] == ts {
		delete(s.running, id)
	}
	s.mu.Unlock()
	ts.cancel()
	close(ts.done)
}

// turn runs in its own goroutine until the answer is stored.
func (s *Service) turn(ts *turnState, conv store.ChatConversation) {
	id := conv.ID
	// The turn ends before its done event goes out: whoever reacts to done
	// by sending the next message must find the conversation free.
	var endOnce sync.Once
	finish := func() { endOnce.Do(func() { s.end(id, ts) }) }
	defer finish()
	emit := func(e TurnEvent) {
		e.Conversation = id
		if e.Type == "" {
			e.Type = e.Event.Type
		}
		s.publish(e)
	}
	emit(TurnEvent{Type: EventStart})
	ctx := ts.ctx
	msg := store.ChatMessage{ConversationID: id, Role: store.ChatRoleAssistant, Model: conv.Model}
	out, err := s.runConversation(ctx, ts, conv, func(e Event) {
		if e.Type == EventCard && e.Card != nil {
			s.noteCard(id, *e.Card)
		}
		emit(TurnEvent{Event: e})
	})
	msg.Content, msg.InputTokens, msg.OutputTokens, msg.ToolCalls = out.Text, out.Usage.Input, out.Usage.Output, out.ToolCalls
	var errText string
	switch {
	case err != nil && ctx.Err() != nil:
		errText = StoppedError
	case err != nil:
		errText = err.Error()
	}
	msg.Error = errText
	stored, serr := s.o.Repo.AddMessage(context.Background(), msg)
	if serr != nil {
		s.log.Warnf("store the answer of conversation %d: %v", id, serr)
		stored = msg
	}
	finish()
	emit(TurnEvent{Type: EventDone, Message: &stored, Error: errText})
}

// noteCard keeps the last turn's cards, replacing a card by its ID.
func (s *Service) noteCard(id uint, c Card) {
	s.mu.Lock()
	defer s.mu.Unlock()
	cards := s.cards[id]
	for i := range cards {
		if cards[i].ID == c.ID {
			cards[i] = c
			return
		}
	}
	s.cards[id] = append(cards, c)
}

// runConversation builds the turn from the stored conversation and runs it.
func (s *Service) runConversation(ctx context.Context, ts *turnState, conv store.ChatConversation, emit func(Event)) (Outcome, error) {
	cfg, p, env, err := s.provider(ctx, conv.Provider)
	if err != nil {
		return Outcome{}, err
	}
	model := conv.Model
	if model == "" {
		model = cfg.DefaultModel
	}
	if model == "" {
		return Outcome{}, invalid("no model chosen for this conversation, and provider %q has no default model", cfg.Name)
	}
	msgs, err := s.o.Repo.Messages(ctx, conv.ID)
	if err != nil {
		return Outcome{}, err
	}
	if len(msgs) == 0 || msgs[len(msgs)-1].Role != store.ChatRoleUser {
		return Outcome{}, invalid("the conversation has no message to answer")
	}
	history := History(msgs[:len(msgs)-1])
	turn := s.newTurn(ctx, cfg, model, history, msgs[len(msgs)-1].Content, conv.DisabledServers, emit)
	turn.Provider, turn.Notices = p, envNotice(env, model)
	var amu sync.Mutex
	approved := map[string]bool{}
	for _, t := range conv.ApprovedTools {
		approved[t] = true
	}
	turn.Approved = func(name string) bool {
		amu.Lock()
		defer amu.Unlock()
		return approved[name]
	}
	turn.Approve = func(c Card) func(context.Context) (Decision, error) {
		// Registered now, before the loop emits the card: Approve on the
		// card event must find the call.
		ch := make(chan Decision, 1)
		s.mu.Lock()
		ts.pending[c.ID] = ch
		s.mu.Unlock()
		return func(actx context.Context) (Decision, error) {
			defer func() {
				s.mu.Lock()
				delete(ts.pending, c.ID)
				s.mu.Unlock()
			}()
			select {
			case d := <-ch:
				if d == AllowAlways {
					amu.Lock()
					approved[c.Name] = true
					amu.Unlock()
					s.rememberApproval(conv.ID, c.Name)
				}
				return d, nil
			case <-actx.Done():
				return Deny, actx.Err()
			}
		}
	}
	return s.engine.Run(ctx, turn)
}

// newTurn fills the switches of a turn: tools off when MCP_ENABLED=false,
// the chatTools setting is off, or the provider is set to tools off.
func (s *Service) newTurn(ctx context.Context, cfg store.ChatProvider, model string, history []Message, input string,
	disabled []string, emit func(Event)) Turn {
	t := Turn{Model: model, History: history, Input: input, Emit: emit, Tools: true}
	off := map[string]bool{}
	for _, d := range disabled {
		off[d] = true
	}
	t.ServerOff = func(server string) bool { return off[server] }
	switch {
	case !s.o.MCPEnabled:
		t.Tools, t.NoTools = false, &Notice{Code: NoticeToolsDisabled, Text: "MCP is disabled (MCP_ENABLED=false): the chat answers without tools"}
	case !s.o.ToolsSetting(ctx):
		t.Tools, t.NoTools = false, &Notice{Code: NoticeToolsDisabled, Text: "the chatTools setting is off: the chat answers without tools"}
	case cfg.Tools == "off":
		t.Tools, t.NoTools = false, &Notice{Code: NoticeToolsOff, Text: fmt.Sprintf("provider %q is set to tools off", cfg.Name)}
	}
	return t
}

func (s *Service) rememberApproval(id uint, tool string) {
	ctx := context.Background()
	c, err := s.o.Repo.Conversation(ctx, id)
	if err != nil || slices.Contains(c.ApprovedTools, tool) {
		return
	}
	c.ApprovedTools = append(c.ApprovedTools, tool)
	if _, err := s.o.Repo.UpdateConversation(ctx, c); err != nil {
		s.log.Warnf("remember the approval of %s in conversation %d: %v", tool, id, err)
	}
}

// History turns stored messages into the model's history: user and
// assistant texts; an answer that failed with nothing said is left out.
func History(msgs []store.ChatMessage) []Message {
	var out []Message
	for _, m := range msgs {
		switch m.Role {
		case store.ChatRoleUser:
			out = append(out, Message{Role: RoleUser, Text: m.Content})
		case store.ChatRoleAssistant:
			if m.Content == "" {
				continue
			}
			out = append(out, Message{Role: RoleAssistant, Text: m.Content})
		}
	}
	return out
}

// Approve answers a tool call that waits for the user.
func (s *Service) Approve(id uint, callID string, d Decision) error {
	switch d {
	case AllowOnce, AllowAlways, Deny:
	default:
		return invalid("decision %q must be once, always or deny", d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ts, ok := s.running[id]
	if !ok {
		return fmt.Errorf("conversation %d: %w", id, ErrNotRunning)
	}
	ch, ok := ts.pending[callID]
	if !ok {
		return invalid("tool call %q of conversation %d is not waiting for approval", callID, id)
	}
	select {
	case ch <- d:
	default:
	}
	return nil
}

// Stop cancels the conversation's running turn (the model request and the
// running tool) and waits for it to end.
func (s *Service) Stop(id uint) error {
	s.mu.Lock()
	ts, ok := s.running[id]
	s.mu.Unlock()
	if !ok {
		return fmt.Errorf("conversation %d: %w", id, ErrNotRunning)
	}
	ts.cancel()
	select {
	case <-ts.done:
	case <-time.After(10 * time.Second):
	}
	return nil
}

// Close stops every running turn.
func (s *Service) Close() {
	s.mu.Lock()
	ids := make([]uint, 0, len(s.running))
	for id := range s.running {
		ids = append(ids, id)
	}
	s.mu.Unlock()
	for _, id := range ids {
		_ = s.Stop(id)
	}
}

// Ask runs one turn outside any conversation (`mcp-router chat`): same
// loop, nothing stored. approve nil denies calls that wait for approval.
func (s *Service) Ask(ctx context.Context, provider, model, input string, emit func(Event),
	approve func(context.Context, Card) (Decision, error)) (Outcome, error) {
	return s.AskWith(ctx, AskOptions{Provider: provider, Model: model, Input: input}, emit, approve)
}

// AskOptions are Ask's: a configured provider by name ("" the first), or
// EnvProvider (auto or a kind) for the environment's even when providers
// are configured.
type AskOptions struct {
	Provider, EnvProvider, Model, Input string
}

// AskWith is Ask with the choice of the environment's provider.
func (s *Service) AskWith(ctx context.Context, o AskOptions, emit func(Event),
	approve func(context.Context, Card) (Decision, error)) (Outcome, error) {
	var cfg store.ChatProvider
	var p Provider
	var env *EnvProvider
	var err error
	switch {
	case o.EnvProvider != "" && o.Provider != "":
		return Outcome{}, invalid("name a configured provider or the environment's, not both")
	case o.EnvProvider != "":
		if strings.EqualFold(strings.TrimSpace(o.EnvProvider), EnvOff) {
			return Outcome{}, invalid("the environment's provider cannot be %q here: leave it out to use the configured providers", EnvOff)
		}
		cfg, p, env, err = s.envProvider(ctx, o.EnvProvider)
	default:
		cfg, p, env, err = s.provider(ctx, o.Provider)
	}
	if err != nil {
		return Outcome{}, err
	}
	model := o.Model
	if model == "" {
		model = cfg.DefaultModel
	}
	if model == "" {
		return Outcome{}, invalid("provider %q has no default model: give --model", cfg.Name)
	}
	t := s.newTurn(ctx, cfg, model, nil, o.Input, nil, emit)
	t.Provider, t.Notices = p, envNotice(env, model)
	if approve == nil {
		approve = func(context.Context, Card) (Decision, error) { return Deny, nil }
	}
	// The terminal asks after the card is out; nothing to register first.
	t.Approve = func(c Card) func(context.Context) (Decision, error) {
		return func(ctx context.Context) (Decision, error) { return approve(ctx, c) }
	}
	return s.engine.Run(ctx, t)
}
