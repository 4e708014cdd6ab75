package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"saji/engine/chat"
	"saji/engine/imagefile"
	"saji/engine/runner"
)

// The Anthropic dialect: /v1/messages and /v1/messages/count_tokens, which
// Claude Code and the @anthropic-ai/sdk clients speak. A request is turned
// into the OpenAI dialect's terms (the sampling fields, tools and
// tool_choice) and checked by the same code.

func (s *Server) anthropicRoutes() {
	s.mux.HandleFunc("POST /v1/messages", s.handleMessages)
	s.mux.HandleFunc("POST /v1/messages/count_tokens", s.handleCountTokens)
}

// anthropicError writes err as an Anthropic error object.
func anthropicError(w http.ResponseWriter, err error) {
	ae := classify(err)
	writeJSON(w, ae.status, anthropicErrorBody(ae))
}

// anthropicErrorBody is ae in Anthropic's shape, whose error type follows
// the status as Anthropic's does. A prompt beyond the context is "prompt
// is too long", as Anthropic words it: Claude Code compacts the
// conversation when it reads that.
func anthropicErrorBody(ae *apiError) map[string]any {
	msg := ae.msg
	if ae.code == "context_length_exceeded" {
		msg = "prompt is too long: " + msg
	}
	typ := "api_error"
	switch ae.status {
	case http.StatusBadRequest:
		typ = "invalid_request_error"
	case http.StatusUnauthorized:
		typ = "authentication_error"
	case http.StatusForbidden:
		typ = "permission_error"
	case http.StatusNotFound:
		typ = "not_found_error"
	case http.StatusRequestEntityTooLarge:
		typ = "request_too_large"
	case http.StatusTooManyRequests:
		typ = "rate_limit_error"
	case http.StatusServiceUnavailable:
		typ = "overloaded_error"
	}
	return map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
}

// anthropicRequest is a /v1/messages (or count_tokens) request.
type anthropicRequest struct {
	Model         string               `json:"model"`
	Messages      []anthropicMessage   `json:"messages"`
	System        anthropicBlocks      `json:"system"`
	MaxTokens     *int                 `json:"max_tokens"`
	StopSequences []string             `json:"stop_sequences"`
	Temperature   *float32             `json:"temperature"`
	TopP          *float32             `json:"top_p"`
	TopK          *int                 `json:"top_k"`
	Stream        bool                 `json:"stream"`
	Tools         []anthropicTool      `json:"tools"`
	ToolChoice    *anthropicToolChoice `json:"tool_choice"`
	Thinking      *anthropicThinking   `json:"thinking"`
	Metadata      json.RawMessage      `json:"metadata"` // accepted, unused
}

// anthropicMessage is a turn of the conversation.
type anthropicMessage struct {
	Role    string          `json:"role"`
	Content anthropicBlocks `json:"content"`
}

// anthropicBlocks is a content: a string (one text block) or a list of
// content blocks.
type anthropicBlocks []anthropicBlock

func (b *anthropicBlocks) UnmarshalJSON(data []byte) error {
	if string(data) == "null" {
		*b = nil
		return nil
	}
	var s string
	if json.Unmarshal(data, &s) == nil {
		*b = anthropicBlocks{{Type: "text", Text: s}}
		return nil
	}
	var list []anthropicBlock
	if err := json.Unmarshal(data, &list); err != nil {
		return fmt.Errorf("content must be a string or a list of content blocks")
	}
	*b = list
	return nil
}

// anthropicBlock is a content block of a request, of any type: the
// fields of its type are set.
type anthropicBlock struct {
	Type string `json:"type"`
	// Text is a text block's.
	Text string `json:"text"`
	// ID, Name and Input are a tool_use block's.
	ID    string          `json:"id"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
	// ToolUseID and Content are a tool_result block's (its is_error has
	// no place in the templates: the result's text says it).
	ToolUseID string           `json:"tool_use_id"`
	Content   *anthropicBlocks `json:"content"`
	// Thinking is a thinking block's; its signature is not checked.
	Thinking string `json:"thinking"`
	// Source is an image block's picture.
	Source *anthropicSource `json:"source"`
}

// anthropicSource is an image block's source: base64 data of a media
// type, or a URL.
type anthropicSource struct {
	Type      string `json:"type"` // "base64" or "url"
	MediaType string `json:"media_type"`
	Data      string `json:"data"`
	URL       string `json:"url"`
}

// image reads an image block's picture at where through ir.
func (b anthropicBlock) image(where string, ir *imageReader) (*imagefile.Image, error) {
	src := b.Source
	switch {
	case src == nil:
		return nil, badRequest(`%s: an image block needs a source: {"type": "base64", "media_type": "image/png", "data": ...}`, where)
	case src.Type == "base64":
		if src.MediaType != "" && !strings.HasPrefix(src.MediaType, "image/") {
			return nil, badRequest("%s.source: media type %q is not an image (image/jpeg, image/png, image/gif or image/webp)", where, src.MediaType)
		}
		return ir.base64(where+".source.data", src.Data)
	case src.Type == "url":
		return ir.url(where+".source.url", src.URL)
	}
	return nil, badRequest("%s.source: a source of type %q (base64 or url)", where, src.Type)
}

// text joins the text blocks of b as they are, as the OpenAI dialect joins
// text parts (and Ollama Anthropic's blocks: Claude Code ends a block
// with the newline it wants); where names what b is, for the errors.
// Images and other blocks are refused.
func (b anthropicBlocks) text(where string) (string, error) {
	var parts []string
	for i, blk := range b {
		switch blk.Type {
		case "text":
			parts = append(parts, blk.Text)
		case "image", "document":
			return "", badRequest("%s[%d]: %s blocks are not supported here (pictures go in a user message's content)", where, i, blk.Type)
		default:
			return "", badRequest("%s[%d]: a block of type %q where text is expected", where, i, blk.Type)
		}
	}
	return strings.Join(parts, ""), nil
}

// anthropicTool is a tool definition. Only client tools (type "custom"
// or none) are run by the client; Anthropic's server tools are left out.
type anthropicTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// anthropicToolChoice is tool_choice: auto, any, tool (with a name) or
// none.
type anthropicToolChoice struct {
	Type string `json:"type"`
	Name string `json:"name"`
}

// anthropicThinking is the thinking setting: enabled (with a budget Saji
// does not enforce) or disabled.
type anthropicThinking struct {
	Type         string `json:"type"`
	BudgetTokens int    `json:"budget_tokens"`
}

// functionTool is a function tool definition in the OpenAI shape, which
// tools() checks and the chat templates read; the Anthropic and Responses
// tools are converted to it.
type functionTool struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description,omitempty"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

// newFunctionTool returns the definition of a function named name, whose
// arguments follow the JSON schema params (an object of any properties
// when empty).
func newFunctionTool(name, description string, params json.RawMessage) json.RawMessage {
	t := functionTool{Type: "function"}
	t.Function.Name, t.Function.Description, t.Function.Parameters = name, description, params
	if !present(params) {
		t.Function.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	b, _ := json.Marshal(t) // a raw message that decoded as JSON marshals
	return b
}

// namedChoice is an OpenAI tool_choice naming one function.
func namedChoice(name string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{"type": "function", "function": map[string]string{"name": name}})
	return b
}

// toolsJSON returns the request's client tools and tool_choice in the
// OpenAI shape, for tools(); server tools are logged and left out.
func (req *anthropicRequest) toolsJSON(log *slog.Logger) (defs, choice json.RawMessage, err error) {
	var list []json.RawMessage
	for i, t := range req.Tools {
		switch {
		case t.Type != "" && t.Type != "custom":
			log.Warn("server: an Anthropic server tool is left out (Saji runs none)", "type", t.Type, "name", t.Name)
			continue
		case t.Name == "":
			return nil, nil, badRequest("tools[%d]: name is required", i)
		}
		list = append(list, newFunctionTool(t.Name, t.Description, t.InputSchema))
	}
	if len(list) > 0 {
		defs, _ = json.Marshal(list)
	}
	if tc := req.ToolChoice; tc != nil {
		switch tc.Type {
		case "auto", "":
			choice = json.RawMessage(`"auto"`)
		case "any":
			choice = json.RawMessage(`"required"`)
		case "none":
			choice = json.RawMessage(`"none"`)
		case "tool":
			if tc.Name == "" {
				return nil, nil, badRequest("tool_choice: a choice of type tool needs the tool's name")
			}
			choice = namedChoice(tc.Name)
		default:
			return nil, nil, badRequest("tool_choice type %q: auto, any, tool or none", tc.Type)
		}
	}
	return defs, choice, nil
}

// generation checks req and returns its generation (see
// agentGeneration). For count_tokens (counting), max_tokens is not
// required.
func (req *anthropicRequest) generation(log *slog.Logger, counting bool, ir *imageReader) (runner.Request, error) {
	if !counting {
		switch {
		case req.MaxTokens == nil:
			return runner.Request{}, badRequest("max_tokens: a number of tokens is required")
		case *req.MaxTokens < 1:
			return runner.Request{}, badRequest("max_tokens must be at least 1, not %d", *req.MaxTokens)
		}
	}
	if len(req.Messages) == 0 {
		return runner.Request{}, badRequest("messages: at least one message is required")
	}
	msgs, err := anthropicMessages(req.System, req.Messages, ir)
	if err != nil {
		return runner.Request{}, err
	}
	defs, choice, err := req.toolsJSON(log)
	if err != nil {
		return runner.Request{}, err
	}
	c := oaiCommon{Model: req.Model, MaxTokens: req.MaxTokens, Temperature: req.Temperature, TopP: req.TopP, TopK: req.TopK,
		Stop: req.StopSequences}
	g, err := agentGeneration(c, msgs, defs, choice)
	if err != nil {
		return g, err
	}
	if t := req.Thinking; t != nil {
		switch on := t.Type != "disabled"; t.Type {
		case "enabled", "adaptive", "disabled":
			g.Think = &on
		default:
			return g, badRequest("thinking type %q: enabled or disabled", t.Type)
		}
	}
	return g, nil
}

// agentGeneration returns the generation of an agent dialect's request:
// the sampling fields c, checked as the OpenAI dialect checks them, msgs,
// and the tools and tool_choice in the OpenAI shape (the runner takes
// the reply's calls out of its text, into Result.ToolCalls). Its max
// tokens is a most: the generation stops at the end of the context, as
// Anthropic's and the Responses API's do, so that an agent's large limit
// is not refused.
func agentGeneration(c oaiCommon, msgs []chat.Message, defs, choice json.RawMessage) (runner.Request, error) {
	g, err := c.genRequest()
	if err != nil {
		return g, err
	}
	g.CutAtContext, g.Messages = true, msgs
	return g, tools(&g, defs, choice, nil)
}

// billingHeader starts the system prompt Claude Code sends: its cch= value
// changes with every request, which would end the prefix cache's reuse at
// the first system token.
const billingHeader = "x-anthropic-billing-header:"

// steadySystem returns a system text with the changing cch= value of
// Claude Code's billing header zeroed, so that the prompt's prefix is the
// same from request to request; other texts are returned as they are.
func steadySystem(text string) string {
	if !strings.HasPrefix(text, billingHeader) {
		return text
	}
	line, _, _ := strings.Cut(text, "\n")
	i := strings.Index(line, "cch=")
	if i < 0 {
		return text
	}
	i += len("cch=")
	n := strings.IndexByte(line[i:], ';')
	if n < 0 {
		return text
	}
	return text[:i] + strings.Repeat("0", n) + text[i+n:]
}

// anthropicMessages converts a request's system prompt and messages to
// the template's: a user turn's tool_result blocks become tool messages
// (before its text, which follows them), an assistant turn's tool_use
// blocks its tool calls and its thinking blocks its reasoning.
func anthropicMessages(system anthropicBlocks, msgs []anthropicMessage, ir *imageReader) ([]chat.Message, error) {
	var out []chat.Message
	for i := range system {
		system[i].Text = steadySystem(system[i].Text)
	}
	if sys, err := system.text("system"); err != nil {
		return nil, err
	} else if sys != "" {
		out = append(out, chat.Message{Role: "system", Content: sys})
	}
	names := map[string]string{} // tool names by tool_use id, for the results
	for i, msg := range msgs {
		if msg.Role != "user" && msg.Role != "assistant" {
			return nil, badRequest("messages[%d]: role %q: user or assistant (the system prompt is the system field)", i, msg.Role)
		}
		cm := chat.Message{Role: msg.Role}
		var text []string
		var parts []chat.ContentPart // text and pictures in order, when there is a picture
		images := false
		var results []chat.Message
		for j, b := range msg.Content {
			where := fmt.Sprintf("messages[%d].content[%d]", i, j)
			switch b.Type {
			case "text":
				text = append(text, b.Text)
				parts = append(parts, chat.ContentPart{Type: "text", Text: b.Text})
			case "image":
				im, err := b.image(where, ir)
				if err != nil {
					return nil, err
				}
				parts, images = append(parts, chat.ContentPart{Type: "image", Image: im}), true
			case "thinking":
				cm.ReasoningContent += b.Thinking
			case "redacted_thinking":
				// Encrypted: nothing a model here can read.
			case "tool_use":
				if msg.Role != "assistant" || b.ID == "" || b.Name == "" {
					return nil, badRequest("%s: a tool_use block is an assistant's, with an id and a name", where)
				}
				args := b.Input
				var obj map[string]json.RawMessage
				if !present(args) {
					args = json.RawMessage("{}")
				} else if json.Unmarshal(args, &obj) != nil {
					return nil, badRequest("%s: the input must be a JSON object", where)
				}
				names[b.ID] = b.Name
				cm.ToolCalls = append(cm.ToolCalls, chat.ToolCall{ID: b.ID, Type: "function", Name: b.Name, Arguments: args})
			case "tool_result":
				if msg.Role != "user" {
					return nil, badRequest("%s: a tool_result block is a user's", where)
				}
				var content string
				if b.Content != nil {
					var err error
					if content, err = b.Content.text(where + ".content"); err != nil {
						return nil, err
					}
				}
				results = append(results, chat.Message{Role: "tool", ToolCallID: b.ToolUseID, Name: names[b.ToolUseID], Content: content})
			case "document":
				return nil, badRequest("%s: document blocks are not supported (send the text as a text block)", where)
			default:
				return nil, badRequest("%s: blocks of type %q are not supported", where, b.Type)
			}
		}
		out = append(out, results...)
		if len(text) > 0 || images || len(cm.ToolCalls) > 0 || cm.ReasoningContent != "" || len(results) == 0 {
			cm.Content = strings.Join(text, "")
			cm.NullContent = len(text) == 0 && !images && len(cm.ToolCalls) > 0 // as OpenAI clients send a calling turn
			if images {
				cm.Parts, cm.Content = parts, ""
			}
			out = append(out, cm)
		}
	}
	return out, nil
}

// anthropicBegin decodes a request into req and resolves its model and
// generation. On failure it has written the error and reports false.
func (s *Server) anthropicBegin(w http.ResponseWriter, r *http.Request, req *anthropicRequest, counting bool) (*runner.Model, runner.Request, bool) {
	if err := s.decodeJSON(w, r, req); err != nil {
		anthropicError(w, err)
		return nil, runner.Request{}, false
	}
	m, err := s.run.Model(req.Model)
	if err != nil {
		anthropicError(w, err)
		return nil, runner.Request{}, false
	}
	g, err := req.generation(s.log, counting, s.images(r.Context()))
	if err != nil {
		anthropicError(w, err)
		return nil, runner.Request{}, false
	}
	return m, g, true
}

func (s *Server) handleMessages(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	m, g, ok := s.anthropicBegin(w, r, &req, false)
	if !ok {
		return
	}
	st, err := m.Start(r.Context(), g)
	if err != nil {
		anthropicError(w, err)
		return
	}
	defer st.Close() // when the handler ends before reading it
	writeMessage(w, r, st.Run, replyModel(req.Model, m), st.PromptTokens(), req.Stream)
}

// replyModel is the model a reply names: the one the request asked for
// (agents compare it with their setting), or m's when it asked for none.
func replyModel(asked string, m *runner.Model) string {
	if asked == "" {
		return m.Name
	}
	return asked
}

// runFunc runs a generation to its end, as Stream.Run does.
type runFunc func(emit func(runner.Piece) error) (runner.Result, error)

// writeMessage runs a generation and writes its message, whole or as a
// stream of events: model is the name it answers with, prompt the
// prompt's length.
func writeMessage(w http.ResponseWriter, r *http.Request, run runFunc, model string, prompt int, stream bool) {
	msg := map[string]any{"id": newID("msg_"), "type": "message", "role": "assistant", "model": model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": prompt, "output_tokens": 0}}
	a := &anthropicReply{}
	if stream {
		a.ev = newSSE(w)
		if a.ev.event("message_start", map[string]any{"type": "message_start", "message": msg}) != nil {
			return
		}
	}
	res, calls, err := readReply(run, a.delta)
	if err == nil {
		err = a.finish(calls)
	}
	if err != nil {
		if a.ev == nil {
			anthropicError(w, err)
		} else if r.Context().Err() == nil { // a client still there hears why
			a.ev.event("error", anthropicErrorBody(classify(err)))
		}
		return
	}
	reason, seq := anthropicStop(res, len(calls))
	u := anthropicUsage(res)
	if a.ev == nil {
		msg["content"], msg["stop_reason"], msg["stop_sequence"], msg["usage"] = a.blocks, reason, seq, u
		writeJSON(w, http.StatusOK, msg)
		return
	}
	a.ev.event("message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": reason, "stop_sequence": seq}, "usage": u})
	a.ev.event("message_stop", map[string]any{"type": "message_stop"})
}

// handleCountTokens counts the tokens of a request's prompt: its messages
// and tools rendered through the model's template.
func (s *Server) handleCountTokens(w http.ResponseWriter, r *http.Request) {
	var req anthropicRequest
	m, g, ok := s.anthropicBegin(w, r, &req, true)
	if !ok {
		return
	}
	toks, err := m.Prompt(r.Context(), g)
	if err != nil {
		anthropicError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"input_tokens": len(toks)})
}

// anthropicStop returns a message's stop_reason and stop_sequence.
func anthropicStop(res runner.Result, calls int) (string, any) {
	switch {
	case calls > 0:
		return "tool_use", nil
	case res.StopString != "":
		return "stop_sequence", res.StopString
	case res.Finish == "length":
		return "max_tokens", nil
	}
	return "end_turn", nil
}

// anthropicUsage is a message's usage: input_tokens counts the prompt
// tokens the prefix cache did not give, as Anthropic's counts those it
// did not read from its cache.
func anthropicUsage(res runner.Result) map[string]any {
	return map[string]any{"input_tokens": res.PromptTokens - res.CachedTokens, "output_tokens": res.CompletionTokens,
		"cache_read_input_tokens": res.CachedTokens, "cache_creation_input_tokens": 0}
}

// replyPart is what a piece of a reply is to the dialects that give
// reasoning, answer and tool calls as separate blocks (Anthropic's content
// blocks, the Responses API's output items).
type replyPart int

const (
	partNone      replyPart = iota // no block is open
	partReasoning                  // the model's reasoning (Piece.Reasoning)
	partText                       // the answer
)

// readReply runs a generation (run is Stream.Run) and passes its text to
// delta as it comes: the reasoning, and the answer, whose tool calls the
// runner took out. It returns how the generation ended and the calls.
func readReply(run runFunc, delta func(replyPart, string) error) (runner.Result, []chat.ToolCall, error) {
	res, err := run(func(p runner.Piece) error {
		if p.Reasoning != "" {
			if err := delta(partReasoning, p.Reasoning); err != nil {
				return err
			}
		}
		if p.Text == "" {
			return nil
		}
		return delta(partText, p.Text)
	})
	if err != nil {
		return res, nil, err
	}
	return res, res.ToolCalls, nil
}

// anthropicReply builds a message's content blocks as the generation
// goes, and streams them as Anthropic's events when ev is set.
type anthropicReply struct {
	ev     *sse // nil: the message is written whole
	blocks []any
	open   replyPart       // the kind of the block being written
	text   strings.Builder // its text so far
	pinged bool
}

// send writes one event of a stream.
func (a *anthropicReply) send(event string, fields map[string]any) error {
	fields["type"] = event
	return a.ev.event(event, fields)
}

// delta adds text to the block of part, closing the open one and starting
// a new one when the part changes.
func (a *anthropicReply) delta(part replyPart, text string) error {
	if part != a.open {
		if err := a.close(); err != nil {
			return err
		}
		if err := a.start(part); err != nil {
			return err
		}
	}
	a.text.WriteString(text)
	if a.ev == nil {
		return nil
	}
	d := map[string]any{"type": "text_delta", "text": text}
	if part == partReasoning {
		d = map[string]any{"type": "thinking_delta", "thinking": text}
	}
	return a.send("content_block_delta", map[string]any{"index": len(a.blocks), "delta": d})
}

// start opens a block of part; the first is followed by a ping, as
// Anthropic's streams are.
func (a *anthropicReply) start(part replyPart) error {
	a.open = part
	if a.ev == nil {
		return nil
	}
	block := map[string]any{"type": "text", "text": ""}
	if part == partReasoning {
		block = map[string]any{"type": "thinking", "thinking": "", "signature": ""}
	}
	if err := a.send("content_block_start", map[string]any{"index": len(a.blocks), "content_block": block}); err != nil {
		return err
	}
	return a.ping()
}

// ping sends the stream's one ping, unless it was sent.
func (a *anthropicReply) ping() error {
	if a.pinged {
		return nil
	}
	a.pinged = true
	return a.send("ping", map[string]any{})
}

// close ends the open block, if any. A thinking block ends with an empty
// signature (Saji signs nothing), which clients that pass thinking back
// expect to find.
func (a *anthropicReply) close() error {
	part, text := a.open, a.text.String()
	if part == partNone {
		return nil
	}
	a.open = partNone
	a.text.Reset()
	block := map[string]any{"type": "text", "text": text}
	if part == partReasoning {
		block = map[string]any{"type": "thinking", "thinking": text, "signature": ""}
	}
	if a.ev != nil {
		if part == partReasoning {
			if err := a.send("content_block_delta", map[string]any{"index": len(a.blocks),
				"delta": map[string]any{"type": "signature_delta", "signature": ""}}); err != nil {
				return err
			}
		}
		if err := a.send("content_block_stop", map[string]any{"index": len(a.blocks)}); err != nil {
			return err
		}
	}
	a.blocks = append(a.blocks, block)
	return nil
}

// toolUse adds a tool_use block for call, its input streamed whole.
func (a *anthropicReply) toolUse(call chat.ToolCall) error {
	if err := a.close(); err != nil {
		return err
	}
	input := json.RawMessage(argumentsJSON(call.Arguments))
	var obj map[string]json.RawMessage
	if json.Unmarshal(input, &obj) != nil {
		input = json.RawMessage("{}") // not an object: the parsers pass only objects
	}
	id := anthropicToolID(call.ID)
	if a.ev != nil {
		i := len(a.blocks)
		if err := a.send("content_block_start", map[string]any{"index": i,
			"content_block": map[string]any{"type": "tool_use", "id": id, "name": call.Name, "input": map[string]any{}}}); err != nil {
			return err
		}
		if err := a.ping(); err != nil {
			return err
		}
		if err := a.send("content_block_delta", map[string]any{"index": i,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(input)}}); err != nil {
			return err
		}
		if err := a.send("content_block_stop", map[string]any{"index": i}); err != nil {
			return err
		}
	}
	a.blocks = append(a.blocks, map[string]any{"type": "tool_use", "id": id, "name": call.Name, "input": input})
	return nil
}

// finish ends the content with the tool calls' blocks. A reply with no
// content at all gets an empty text block, as Anthropic's do.
func (a *anthropicReply) finish(calls []chat.ToolCall) error {
	for _, c := range calls {
		if err := a.toolUse(c); err != nil {
			return err
		}
	}
	if len(a.blocks) == 0 && a.open == partNone {
		if err := a.start(partText); err != nil {
			return err
		}
	}
	return a.close()
}

// anthropicToolID is the id of a tool_use block for a call of id:
// Anthropic's "toolu_" prefix in place of "call_". An id of another shape
// (Mistral's nine characters, which its template requires back) is kept.
func anthropicToolID(id string) string {
	if rest, ok := strings.CutPrefix(id, "call_"); ok {
		return "toolu_" + rest
	}
	if id == "" {
		return newID("toolu_")
	}
	return id
}
