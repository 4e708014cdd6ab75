package loadtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
)

// Endpoint is the OpenAI API an HTTPTarget calls.
type Endpoint string

// The endpoints.
const (
	// Completions is /v1/completions with a text prompt.
	Completions Endpoint = "completions"
	// Chat is /v1/chat/completions with the prompt as one user message.
	Chat Endpoint = "chat"
	// Llama is llama.cpp's native /completion API (llama-server), for
	// measuring llama-server without its OpenAI layer, which parses the
	// output as a chat message and fails on the gibberish of a model with
	// random weights.
	Llama Endpoint = "llama"
)

// HTTPConfig configures an HTTPTarget.
type HTTPConfig struct {
	// URL is the server's base URL, with or without a trailing /v1, such
	// as http://127.0.0.1:8080 or http://localhost:11434/v1.
	URL string
	// Model is the model name sent with every request.
	Model string
	// Endpoint selects the API; "" means Completions.
	Endpoint Endpoint
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Client sends the requests; nil means a client with connection reuse
	// sized for many concurrent streams and no response compression.
	Client *http.Client
}

// HTTPTarget is a Target that streams completions from an OpenAI-compatible
// server.
type HTTPTarget struct {
	base     string // scheme://host[/path] without /v1
	model    string
	endpoint Endpoint
	apiKey   string
	client   *http.Client
}

// NewHTTPTarget checks cfg and returns its target.
func NewHTTPTarget(cfg HTTPConfig) (*HTTPTarget, error) {
	base, err := normalizeBaseURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	ep := cfg.Endpoint
	switch ep {
	case "":
		ep = Completions
	case Completions, Chat, Llama:
	default:
		return nil, fmt.Errorf("loadtest: unknown endpoint %q (want %q, %q or %q)", ep, Completions, Chat, Llama)
	}
	client := cfg.Client
	if client == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConns = 0
		tr.MaxIdleConnsPerHost = 1024
		tr.DisableCompression = true // a compressed stream arrives in bursts
		client = &http.Client{Transport: tr}
	}
	return &HTTPTarget{base: base, model: cfg.Model, endpoint: ep, apiKey: cfg.APIKey, client: client}, nil
}

// normalizeBaseURL checks an http(s) URL and strips a trailing slash and
// /v1.
func normalizeBaseURL(raw string) (string, error) {
	if raw == "" {
		return "", errors.New("loadtest: a server URL is required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("loadtest: server URL: %w", err)
	}
	if u.Scheme != "http" && u.Scheme != "https" || u.Host == "" {
		return "", fmt.Errorf("loadtest: server URL %q: want http://host:port or https://host:port", raw)
	}
	u.RawQuery, u.Fragment = "", ""
	s := strings.TrimRight(u.String(), "/")
	s = strings.TrimSuffix(s, "/v1")
	return s, nil
}

// URL returns the URL the target posts completions to.
func (t *HTTPTarget) URL() string {
	switch t.endpoint {
	case Chat:
		return t.base + "/v1/chat/completions"
	case Llama:
		return t.base + "/completion"
	}
	return t.base + "/v1/completions"
}

// chatMessage is one message of a chat request.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// streamOptions asks for the usage chunk at the end of a stream.
type streamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// completionRequest is the body of a completions or chat request.
type completionRequest struct {
	Model         string        `json:"model"`
	Prompt        string        `json:"prompt,omitempty"`
	Messages      []chatMessage `json:"messages,omitempty"`
	MaxTokens     int           `json:"max_tokens"`
	Stream        bool          `json:"stream"`
	StreamOptions streamOptions `json:"stream_options"`
	IgnoreEOS     bool          `json:"ignore_eos,omitempty"`
	Temperature   float64       `json:"temperature"`
}

// llamaRequest is the body of a llama.cpp /completion request.
type llamaRequest struct {
	Prompt      string  `json:"prompt"`
	NPredict    int     `json:"n_predict"`
	Stream      bool    `json:"stream"`
	IgnoreEOS   bool    `json:"ignore_eos,omitempty"`
	Temperature float64 `json:"temperature"`
	CachePrompt bool    `json:"cache_prompt"`
}

// Stream posts req and streams its answer; see Target.
func (t *HTTPTarget) Stream(ctx context.Context, req Request, emit func(Chunk)) (Usage, error) {
	if t.endpoint == Llama {
		return t.post(ctx, llamaRequest{Prompt: req.Prompt, NPredict: req.MaxTokens, Stream: true,
			IgnoreEOS: req.IgnoreEOS, CachePrompt: true}, emit)
	}
	body := completionRequest{
		Model:         t.model,
		MaxTokens:     req.MaxTokens,
		Stream:        true,
		StreamOptions: streamOptions{IncludeUsage: true},
		IgnoreEOS:     req.IgnoreEOS,
	}
	if t.endpoint == Chat {
		body.Messages = []chatMessage{{Role: "user", Content: req.Prompt}}
	} else {
		body.Prompt = req.Prompt
	}
	return t.post(ctx, body, emit)
}

// post sends body to the target's URL and reads the streamed answer.
func (t *HTTPTarget) post(ctx context.Context, body any, emit func(Chunk)) (Usage, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return Usage{}, fmt.Errorf("loadtest: encoding the request: %w", err)
	}
	hreq, err := http.NewRequestWithContext(ctx, http.MethodPost, t.URL(), bytes.NewReader(b))
	if err != nil {
		return Usage{}, fmt.Errorf("loadtest: %w", err)
	}
	hreq.Header.Set("Content-Type", "application/json")
	hreq.Header.Set("Accept", "text/event-stream")
	t.authorize(hreq)
	resp, err := t.client.Do(hreq)
	if err != nil {
		return Usage{}, fmt.Errorf("loadtest: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return Usage{}, statusError(hreq, resp)
	}
	if ct := resp.Header.Get("Content-Type"); strings.HasPrefix(ct, "application/json") {
		return Usage{}, fmt.Errorf("loadtest: %s answered with %s, not an event stream; does the server stream?", hreq.URL, ct)
	}
	if t.endpoint == Llama {
		return readLlamaStream(resp.Body, emit)
	}
	return readStream(resp.Body, emit)
}

// authorize adds the bearer token, if any.
func (t *HTTPTarget) authorize(r *http.Request) {
	if t.apiKey != "" {
		r.Header.Set("Authorization", "Bearer "+t.apiKey)
	}
}

// Models asks the server for its models (GET /v1/models) and returns their
// ids.
func (t *HTTPTarget) Models(ctx context.Context) ([]string, error) {
	hreq, err := http.NewRequestWithContext(ctx, http.MethodGet, t.base+"/v1/models", nil)
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	t.authorize(hreq)
	resp, err := t.client.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return nil, statusError(hreq, resp)
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 16<<20)).Decode(&list); err != nil {
		return nil, fmt.Errorf("loadtest: reading the model list from %s: %w", hreq.URL, err)
	}
	ids := make([]string, 0, len(list.Data))
	for _, m := range list.Data {
		ids = append(ids, m.ID)
	}
	return ids, nil
}

// maxErrorBody is how much of an error response is read.
const maxErrorBody = 64 << 10

// statusError describes a non-2xx response, with the message of an OpenAI
// error body ({"error":{"message":...}}) or the start of the body.
func statusError(req *http.Request, resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	msg := errorMessage(b)
	if msg == "" {
		msg = strings.TrimSpace(string(b))
		if len(msg) > 200 {
			msg = msg[:200] + "..."
		}
	}
	if msg == "" {
		return fmt.Errorf("loadtest: %s %s: %s", req.Method, req.URL, resp.Status)
	}
	return fmt.Errorf("loadtest: %s %s: %s: %s", req.Method, req.URL, resp.Status, msg)
}

// errorMessage returns the message of a JSON error body, {"error":
// {"message": M}} or {"error": M}, or "" when b is not one.
func errorMessage(b []byte) string {
	var body struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(b, &body) != nil || len(body.Error) == 0 {
		return ""
	}
	return errorText(body.Error)
}

// errorText renders the value of an "error" field: a string, or an object
// with a message.
func errorText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(raw, &obj) == nil && (obj.Message != "" || obj.Type != "") {
		if obj.Message == "" {
			return obj.Type
		}
		return obj.Message
	}
	if string(raw) == "null" {
		return ""
	}
	return string(raw)
}

// streamChunk is the part of a streamed completion or chat chunk that the
// benchmark reads.
type streamChunk struct {
	Choices []struct {
		Text  string `json:"text"`
		Delta struct {
			Content          string `json:"content"`
			ReasoningContent string `json:"reasoning_content"`
			Reasoning        string `json:"reasoning"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
		Logprobs     *struct {
			Tokens  []json.RawMessage `json:"tokens"`
			Content []json.RawMessage `json:"content"`
		} `json:"logprobs"`
		TokenIDs []json.RawMessage `json:"token_ids"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// parsedChunk is what one data event says.
type parsedChunk struct {
	chunk    Chunk  // Text empty: no output
	usage    *Usage // nil: none reported
	finished bool   // a choice has a finish reason
}

// parseChunk reads one data event of a stream.
func parseChunk(data []byte) (parsedChunk, error) {
	var c streamChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return parsedChunk{}, fmt.Errorf("loadtest: a streamed chunk is not JSON: %w", err)
	}
	if len(c.Error) > 0 && string(c.Error) != "null" {
		return parsedChunk{}, fmt.Errorf("loadtest: the server reported an error mid-stream: %s", errorText(c.Error))
	}
	var p parsedChunk
	if c.Usage != nil {
		p.usage = &Usage{PromptTokens: c.Usage.PromptTokens, CompletionTokens: c.Usage.CompletionTokens}
	}
	if len(c.Choices) > 0 {
		ch := &c.Choices[0]
		p.chunk.Text = ch.Text + ch.Delta.ReasoningContent + ch.Delta.Reasoning + ch.Delta.Content
		p.finished = ch.FinishReason != nil && *ch.FinishReason != ""
		if p.chunk.Text != "" {
			p.chunk.Tokens = 1
			switch {
			case len(ch.TokenIDs) > 0:
				p.chunk.Tokens = len(ch.TokenIDs)
			case ch.Logprobs != nil && len(ch.Logprobs.Tokens) > 0:
				p.chunk.Tokens = len(ch.Logprobs.Tokens)
			case ch.Logprobs != nil && len(ch.Logprobs.Content) > 0:
				p.chunk.Tokens = len(ch.Logprobs.Content)
			}
		}
	}
	return p, nil
}

// readStream reads an OpenAI event stream, emits its output chunks and
// returns the usage of its last usage chunk. A stream must end with
// "data: [DONE]" or, failing that, have finished a choice; one that just
// stops is an error.
func readStream(r io.Reader, emit func(Chunk)) (Usage, error) {
	sr := newSSEReader(r)
	var usage Usage
	finished := false
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			if finished {
				return usage, nil
			}
			return usage, errors.New("loadtest: the stream ended before [DONE]")
		}
		if err != nil {
			return usage, fmt.Errorf("loadtest: reading the stream: %w", err)
		}
		if ev.Name == "error" {
			msg := errorMessage([]byte(ev.Data))
			if msg == "" {
				msg = ev.Data
			}
			return usage, fmt.Errorf("loadtest: the server reported an error mid-stream: %s", msg)
		}
		data := strings.TrimSpace(ev.Data)
		if data == "[DONE]" {
			return usage, nil
		}
		if data == "" {
			continue
		}
		p, err := parseChunk([]byte(data))
		if err != nil {
			return usage, err
		}
		if p.usage != nil {
			usage = *p.usage
		}
		finished = finished || p.finished
		if p.chunk.Text != "" {
			emit(p.chunk)
		}
	}
}

// llamaChunk is an event of llama.cpp's /completion stream.
type llamaChunk struct {
	Content         string `json:"content"`
	Stop            bool   `json:"stop"`
	TokensPredicted int    `json:"tokens_predicted"`
	TokensEvaluated int    `json:"tokens_evaluated"`
	Error           *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// readLlamaStream reads a llama.cpp /completion stream: one JSON object
// per event, the last with "stop": true and the token counts.
func readLlamaStream(r io.Reader, emit func(Chunk)) (Usage, error) {
	sr := newSSEReader(r)
	for {
		ev, err := sr.Next()
		if err == io.EOF {
			return Usage{}, errors.New("loadtest: the stream ended before its stop event")
		}
		if err != nil {
			return Usage{}, fmt.Errorf("loadtest: reading the stream: %w", err)
		}
		data := strings.TrimSpace(ev.Data)
		if data == "" {
			continue
		}
		var c llamaChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			return Usage{}, fmt.Errorf("loadtest: a stream event is not JSON: %w", err)
		}
		if c.Error != nil {
			return Usage{}, fmt.Errorf("loadtest: the server reported an error mid-stream: %s", c.Error.Message)
		}
		if c.Content != "" {
			emit(Chunk{Tokens: 1, Text: c.Content})
		}
		if c.Stop {
			return Usage{PromptTokens: c.TokensEvaluated, CompletionTokens: c.TokensPredicted}, nil
		}
	}
}
