// Package judgetest is a fake LLM provider for tests: a real HTTP server
// on loopback that speaks OpenAI's Chat Completions API (POST
// /v1/chat/completions) and Anthropic's Messages API (POST /v1/messages),
// answering what the test scripts and recording every request.
package judgetest

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Request is one request the server received.
type Request struct {
	// N counts the requests, from 1.
	N      int
	Path   string
	Header http.Header
	// Body is the decoded JSON body (nil when it was not JSON).
	Body map[string]any
}

// Reply is what the server answers.
type Reply struct {
	Status int
	Header map[string]string
	Body   string
	// Delay is waited before answering (cut short when the client leaves).
	Delay time.Duration
}

// Handler scripts the answers.
type Handler func(r Request) Reply

// Server is the fake provider.
type Server struct {
	*httptest.Server
	mu                    sync.Mutex
	requests              []Request
	handler               Handler
	inFlight, maxInFlight int
}

// New starts a server answering with h; it stops at the end of the test.
func New(t testing.TB, h Handler) *Server {
	s := &Server{handler: h}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	return s
}

// OpenAIBaseURL is the base URL an openai provider takes (up to /v1).
func (s *Server) OpenAIBaseURL() string { return s.URL + "/v1" }

// Requests returns the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// MaxInFlight returns the most requests the server held at once.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	data, _ := io.ReadAll(r.Body)
	var body map[string]any
	_ = json.Unmarshal(data, &body)
	s.mu.Lock()
	req := Request{N: len(s.requests) + 1, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	s.requests = append(s.requests, req)
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()
	rep := s.handler(req)
	if rep.Delay > 0 {
		t := time.NewTimer(rep.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return
		}
	}
	for k, v := range rep.Header {
		w.Header().Set(k, v)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	if rep.Status == 0 {
		rep.Status = http.StatusOK
	}
	w.WriteHeader(rep.Status)
	_, _ = io.WriteString(w, rep.Body)
}

func encode(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// usage is the token count every scripted answer reports.
var usage = map[string]any{"prompt_tokens": 42, "completion_tokens": 7, "total_tokens": 49}

// OpenAIText answers a chat completion whose message content is content.
func OpenAIText(content string) Reply {
	return Reply{Body: encode(map[string]any{
		"id": "chatcmpl-1", "object": "chat.completion", "model": "judge",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "stop", "message": map[string]any{"role": "assistant", "content": content}}},
		"usage":   usage,
	})}
}

// OpenAITool answers a chat completion calling the evaluation tool with
// the JSON arguments args.
func OpenAITool(args string) Reply {
	return Reply{Body: encode(map[string]any{
		"id": "chatcmpl-2", "object": "chat.completion", "model": "judge",
		"choices": []any{map[string]any{"index": 0, "finish_reason": "tool_calls", "message": map[string]any{"role": "assistant", "content": nil,
			"tool_calls": []any{map[string]any{"id": "call_1", "type": "function", "function": map[string]any{"name": "record_evaluation", "arguments": args}}}}}},
		"usage": usage,
	})}
}

// AnthropicTool answers a message calling the evaluation tool with input.
func AnthropicTool(input string) Reply {
	return Reply{Body: encode(map[string]any{
		"id": "msg_1", "type": "message", "role": "assistant", "stop_reason": "tool_use",
		"content": []any{map[string]any{"type": "tool_use", "id": "tu_1", "name": "record_evaluation", "input": json.RawMessage(input)}},
		"usage":   map[string]any{"input_tokens": 30, "output_tokens": 5},
	})}
}

// AnthropicText answers a message of text.
func AnthropicText(text string) Reply {
	return Reply{Body: encode(map[string]any{
		"id": "msg_2", "type": "message", "role": "assistant", "stop_reason": "end_turn",
		"content": []any{map[string]any{"type": "text", "text": text}},
		"usage":   map[string]any{"input_tokens": 30, "output_tokens": 5},
	})}
}

// OpenAIError answers status with OpenAI's error body.
func OpenAIError(status int, msg string) Reply {
	return Reply{Status: status, Body: encode(map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}})}
}

// AnthropicError answers status with Anthropic's error body.
func AnthropicError(status int, msg string) Reply {
	return Reply{Status: status, Body: encode(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})}
}

// RateLimited answers 429 asking to wait retryAfter seconds.
func RateLimited(retryAfter int) Reply {
	r := OpenAIError(http.StatusTooManyRequests, "Rate limit reached")
	r.Header = map[string]string{"Retry-After": strconv.Itoa(retryAfter)}
	return r
}
