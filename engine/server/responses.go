package server

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"saji/engine/chat"
	"saji/engine/runner"
)

// The OpenAI Responses API: /v1/responses, which Codex and the openai
// clients' responses.create speak. A request carries its conversation
// (Codex sends it whole, with store false), or continues one that Saji
// keeps in memory (previous_response_id): the last storedResponses
// responses made with store, OpenAI's default.

// storedResponses is how many responses the server keeps for
// previous_response_id and GET /v1/responses/{id}.
const storedResponses = 256

func (s *Server) responsesRoutes() {
	s.responses = newResponseStore(storedResponses)
	s.mux.HandleFunc("POST /v1/responses", s.handleResponses)
	s.mux.HandleFunc("GET /v1/responses/{id}", s.handleGetResponse)
	s.mux.HandleFunc("DELETE /v1/responses/{id}", s.handleDeleteResponse)
}

// responseStore keeps the last responses made with store, so that a
// request may continue one; when it is full the oldest goes. It is safe
// for concurrent use.
type responseStore struct {
	mu    sync.Mutex
	max   int
	order []string // the ids, oldest first
	byID  map[string]storedResponse
}

// storedResponse is a kept response: its conversation (the input, after
// the instructions, which a continuation does not inherit, and the
// reply's turn) and the response object.
type storedResponse struct {
	conversation []chat.Message
	object       map[string]any
}

func newResponseStore(n int) *responseStore {
	return &responseStore{max: n, byID: map[string]storedResponse{}}
}

// get returns the response of id.
func (st *responseStore) get(id string) (storedResponse, bool) {
	st.mu.Lock()
	defer st.mu.Unlock()
	r, ok := st.byID[id]
	return r, ok
}

// put keeps r as id, dropping the oldest response when the store is full.
func (st *responseStore) put(id string, r storedResponse) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if len(st.order) >= st.max {
		delete(st.byID, st.order[0])
		st.order = st.order[1:]
	}
	st.order = append(st.order, id)
	st.byID[id] = r
}

// remove drops the response of id and reports whether it was kept.
func (st *responseStore) remove(id string) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	if _, ok := st.byID[id]; !ok {
		return false
	}
	delete(st.byID, id)
	st.order = slices.DeleteFunc(st.order, func(o string) bool { return o == id })
	return true
}

// responsesRequest is a /v1/responses request.
type responsesRequest struct {
	Model           string            `json:"model"`
	Input           json.RawMessage   `json:"input"`
	Instructions    string            `json:"instructions"`
	MaxOutputTokens *int              `json:"max_output_tokens"`
	Temperature     *float32          `json:"temperature"`
	TopP            *float32          `json:"top_p"`
	Tools           []json.RawMessage `json:"tools"`
	ToolChoice      json.RawMessage   `json:"tool_choice"`
	Reasoning       *struct {
		Effort string `json:"effort"`
	} `json:"reasoning"`
	Text *struct {
		Format json.RawMessage `json:"format"`
	} `json:"text"`
	Stream             bool              `json:"stream"`
	Store              *bool             `json:"store"`
	PreviousResponseID string            `json:"previous_response_id"`
	Metadata           map[string]string `json:"metadata"`
}

// responsesTool is a tool of a request: Saji runs function tools (flat:
// name, description, parameters, strict); the others (Codex's local_shell,
// web_search, ...) are left out.
type responsesTool struct {
	Type        string          `json:"type"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toolsJSON returns the request's function tools and tool_choice in the
// OpenAI chat shape, for tools().
func (req *responsesRequest) toolsJSON(log *slog.Logger) (defs, choice json.RawMessage, err error) {
	var list []json.RawMessage
	for i, raw := range req.Tools {
		var t responsesTool
		if json.Unmarshal(raw, &t) != nil {
			return nil, nil, oaiBad("tools", "tools[%d] must be a tool object", i)
		}
		switch {
		case t.Type != "function":
			log.Warn("server: a Responses tool that is not a function is left out", "type", t.Type, "name", t.Name)
			continue
		case t.Name == "":
			return nil, nil, oaiBad("tools", "tools[%d]: a function tool needs a name", i)
		}
		list = append(list, newFunctionTool(t.Name, t.Description, t.Parameters))
	}
	if len(list) > 0 {
		defs, _ = json.Marshal(list)
	}
	if present(req.ToolChoice) {
		var mode string
		var named struct {
			Type, Name string
		}
		switch {
		case json.Unmarshal(req.ToolChoice, &mode) == nil:
			choice = req.ToolChoice // none, auto, required: tools() checks it
		case json.Unmarshal(req.ToolChoice, &named) == nil && named.Type == "function" && named.Name != "":
			choice = namedChoice(named.Name)
		default:
			return nil, nil, oaiBad("tool_choice", `tool_choice must be none, auto, required or {"type": "function", "name": ...}`)
		}
	}
	return defs, choice, nil
}

// oaiBad is a 400 in the OpenAI shape about param.
func oaiBad(param, format string, args ...any) error {
	return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: param, msg: fmt.Sprintf(format, args...)}
}

// responsesItem is an input item of any type: the fields of its type are
// set. A message item may leave its type out.
type responsesItem struct {
	Type string `json:"type"`
	// Role and Content are a message's.
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
	// CallID, Name and Arguments are a function_call's; CallID and Output
	// a function_call_output's.
	CallID    string          `json:"call_id"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Output    json.RawMessage `json:"output"`
	// Summary (and Content) are a reasoning item's.
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
}

// reasoningText returns a reasoning item's text: its reasoning_text
// content, or else its summary.
func (it *responsesItem) reasoningText() string {
	var parts []struct {
		Text string `json:"text"`
	}
	var texts []string
	if json.Unmarshal(it.Content, &parts) == nil {
		for _, p := range parts {
			texts = append(texts, p.Text)
		}
	}
	if len(texts) == 0 {
		for _, s := range it.Summary {
			texts = append(texts, s.Text)
		}
	}
	return strings.Join(texts, "\n")
}

// responsesMessages converts instructions, the conversation a request
// continues (history, which it leaves as it is) and input to the
// template's messages. The assistant's items of one turn (reasoning,
// message, function calls) become one assistant message.
func responsesMessages(instructions string, history []chat.Message, input json.RawMessage) ([]chat.Message, error) {
	var out []chat.Message
	if instructions != "" {
		out = append(out, chat.Message{Role: "system", Content: instructions})
	}
	for _, m := range history {
		m.ToolCalls = slices.Clip(m.ToolCalls) // a call appended to it copies
		out = append(out, m)
	}
	var text string
	if json.Unmarshal(input, &text) == nil {
		return append(out, chat.Message{Role: "user", Content: text}), nil
	}
	var items []responsesItem
	if err := json.Unmarshal(input, &items); err != nil || len(items) == 0 {
		return nil, oaiBad("input", "input must be a string or a list of input items")
	}
	// assistant returns the assistant message that the item continues.
	assistant := func() *chat.Message {
		if n := len(out); n > 0 && out[n-1].Role == "assistant" {
			return &out[n-1]
		}
		out = append(out, chat.Message{Role: "assistant", NullContent: true})
		return &out[len(out)-1]
	}
	// content reads a message's content or a call's output: a string or
	// text parts.
	content := func(i int, raw json.RawMessage) (string, error) {
		var c oaiContent
		if !present(raw) {
			return "", nil
		}
		if err := json.Unmarshal(raw, &c); err != nil {
			return "", oaiBad("input", "input[%d]: %v", i, err)
		}
		if c.Parts != nil {
			// The kept responses would hold the decoded pictures.
			return "", oaiBad("input", "input[%d]: input_image parts are not supported by /v1/responses: send pictures to /v1/chat/completions as image_url parts", i)
		}
		return c.Text, nil
	}
	for i, it := range items {
		typ := it.Type
		if typ == "" && it.Role != "" {
			typ = "message"
		}
		switch typ {
		case "message":
			c, err := content(i, it.Content)
			if err != nil {
				return nil, err
			}
			switch it.Role {
			case "user", "system":
				out = append(out, chat.Message{Role: it.Role, Content: c})
			case "developer":
				out = append(out, chat.Message{Role: "system", Content: c})
			case "assistant":
				m := assistant()
				if m.Content != "" && c != "" {
					m.Content += "\n"
				}
				m.Content += c
				m.NullContent = m.NullContent && c == ""
			default:
				return nil, oaiBad("input", "input[%d]: role %q: user, assistant, system or developer", i, it.Role)
			}
		case "function_call":
			if it.Name == "" {
				return nil, oaiBad("input", "input[%d]: a function_call needs a name", i)
			}
			args := it.Arguments
			if args == "" {
				args = "{}"
			}
			m := assistant()
			// JSON text, which chat decodes for the template (see chatMessages).
			m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: it.CallID, Type: "function", Name: it.Name, Arguments: json.RawMessage(args)})
		case "function_call_output":
			c, err := content(i, it.Output)
			if err != nil {
				return nil, err
			}
			out = append(out, chat.Message{Role: "tool", ToolCallID: it.CallID, Content: c})
		case "reasoning":
			m := assistant()
			m.ReasoningContent += it.reasoningText()
		case "item_reference":
			return nil, oaiBad("input", "input[%d]: item references are not supported: send the items themselves, or previous_response_id", i)
		default:
			return nil, oaiBad("input", "input[%d]: items of type %q are not supported", i, typ)
		}
	}
	return out, nil
}

// generation checks req and returns its generation, continuing history
// (see agentGeneration).
func (req *responsesRequest) generation(log *slog.Logger, history []chat.Message) (runner.Request, error) {
	switch {
	case len(req.Input) == 0:
		return runner.Request{}, oaiBad("input", "input is required")
	case req.MaxOutputTokens != nil && *req.MaxOutputTokens < 1:
		return runner.Request{}, oaiBad("max_output_tokens", "max_output_tokens must be at least 1, not %d", *req.MaxOutputTokens)
	}
	msgs, err := responsesMessages(req.Instructions, history, req.Input)
	if err != nil {
		return runner.Request{}, err
	}
	defs, choice, err := req.toolsJSON(log)
	if err != nil {
		return runner.Request{}, err
	}
	c := oaiCommon{Model: req.Model, MaxTokens: req.MaxOutputTokens, Temperature: req.Temperature, TopP: req.TopP}
	g, err := agentGeneration(c, msgs, defs, choice)
	if err != nil {
		return g, err
	}
	if req.Text != nil && present(req.Text.Format) {
		// text.format is response_format with the schema's fields flat.
		var f struct {
			Type   string          `json:"type"`
			Name   string          `json:"name"`
			Schema json.RawMessage `json:"schema"`
		}
		if json.Unmarshal(req.Text.Format, &f) != nil {
			return g, oaiBad("text.format", "text.format must be an object with a type")
		}
		rf, _ := json.Marshal(map[string]any{"type": f.Type, "json_schema": map[string]any{"name": f.Name, "schema": f.Schema}})
		if err := responseFormat(rf, &g); err != nil {
			return g, err
		}
	}
	if req.Reasoning != nil && req.Reasoning.Effort != "" {
		// The effort means what it does in chat completions.
		if err := (&oaiThinking{ReasoningEffort: &req.Reasoning.Effort}).apply(&g); err != nil {
			return g, err
		}
	}
	return g, nil
}

func (s *Server) handleResponses(w http.ResponseWriter, r *http.Request) {
	var req responsesRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		oaiError(w, err)
		return
	}
	m, err := s.run.Model(req.Model)
	if err != nil {
		oaiError(w, err)
		return
	}
	var history []chat.Message
	if id := req.PreviousResponseID; id != "" {
		prev, ok := s.responses.get(id)
		if !ok {
			oaiError(w, oaiBad("previous_response_id", "previous response %q is not kept (Saji keeps the last %d made with store, in memory)", id, storedResponses))
			return
		}
		history = prev.conversation
	}
	g, err := req.generation(s.log, history)
	if err != nil {
		oaiError(w, err)
		return
	}
	st, err := m.Start(r.Context(), g)
	if err != nil {
		oaiError(w, err)
		return
	}
	defer st.Close() // when the handler ends before reading it
	o, turn, ok := writeResponse(w, r, st.Run, &req, replyModel(req.Model, m))
	if ok && req.stored() {
		conv := g.Messages
		if req.Instructions != "" {
			conv = conv[1:] // a continuation gives its own
		}
		s.responses.put(o["id"].(string), storedResponse{conversation: append(slices.Clip(conv), turn), object: o})
	}
}

// stored reports whether the response is kept: unless store is false.
func (req *responsesRequest) stored() bool { return req.Store == nil || *req.Store }

// handleGetResponse returns a kept response.
func (s *Server) handleGetResponse(w http.ResponseWriter, r *http.Request) {
	prev, ok := s.responses.get(r.PathValue("id"))
	if !ok {
		oaiError(w, &apiError{status: http.StatusNotFound, typ: "invalid_request_error", param: "response_id",
			msg: fmt.Sprintf("response %q is not kept", r.PathValue("id"))})
		return
	}
	writeJSON(w, http.StatusOK, prev.object)
}

// handleDeleteResponse forgets a kept response.
func (s *Server) handleDeleteResponse(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.responses.remove(id) {
		oaiError(w, &apiError{status: http.StatusNotFound, typ: "invalid_request_error", param: "response_id",
			msg: fmt.Sprintf("response %q is not kept", id)})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "response", "deleted": true})
}

// writeResponse runs a generation and writes its response, whole or as a
// stream of events: model is the name it answers with. When the response was
// written to its end it returns the response object and the reply as an
// assistant turn, and true.
func writeResponse(w http.ResponseWriter, r *http.Request, run runFunc, req *responsesRequest, model string) (map[string]any, chat.Message, bool) {
	rr := &responsesReply{id: newID("resp_"), created: time.Now().Unix(), req: req, model: model, output: []any{}}
	if req.Stream {
		rr.ev = newSSE(w)
		if rr.send("response.created", map[string]any{"response": rr.object("in_progress", nil)}) != nil ||
			rr.send("response.in_progress", map[string]any{"response": rr.object("in_progress", nil)}) != nil {
			return nil, chat.Message{}, false
		}
	}
	// The tokens of the pieces that are only reasoning are the reply's
	// reasoning tokens (nearly: a piece that ends the reasoning and starts
	// the answer counts with the answer).
	counted := func(emit func(runner.Piece) error) (runner.Result, error) {
		return run(func(p runner.Piece) error {
			if p.Text == "" && p.Reasoning != "" {
				rr.reasoningTokens += len(p.Tokens)
			}
			return emit(p)
		})
	}
	res, calls, err := readReply(counted, rr.delta)
	status := "completed"
	if err == nil {
		if res.Finish == "length" && len(calls) == 0 {
			status = "incomplete"
		}
		err = rr.finish(calls, status)
	}
	if err != nil {
		if rr.ev == nil {
			oaiError(w, err)
		} else if r.Context().Err() == nil { // a client still there hears why
			o := rr.object("failed", nil)
			o["error"] = map[string]any{"code": "server_error", "message": classify(err).msg}
			rr.send("response.failed", map[string]any{"response": o})
		}
		return nil, chat.Message{}, false
	}
	o := rr.object(status, &res)
	if rr.ev == nil {
		writeJSON(w, http.StatusOK, o)
	} else if rr.send("response."+status, map[string]any{"response": o}) != nil {
		return nil, chat.Message{}, false
	}
	return o, rr.turn(), true
}

// responsesReply builds a response's output items as the generation goes,
// and streams them as the Responses API's events when ev is set.
type responsesReply struct {
	ev              *sse // nil: the response is written whole
	seq             int  // the next event's sequence_number
	id              string
	created         int64
	model           string
	req             *responsesRequest
	output          []any
	reasoningTokens int
	// The reply as a turn of the conversation (see turn).
	answer, reasoning string
	calls             []chat.ToolCall
	open              replyPart       // the kind of the item being written
	itemID            string          // its id
	text              strings.Builder // its text so far
}

// send writes one event of a stream, numbered.
func (rr *responsesReply) send(event string, fields map[string]any) error {
	fields["type"], fields["sequence_number"] = event, rr.seq
	rr.seq++
	return rr.ev.event(event, fields)
}

// object is the response in its state: status, its output so far, and its
// usage when res is set.
func (rr *responsesReply) object(status string, res *runner.Result) map[string]any {
	req := rr.req
	o := map[string]any{"id": rr.id, "object": "response", "created_at": rr.created, "status": status, "model": rr.model,
		"output": rr.output, "error": nil, "incomplete_details": nil, "instructions": nil, "max_output_tokens": req.MaxOutputTokens,
		"temperature": req.Temperature, "top_p": req.TopP, "parallel_tool_calls": true, "previous_response_id": nil,
		"reasoning": map[string]any{"effort": nil, "summary": nil}, "store": req.stored(), "text": map[string]any{"format": map[string]any{"type": "text"}},
		"tool_choice": "auto", "tools": []any{}, "truncation": "disabled", "usage": nil, "metadata": map[string]string{}}
	if req.Instructions != "" {
		o["instructions"] = req.Instructions
	}
	if req.PreviousResponseID != "" {
		o["previous_response_id"] = req.PreviousResponseID
	}
	if req.Reasoning != nil && req.Reasoning.Effort != "" {
		o["reasoning"] = map[string]any{"effort": req.Reasoning.Effort, "summary": nil}
	}
	if present(req.ToolChoice) {
		o["tool_choice"] = req.ToolChoice
	}
	if len(req.Tools) > 0 {
		o["tools"] = req.Tools
	}
	if req.Text != nil && present(req.Text.Format) {
		o["text"] = map[string]any{"format": req.Text.Format}
	}
	if req.Metadata != nil {
		o["metadata"] = req.Metadata
	}
	if status == "incomplete" {
		o["incomplete_details"] = map[string]any{"reason": "max_output_tokens"}
	}
	if res != nil {
		o["usage"] = map[string]any{"input_tokens": res.PromptTokens, "output_tokens": res.CompletionTokens,
			"total_tokens":          res.PromptTokens + res.CompletionTokens,
			"input_tokens_details":  map[string]any{"cached_tokens": res.CachedTokens},
			"output_tokens_details": map[string]any{"reasoning_tokens": rr.reasoningTokens}}
	}
	return o
}

// delta adds text to the item of part, closing the open one and starting
// a new one when the part changes.
func (rr *responsesReply) delta(part replyPart, text string) error {
	if part != rr.open {
		if err := rr.close("completed"); err != nil {
			return err
		}
		if err := rr.start(part); err != nil {
			return err
		}
	}
	rr.text.WriteString(text)
	if rr.ev == nil {
		return nil
	}
	event := "response.output_text.delta"
	fields := map[string]any{"item_id": rr.itemID, "output_index": len(rr.output), "content_index": 0, "delta": text}
	if part == partReasoning {
		event = "response.reasoning_text.delta"
	} else {
		fields["logprobs"] = []any{}
	}
	return rr.send(event, fields)
}

// item is the open item, with its text and status.
func (rr *responsesReply) item(status string) map[string]any {
	text := rr.text.String()
	if rr.open == partReasoning {
		return map[string]any{"id": rr.itemID, "type": "reasoning", "summary": []any{}, "status": status,
			"content": []any{map[string]any{"type": "reasoning_text", "text": text}}}
	}
	return map[string]any{"id": rr.itemID, "type": "message", "role": "assistant", "status": status,
		"content": []any{outputText(text)}}
}

// outputText is a message's output_text part.
func outputText(text string) map[string]any {
	return map[string]any{"type": "output_text", "text": text, "annotations": []any{}, "logprobs": []any{}}
}

// start opens an item of part: a reasoning item or an assistant message,
// each with one content part.
func (rr *responsesReply) start(part replyPart) error {
	rr.open = part
	rr.text.Reset()
	if part == partReasoning {
		rr.itemID = newID("rs_")
	} else {
		rr.itemID = newID("msg_")
	}
	if rr.ev == nil {
		return nil
	}
	item := rr.item("in_progress")
	item["content"] = []any{} // the part comes next
	contentPart := outputText("")
	if part == partReasoning {
		contentPart = map[string]any{"type": "reasoning_text", "text": ""}
	}
	if err := rr.send("response.output_item.added", map[string]any{"output_index": len(rr.output), "item": item}); err != nil {
		return err
	}
	return rr.send("response.content_part.added", map[string]any{"item_id": rr.itemID, "output_index": len(rr.output),
		"content_index": 0, "part": contentPart})
}

// close ends the open item, if any, with status.
func (rr *responsesReply) close(status string) error {
	if rr.open == partNone {
		return nil
	}
	item := rr.item(status)
	if rr.open == partReasoning {
		rr.reasoning += rr.text.String()
	} else {
		rr.answer += rr.text.String()
	}
	if rr.ev != nil {
		i, text := len(rr.output), rr.text.String()
		done, part := "response.output_text.done", outputText(text)
		fields := map[string]any{"item_id": rr.itemID, "output_index": i, "content_index": 0, "text": text}
		if rr.open == partReasoning {
			done, part = "response.reasoning_text.done", map[string]any{"type": "reasoning_text", "text": text}
		} else {
			fields["logprobs"] = []any{}
		}
		if err := rr.send(done, fields); err != nil {
			return err
		}
		if err := rr.send("response.content_part.done", map[string]any{"item_id": rr.itemID, "output_index": i,
			"content_index": 0, "part": part}); err != nil {
			return err
		}
		if err := rr.send("response.output_item.done", map[string]any{"output_index": i, "item": item}); err != nil {
			return err
		}
	}
	rr.output = append(rr.output, item)
	rr.open = partNone
	rr.text.Reset()
	return nil
}

// functionCall adds a function_call item for call, its arguments streamed
// whole.
func (rr *responsesReply) functionCall(call chat.ToolCall) error {
	if err := rr.close("completed"); err != nil {
		return err
	}
	id, args := newID("fc_"), argumentsJSON(call.Arguments)
	callID := call.ID
	if callID == "" {
		callID = newID("call_")
	}
	rr.calls = append(rr.calls, chat.ToolCall{ID: callID, Type: "function", Name: call.Name, Arguments: json.RawMessage(args)})
	item := map[string]any{"id": id, "type": "function_call", "call_id": callID, "name": call.Name, "arguments": "", "status": "in_progress"}
	if rr.ev != nil {
		i := len(rr.output)
		if err := rr.send("response.output_item.added", map[string]any{"output_index": i, "item": item}); err != nil {
			return err
		}
		if err := rr.send("response.function_call_arguments.delta", map[string]any{"item_id": id, "output_index": i, "delta": args}); err != nil {
			return err
		}
		if err := rr.send("response.function_call_arguments.done", map[string]any{"item_id": id, "output_index": i,
			"name": call.Name, "arguments": args}); err != nil {
			return err
		}
	}
	item = map[string]any{"id": id, "type": "function_call", "call_id": callID, "name": call.Name, "arguments": args, "status": "completed"}
	if rr.ev != nil {
		if err := rr.send("response.output_item.done", map[string]any{"output_index": len(rr.output), "item": item}); err != nil {
			return err
		}
	}
	rr.output = append(rr.output, item)
	return nil
}

// turn returns the response's output as the assistant turn it is in a
// conversation that continues it.
func (rr *responsesReply) turn() chat.Message {
	m := chat.Message{Role: "assistant", Content: rr.answer, ReasoningContent: rr.reasoning, ToolCalls: rr.calls}
	m.NullContent = m.Content == "" && len(m.ToolCalls) > 0
	return m
}

// finish ends the output: the open item with status (incomplete when the
// generation was cut short), then the function calls.
func (rr *responsesReply) finish(calls []chat.ToolCall, status string) error {
	if err := rr.close(status); err != nil {
		return err
	}
	for _, c := range calls {
		if err := rr.functionCall(c); err != nil {
			return err
		}
	}
	return nil
}
