package server

import (
	"bytes"
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"time"

	"saji/engine/chat"
	"saji/engine/runner"
	"saji/engine/sample"
)

// The OpenAI dialect: /v1/models, /v1/chat/completions, /v1/completions.

func (s *Server) openAIRoutes() {
	s.mux.HandleFunc("GET /v1/models", s.handleModels)
	s.mux.HandleFunc("GET /v1/models/{model...}", s.handleModel)
	s.mux.HandleFunc("POST /v1/chat/completions", s.handleChatCompletions)
	s.mux.HandleFunc("POST /v1/completions", s.handleCompletions)
	s.mux.HandleFunc("POST /v1/embeddings", s.handleEmbeddings)
}

// oaiError writes err as an OpenAI error object.
func oaiError(w http.ResponseWriter, err error) {
	ae := classify(err)
	body := map[string]any{"message": ae.msg, "type": ae.typ, "param": nil, "code": nil}
	if ae.param != "" {
		body["param"] = ae.param
	}
	if ae.code != "" {
		body["code"] = ae.code
	}
	writeJSON(w, ae.status, map[string]any{"error": body})
}

// oaiModel is an entry of /v1/models.
type oaiModel struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Created int64  `json:"created"`
	OwnedBy string `json:"owned_by"`
}

func modelEntry(m *runner.Model) oaiModel {
	return oaiModel{ID: m.Name, Object: "model", Created: m.Info.Modified.Unix(), OwnedBy: "saji"}
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	data := []oaiModel{}
	for _, m := range s.run.Catalog() {
		data = append(data, modelEntry(m))
	}
	var remotes []string
	for name := range s.cfg.Remotes {
		remotes = append(remotes, name)
	}
	sort.Strings(remotes)
	for _, name := range remotes {
		data = append(data, oaiModel{ID: name, Object: "model", OwnedBy: "remote"})
	}
	for _, name := range s.routeNames() {
		data = append(data, oaiModel{ID: name, Object: "model", OwnedBy: "router"})
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data})
}

// handleModel describes one model without loading it: a GET changes
// nothing (a cross-site <img> must not load a model).
func (s *Server) handleModel(w http.ResponseWriter, r *http.Request) {
	m, err := s.run.Find(r.PathValue("model"))
	if err != nil || r.PathValue("model") == "" {
		oaiError(w, fmt.Errorf("%w: %q", runner.ErrModelNotFound, r.PathValue("model")))
		return
	}
	writeJSON(w, http.StatusOK, modelEntry(m))
}

// stopField is "stop": a string or a list of strings. null stops nothing,
// as llama-server takes it (a field left out); an empty string is dropped,
// since as a stop string it would end every generation before its first
// token.
type stopField []string

func (f *stopField) UnmarshalJSON(b []byte) error {
	var many []string
	var one string
	switch {
	case string(bytes.TrimSpace(b)) == "null":
	case json.Unmarshal(b, &one) == nil:
		many = []string{one}
	case json.Unmarshal(b, &many) == nil:
	default:
		return fmt.Errorf("stop must be a string or a list of strings")
	}
	*f = slices.DeleteFunc(many, func(s string) bool { return s == "" })
	return nil
}

// oaiCommon are the fields chat and completion requests share.
type oaiCommon struct {
	Model               string    `json:"model"`
	MaxTokens           *int      `json:"max_tokens"`
	MaxCompletionTokens *int      `json:"max_completion_tokens"`
	Temperature         *float32  `json:"temperature"`
	TopP                *float32  `json:"top_p"`
	TopK                *int      `json:"top_k"`
	MinP                *float32  `json:"min_p"`
	Seed                *int64    `json:"seed"`
	N                   *int      `json:"n"`
	Stop                stopField `json:"stop"`
	Stream              bool      `json:"stream"`
	StreamOptions       *struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	PresencePenalty  *float32           `json:"presence_penalty"`
	FrequencyPenalty *float32           `json:"frequency_penalty"`
	RepeatPenalty    *float32           `json:"repeat_penalty"`
	LogitBias        map[string]float32 `json:"logit_bias"`
	IgnoreEOS        bool               `json:"ignore_eos"`
	User             string             `json:"user"`
	Grammar          string             `json:"grammar"`     // llama-server: GBNF text
	JSONSchema       json.RawMessage    `json:"json_schema"` // llama-server: a JSON Schema
}

// genRequest builds the common part of a generation from c.
func (c *oaiCommon) genRequest() (runner.Request, error) {
	var g runner.Request
	if c.N != nil && *c.N != 1 {
		return g, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "n",
			msg: fmt.Sprintf("n = %d: Saji generates one choice per request (n = 1)", *c.N)}
	}
	if err := grammarFields(c.Grammar, c.JSONSchema, &g); err != nil {
		return g, err
	}
	// max_tokens is a most: the end of the context cuts the generation
	// short (finish_reason "length"), as llama-server and Ollama do, since
	// clients send a fixed max_tokens (Continue's 4096) whatever the
	// context; only a prompt that does not fit is refused.
	g.MaxTokens, g.CutAtContext = -1, true
	for _, v := range []*int{c.MaxCompletionTokens, c.MaxTokens} {
		if v != nil {
			if *v < 0 {
				return g, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "max_tokens",
					msg: fmt.Sprintf("max_tokens must be positive, not %d", *v)}
			}
			g.MaxTokens = *v
			break
		}
	}
	if g.MaxTokens == 0 {
		g.MaxTokens = -1 // 0 means the default: until the end
	}
	if c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 2) {
		return g, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "temperature",
			msg: fmt.Sprintf("temperature must be between 0 and 2, not %g", *c.Temperature)}
	}
	if c.TopP != nil && (*c.TopP < 0 || *c.TopP > 1) {
		return g, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "top_p",
			msg: fmt.Sprintf("top_p must be between 0 and 1, not %g", *c.TopP)}
	}
	p := sample.Defaults()
	if c.Temperature != nil {
		p.Temperature = *c.Temperature
	}
	if c.TopP != nil {
		p.TopP = *c.TopP
	}
	if c.TopK != nil {
		p.TopK = *c.TopK
	}
	if c.MinP != nil {
		p.MinP = *c.MinP
	}
	if c.Seed != nil {
		p.Seed = *c.Seed
	}
	if c.PresencePenalty != nil {
		p.PresencePenalty = *c.PresencePenalty
	}
	if c.FrequencyPenalty != nil {
		p.FrequencyPenalty = *c.FrequencyPenalty
	}
	if c.RepeatPenalty != nil {
		p.RepeatPenalty = *c.RepeatPenalty
	}
	if len(c.LogitBias) > 0 {
		p.LogitBias = map[int32]float32{}
		for k, v := range c.LogitBias {
			var id int32
			if _, err := fmt.Sscan(k, &id); err != nil {
				return g, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "logit_bias",
					msg: fmt.Sprintf("logit_bias key %q is not a token id", k)}
			}
			p.LogitBias[id] = v
		}
	}
	g.Sampling, g.Stop, g.IgnoreEOS = p, c.Stop, c.IgnoreEOS
	return g, nil
}

// oaiContent is a message's content: a string, or a list of parts of
// which the text ones are joined. A list with a picture (an image_url
// part, or the Responses API's input_image) keeps its parts, for apply to
// decode.
type oaiContent struct {
	Text  string
	Parts []oaiPart // the list's parts, when one is a picture
}

// oaiPart is a part of a list content.
type oaiPart struct {
	Type string `json:"type"`
	Text string `json:"text"`
	// ImageURL is an image_url part's {"url": ..., "detail": ...} (detail
	// is not read), or an input_image's URL string.
	ImageURL json.RawMessage `json:"image_url"`
}

func (c *oaiContent) UnmarshalJSON(b []byte) error {
	*c = oaiContent{}
	if string(b) == "null" {
		return nil
	}
	if err := json.Unmarshal(b, &c.Text); err == nil {
		return nil
	}
	var parts []oaiPart
	if err := json.Unmarshal(b, &parts); err != nil {
		return fmt.Errorf("content must be a string or a list of content parts")
	}
	var sb strings.Builder
	images := false
	for _, p := range parts {
		switch p.Type {
		case "text", "input_text", "output_text":
			sb.WriteString(p.Text)
		case "image_url", "input_image":
			images = true
		default:
			return fmt.Errorf("content parts of type %q are not supported (text and image_url)", p.Type)
		}
	}
	c.Text = sb.String()
	if images {
		c.Parts = parts
	}
	return nil
}

// imageURL returns an image part's URL.
func (p oaiPart) imageURL() (string, bool) {
	var u string
	if json.Unmarshal(p.ImageURL, &u) == nil {
		return u, u != ""
	}
	var obj struct {
		URL string `json:"url"`
	}
	if json.Unmarshal(p.ImageURL, &obj) == nil {
		return obj.URL, obj.URL != ""
	}
	return "", false
}

// apply sets c as cm's content: its text, or its parts with their
// pictures read by ir; where names the content in errors
// ("messages[0].content").
func (c oaiContent) apply(cm *chat.Message, where string, ir *imageReader) error {
	if c.Parts == nil {
		cm.Content = c.Text
		return nil
	}
	cm.Parts = make([]chat.ContentPart, 0, len(c.Parts))
	for j, p := range c.Parts {
		if p.Type != "image_url" && p.Type != "input_image" {
			cm.Parts = append(cm.Parts, chat.ContentPart{Type: "text", Text: p.Text})
			continue
		}
		u, ok := p.imageURL()
		if !ok {
			return badRequest(`%s[%d]: an image part needs "image_url": {"url": "data:image/png;base64,..."}`, where, j)
		}
		im, err := ir.url(fmt.Sprintf("%s[%d].image_url", where, j), u)
		if err != nil {
			return err
		}
		cm.Parts = append(cm.Parts, chat.ContentPart{Type: "image", Image: im})
	}
	return nil
}

// oaiMessage is a chat message.
type oaiMessage struct {
	Role       string        `json:"role"`
	Content    *oaiContent   `json:"content"`
	Name       string        `json:"name,omitempty"`
	ToolCallID string        `json:"tool_call_id,omitempty"`
	ToolCalls  []oaiToolCall `json:"tool_calls,omitempty"`
	Reasoning  string        `json:"reasoning_content,omitempty"`
	// Reasoning2 is the reasoning under the name vLLM and OpenRouter
	// give it, taken where reasoning_content is empty.
	Reasoning2 string `json:"reasoning,omitempty"`
}

// oaiToolCall is a tool call of an assistant message, in a request or a
// response (Index only in stream deltas).
type oaiToolCall struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id"`
	Type     string `json:"type"`
	Function struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	} `json:"function"`
}

// oaiTool is a tool definition, as far as Saji checks it.
type oaiTool struct {
	Type     string `json:"type"`
	Function struct {
		Name string `json:"name"`
	} `json:"function"`
}

type oaiChatRequest struct {
	oaiCommon
	oaiThinking
	Messages       []oaiMessage    `json:"messages"`
	LogProbs       bool            `json:"logprobs"`
	TopLogProbs    int             `json:"top_logprobs"`
	Tools          json.RawMessage `json:"tools"`
	ToolChoice     json.RawMessage `json:"tool_choice"`
	ParallelCalls  *bool           `json:"parallel_tool_calls"`
	ResponseFormat json.RawMessage `json:"response_format"`
}

type oaiCompletionRequest struct {
	oaiCommon
	Prompt   json.RawMessage `json:"prompt"`
	LogProbs *int            `json:"logprobs"`
	Echo     bool            `json:"echo"`
	Suffix   *string         `json:"suffix"`
}

// usage is the OpenAI usage object.
type usage struct {
	PromptTokens        int `json:"prompt_tokens"`
	CompletionTokens    int `json:"completion_tokens"`
	TotalTokens         int `json:"total_tokens"`
	PromptTokensDetails struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	// CompletionTokensDetails, with speculative decoding only, counts
	// the draft tokens the model accepted and rejected, in the fields
	// OpenAI gives its predicted outputs.
	CompletionTokensDetails *completionDetails `json:"completion_tokens_details,omitempty"`
}

// completionDetails is the usage's completion_tokens_details.
type completionDetails struct {
	Accepted int `json:"accepted_prediction_tokens"`
	Rejected int `json:"rejected_prediction_tokens"`
}

func usageOf(res runner.Result) *usage {
	u := &usage{PromptTokens: res.PromptTokens, CompletionTokens: res.CompletionTokens,
		TotalTokens: res.PromptTokens + res.CompletionTokens}
	u.PromptTokensDetails.CachedTokens = res.CachedTokens
	if res.DraftTokens > 0 {
		u.CompletionTokensDetails = &completionDetails{Accepted: res.AcceptedTokens, Rejected: res.DraftTokens - res.AcceptedTokens}
	}
	return u
}

// newID returns an id with prefix and 12 random bytes.
func newID(prefix string) string {
	var b [12]byte
	rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// sse writes server-sent events.
type sse struct {
	w  http.ResponseWriter
	rc *http.ResponseController
}

func newSSE(w http.ResponseWriter) *sse {
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, rc: http.NewResponseController(w)}
}

// send writes one data event and flushes it.
func (e *sse) send(v any) error { return e.event("", v) }

// event writes one event named name (none when empty: a plain data event,
// as chat completions send them) and flushes it. The Anthropic and
// Responses dialects name every event.
func (e *sse) event(name string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if name != "" {
		if _, err := fmt.Fprintf(e.w, "event: %s\n", name); err != nil {
			return err
		}
	}
	if _, err := fmt.Fprintf(e.w, "data: %s\n\n", b); err != nil {
		return err
	}
	return e.rc.Flush()
}

// fail reports err as the stream's last event, unless the client is gone.
func (e *sse) fail(r *http.Request, err error) {
	if r.Context().Err() == nil {
		ae := classify(err)
		e.send(map[string]any{"error": map[string]any{"message": ae.msg, "type": ae.typ, "code": nil}})
	}
}

// done ends the stream.
func (e *sse) done() {
	fmt.Fprint(e.w, "data: [DONE]\n\n")
	e.rc.Flush()
}

// chatLogProb is a token of a chat completion's logprobs.content.
type chatLogProb struct {
	Token       string        `json:"token"`
	LogProb     float32       `json:"logprob"`
	Bytes       []int         `json:"bytes"`
	TopLogProbs []chatLogProb `json:"top_logprobs"`
}

func tokenBytes(s string) []int {
	b := make([]int, len(s))
	for i := range len(s) {
		b[i] = int(s[i])
	}
	return b
}

func chatLogProbs(toks []runner.Token) []chatLogProb {
	out := make([]chatLogProb, 0, len(toks))
	for _, t := range toks {
		lp := chatLogProb{Token: t.Text, LogProb: t.LogProb, Bytes: tokenBytes(t.Text), TopLogProbs: []chatLogProb{}}
		for _, a := range t.Top {
			lp.TopLogProbs = append(lp.TopLogProbs, chatLogProb{Token: a.Text, LogProb: a.LogProb, Bytes: tokenBytes(a.Text), TopLogProbs: nil})
		}
		out = append(out, lp)
	}
	return out
}

// oaiBegin decodes a request into req and resolves its model and the
// generation settings of its common fields c. On failure it has written the
// error and reports false.
func (s *Server) oaiBegin(w http.ResponseWriter, r *http.Request, req any, c *oaiCommon) (*runner.Model, runner.Request, bool) {
	if err := s.decodeJSON(w, r, req); err != nil {
		oaiError(w, err)
		return nil, runner.Request{}, false
	}
	m, err := s.run.Model(c.Model)
	if err != nil {
		oaiError(w, err)
		return nil, runner.Request{}, false
	}
	g, err := c.genRequest()
	if err != nil {
		oaiError(w, err)
		return nil, runner.Request{}, false
	}
	return m, g, true
}

func (s *Server) handleChatCompletions(w http.ResponseWriter, r *http.Request) {
	var req oaiChatRequest
	m, g, ok := s.oaiBegin(w, r, &req, &req.oaiCommon)
	if !ok {
		return
	}
	if len(req.Messages) == 0 {
		oaiError(w, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "messages", msg: "messages must not be empty"})
		return
	}
	if err := tools(&g, req.Tools, req.ToolChoice, req.ParallelCalls); err != nil {
		oaiError(w, err)
		return
	}
	if err := responseFormat(req.ResponseFormat, &g); err != nil {
		oaiError(w, err)
		return
	}
	if err := req.oaiThinking.apply(&g); err != nil {
		oaiError(w, err)
		return
	}
	if req.TopLogProbs < 0 || req.TopLogProbs > 20 {
		oaiError(w, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "top_logprobs", msg: "top_logprobs must be between 0 and 20"})
		return
	}
	var err error
	if g.Messages, err = chatMessages(req.Messages, s.images(r.Context())); err != nil {
		oaiError(w, err)
		return
	}
	g.LogProbs, g.TopLogProbs = req.LogProbs, req.TopLogProbs
	if !req.LogProbs {
		g.TopLogProbs = 0
	}
	id, created := newID("chatcmpl-"), time.Now().Unix()
	st, err := m.Start(r.Context(), g)
	if err != nil {
		oaiError(w, err)
		return
	}
	defer st.Close() // when the handler ends before reading it
	if !req.Stream {
		var text, reasoning strings.Builder
		var toks []runner.Token
		res, err := st.Run(func(p runner.Piece) error {
			text.WriteString(p.Text)
			reasoning.WriteString(p.Reasoning)
			toks = append(toks, p.Tokens...)
			return nil
		})
		if err != nil {
			oaiError(w, err)
			return
		}
		message := map[string]any{"role": "assistant", "content": text.String()}
		if reasoning.Len() > 0 {
			message["reasoning_content"] = reasoning.String()
		}
		finish := res.Finish
		if len(res.ToolCalls) > 0 {
			message["tool_calls"] = oaiToolCalls(res.ToolCalls, false)
			if text.Len() == 0 {
				message["content"] = nil
			}
			finish = "tool_calls"
		}
		choice := map[string]any{"index": 0, "message": message, "logprobs": nil, "finish_reason": finish}
		if req.LogProbs {
			choice["logprobs"] = map[string]any{"content": chatLogProbs(toks)}
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "chat.completion", "created": created,
			"model": m.Name, "system_fingerprint": "saji", "choices": []any{choice}, "usage": usageOf(res)})
		return
	}
	ev := newSSE(w)
	chunk := func(delta map[string]any, finish any, lp []runner.Token) map[string]any {
		c := map[string]any{"index": 0, "delta": delta, "logprobs": nil, "finish_reason": finish}
		if req.LogProbs && lp != nil {
			c["logprobs"] = map[string]any{"content": chatLogProbs(lp)}
		}
		return map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": m.Name,
			"system_fingerprint": "saji", "choices": []any{c}}
	}
	if err := ev.send(chunk(map[string]any{"role": "assistant", "content": ""}, nil, nil)); err != nil {
		return
	}
	res, err := st.Run(func(p runner.Piece) error {
		if p.Reasoning != "" {
			// The reasoning comes before the answer it ends in; the
			// tokens go with the answer when there is one.
			var lp []runner.Token
			if p.Text == "" {
				lp, p.Tokens = p.Tokens, nil
			}
			if err := ev.send(chunk(map[string]any{"reasoning_content": p.Reasoning}, nil, lp)); err != nil {
				return err
			}
		}
		if p.Text == "" && (!req.LogProbs || p.Tokens == nil) {
			return nil // nothing, or text held back while it may be a tool call
		}
		return ev.send(chunk(map[string]any{"content": p.Text}, nil, p.Tokens))
	})
	if err != nil {
		ev.fail(r, err)
		return
	}
	finish := res.Finish
	if len(res.ToolCalls) > 0 {
		ev.send(chunk(map[string]any{"tool_calls": oaiToolCalls(res.ToolCalls, true)}, nil, nil))
		finish = "tool_calls"
	}
	ev.send(chunk(map[string]any{}, finish, nil))
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		ev.send(map[string]any{"id": id, "object": "chat.completion.chunk", "created": created, "model": m.Name,
			"system_fingerprint": "saji", "choices": []any{}, "usage": usageOf(res)})
	}
	ev.done()
}

// oaiToolCalls converts parsed calls to the API's shape (with an index
// each in a stream).
func oaiToolCalls(calls []chat.ToolCall, indexed bool) []oaiToolCall {
	out := make([]oaiToolCall, len(calls))
	for i, c := range calls {
		tc := oaiToolCall{ID: c.ID, Type: "function"}
		if indexed {
			tc.Index = &i
		}
		tc.Function.Name = c.Name
		tc.Function.Arguments = argumentsJSON(c.Arguments)
		out[i] = tc
	}
	return out
}

// argumentsJSON returns a call's arguments as JSON text.
func argumentsJSON(a any) string {
	if s, ok := a.(string); ok {
		return s
	}
	b, err := json.Marshal(a)
	if err != nil {
		return "{}"
	}
	return string(b)
}

// tools passes a request's tool definitions and tool_choice to g (none
// when tool_choice is "none"; only the named one for a named choice).
// Any template takes tools: the runner parses the reply's calls in the
// template's format, or in the generic JSON format.
func tools(g *runner.Request, raw, choice json.RawMessage, parallel *bool) error {
	bad := func(param, format string, args ...any) error {
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, msg: fmt.Sprintf(format, args...)}
	}
	var defs []json.RawMessage
	if len(raw) > 0 && string(raw) != "null" {
		if err := json.Unmarshal(raw, &defs); err != nil {
			return bad("tools", "tools must be a list of tool definitions")
		}
	}
	tc := chat.ToolChoice{Parallel: parallel == nil || *parallel}
	if len(choice) > 0 && string(choice) != "null" {
		var mode string
		if json.Unmarshal(choice, &mode) == nil {
			switch mode {
			case "none":
				return nil
			case "auto":
			case "required":
				tc.Required = true
			default:
				return bad("tool_choice", "tool_choice %q: none, auto, required or a function", mode)
			}
		} else {
			var named oaiTool
			if json.Unmarshal(choice, &named) != nil || named.Function.Name == "" {
				return bad("tool_choice", "tool_choice must be none, auto, required or {\"type\": \"function\", \"function\": {\"name\": ...}}")
			}
			tc.Required, tc.Name = true, named.Function.Name
		}
	}
	if len(defs) == 0 {
		if tc.Required {
			return bad("tool_choice", "tool_choice requires a call, and the request has no tools")
		}
		return nil
	}
	for i, d := range defs {
		var t oaiTool
		if json.Unmarshal(d, &t) != nil || (t.Type != "" && t.Type != "function") || t.Function.Name == "" {
			return bad("tools", "tools[%d] must be {\"type\": \"function\", \"function\": {\"name\": ..., \"parameters\": ...}}", i)
		}
		if tc.Name != "" && t.Function.Name != tc.Name {
			continue
		}
		g.Tools = append(g.Tools, d)
	}
	if tc.Name != "" && len(g.Tools) == 0 {
		return bad("tool_choice", "tool_choice names %q, which is not among the tools", tc.Name)
	}
	g.ToolChoice = tc
	return nil
}

// chatMessages converts OpenAI messages to the template's, their pictures
// read by ir.
func chatMessages(msgs []oaiMessage, ir *imageReader) ([]chat.Message, error) {
	var out []chat.Message
	for i, msg := range msgs {
		cm := chat.Message{Role: msg.Role, Name: msg.Name, ToolCallID: msg.ToolCallID, ReasoningContent: cmp.Or(msg.Reasoning, msg.Reasoning2)}
		if msg.Content != nil {
			if err := msg.Content.apply(&cm, fmt.Sprintf("messages[%d].content", i), ir); err != nil {
				return nil, err
			}
		} else {
			cm.NullContent = true
		}
		for _, tc := range msg.ToolCalls {
			// Templates expect the arguments as an object (they write it
			// with tojson), as llama.cpp gives them; OpenAI sends JSON text,
			// which chat decodes (or passes as a string if it is not JSON).
			args := json.RawMessage(tc.Function.Arguments)
			cm.ToolCalls = append(cm.ToolCalls, chat.ToolCall{ID: tc.ID, Type: tc.Type, Name: tc.Function.Name, Arguments: args})
		}
		out = append(out, cm)
	}
	return out, nil
}
