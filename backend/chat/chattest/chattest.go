// Package chattest has model servers for tests: httptest servers that
// speak OpenAI's Chat Completions stream and Anthropic's Messages stream,
// answering each request with the next scripted step and recording the
// request bodies they received, so a test can assert exactly what the
// provider was sent.
package chattest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// Call is a tool call a step makes. Args is sent in pieces (each piece one
// delta), to exercise the assembly of streamed arguments.
type Call struct {
	ID   string
	Name string
	Args []string
}

// Step is one scripted model reply.
type Step struct {
	Text  []string // text deltas, in order
	Calls []Call   // tool calls after the text
	// Status, when not 0 or 200, answers with that status and ErrorMessage
	// in the vendor's error format instead of a stream.
	Status       int
	ErrorMessage string
	// Hang sends the text deltas, then holds the stream open until the
	// client goes away (a Stop mid-stream); the server records that.
	Hang bool
	// Usage reported at the end of the stream.
	InputTokens, OutputTokens int64
	// Func, when set, makes the step from the request body instead.
	Func func(body map[string]any) Step
}

// Server is a scripted model server.
type Server struct {
	*httptest.Server
	t     testing.TB
	mu    sync.Mutex
	steps []Step
	reqs  []json.RawMessage
	heads []http.Header
	// Cancelled receives one value each time a hanging stream saw its
	// client go away.
	Cancelled chan struct{}
	Models    []string
}

func newServer(t testing.TB, steps []Step, h func(s *Server, w http.ResponseWriter, r *http.Request, st Step)) *Server {
	s := &Server{t: t, steps: steps, Cancelled: make(chan struct{}, 16), Models: []string{"model-b", "model-a"}}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && strings.HasSuffix(r.URL.Path, "/models") {
			s.models(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, json.RawMessage(body))
		s.heads = append(s.heads, r.Header.Clone())
		var st Step
		if len(s.steps) > 0 {
			st, s.steps = s.steps[0], s.steps[1:]
		} else {
			st = Step{Status: 500, ErrorMessage: "the test script has no more steps"}
		}
		s.mu.Unlock()
		if st.Func != nil {
			var m map[string]any
			_ = json.Unmarshal(body, &m)
			st = st.Func(m)
		}
		h(s, w, r, st)
	}))
	t.Cleanup(s.Close)
	return s
}

// Add appends steps to the script.
func (s *Server) Add(steps ...Step) {
	s.mu.Lock()
	s.steps = append(s.steps, steps...)
	s.mu.Unlock()
}

// Requests returns the bodies received, in order.
func (s *Server) Requests() []json.RawMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]json.RawMessage(nil), s.reqs...)
}

// Headers returns the headers of each request received.
func (s *Server) Headers() []http.Header {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]http.Header(nil), s.heads...)
}

// Request decodes the i-th request body.
func (s *Server) Request(i int) map[string]any {
	s.t.Helper()
	reqs := s.Requests()
	if i >= len(reqs) {
		s.t.Fatalf("only %d requests reached the model server, want #%d", len(reqs), i+1)
	}
	var m map[string]any
	if err := json.Unmarshal(reqs[i], &m); err != nil {
		s.t.Fatalf("request %d is not JSON: %v", i, err)
	}
	return m
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	var data []map[string]any
	for _, m := range s.Models {
		data = append(data, map[string]any{"id": m, "object": "model", "type": "model", "created": 1, "owned_by": "test",
			"display_name": m, "created_at": "2026-01-01T00:00:00Z"})
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data, "has_more": false,
		"first_id": nil, "last_id": nil})
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, v any) {
	b, _ := json.Marshal(v)
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

func (s *Server) hang(w http.ResponseWriter, r *http.Request) {
	select {
	case <-r.Context().Done():
		s.Cancelled <- struct{}{}
	case <-time.After(30 * time.Second):
		s.t.Errorf("the client never went away from a hanging stream")
	}
}

// ---- OpenAI -----------------------------------------------------------------

// OpenAI serves /v1/chat/completions (streamed) and /v1/models. Point a
// provider at URL()+"/v1".
func OpenAI(t testing.TB, steps ...Step) *Server {
	return newServer(t, steps, func(s *Server, w http.ResponseWriter, r *http.Request, st Step) {
		if st.Status != 0 && st.Status != 200 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st.Status)
			_ = json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"message": st.ErrorMessage,
				"type": "invalid_request_error", "param": nil, "code": nil}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		chunk := func(delta map[string]any, finish any) map[string]any {
			return map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
				"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		}
		sse(w, "", chunk(map[string]any{"role": "assistant", "content": ""}, nil))
		for _, t := range st.Text {
			sse(w, "", chunk(map[string]any{"content": t}, nil))
		}
		if st.Hang {
			s.hang(w, r)
			return
		}
		for i, c := range st.Calls {
			sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i, "id": c.ID, "type": "function",
				"function": map[string]any{"name": c.Name, "arguments": ""}}}}, nil))
			for _, a := range c.Args {
				sse(w, "", chunk(map[string]any{"tool_calls": []any{map[string]any{"index": i,
					"function": map[string]any{"arguments": a}}}}, nil))
			}
		}
		finish := "stop"
		if len(st.Calls) > 0 {
			finish = "tool_calls"
		}
		sse(w, "", chunk(map[string]any{}, finish))
		sse(w, "", map[string]any{"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": 1, "model": "m",
			"choices": []any{}, "usage": map[string]any{"prompt_tokens": st.InputTokens, "completion_tokens": st.OutputTokens,
				"total_tokens": st.InputTokens + st.OutputTokens}})
		fmt.Fprint(w, "data: [DONE]\n\n")
	})
}

// ---- Anthropic --------------------------------------------------------------

// Anthropic serves /v1/messages (streamed) and /v1/models. Point a
// provider at URL().
func Anthropic(t testing.TB, steps ...Step) *Server {
	return newServer(t, steps, func(s *Server, w http.ResponseWriter, r *http.Request, st Step) {
		if st.Status != 0 && st.Status != 200 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(st.Status)
			_ = json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{
				"type": "invalid_request_error", "message": st.ErrorMessage}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
			"id": "msg_1", "type": "message", "role": "assistant", "model": "m", "content": []any{},
			"stop_reason": nil, "stop_sequence": nil,
			"usage": map[string]any{"input_tokens": st.InputTokens, "output_tokens": 1}}})
		idx := 0
		if len(st.Text) > 0 || st.Hang {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": idx,
				"content_block": map[string]any{"type": "text", "text": ""}})
			for _, t := range st.Text {
				sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
					"delta": map[string]any{"type": "text_delta", "text": t}})
			}
			if st.Hang {
				s.hang(w, r)
				return
			}
			sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		for _, c := range st.Calls {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": idx,
				"content_block": map[string]any{"type": "tool_use", "id": c.ID, "name": c.Name, "input": map[string]any{}}})
			for _, a := range c.Args {
				sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": idx,
					"delta": map[string]any{"type": "input_json_delta", "partial_json": a}})
			}
			sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": idx})
			idx++
		}
		stop := "end_turn"
		if len(st.Calls) > 0 {
			stop = "tool_use"
		}
		sse(w, "message_delta", map[string]any{"type": "message_delta",
			"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil},
			"usage": map[string]any{"output_tokens": st.OutputTokens}})
		sse(w, "message_stop", map[string]any{"type": "message_stop"})
	})
}
