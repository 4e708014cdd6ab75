package server

import (
	"encoding/json"
	"net/http"
	"strings"
	"unicode/utf8"

	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/tokenizer"
)

// The llama-server dialect: llama.cpp's own endpoints (/completion,
// /tokenize, /detokenize, /apply-template, /props, /infill, /slots), which
// llama.cpp's web UI, llama.vscode and other llama-server clients call.
// Requests name a model with "model" (or ?model= on a GET), else they go
// to the first loaded model, as llama-server's single model.

// lsBuild is the build_info /props reports.
const lsBuild = "saji-" + Version

// llamaServerRoutes registers llama-server's endpoints (its /completions
// is /completion's alias).
func (s *Server) llamaServerRoutes() {
	for _, p := range []string{"/completion", "/completions"} {
		s.mux.HandleFunc("POST "+p, s.handleLSCompletion)
	}
	s.mux.HandleFunc("POST /infill", s.handleLSInfill)
	s.mux.HandleFunc("POST /tokenize", s.handleLSTokenize)
	s.mux.HandleFunc("POST /detokenize", s.handleLSDetokenize)
	s.mux.HandleFunc("POST /apply-template", s.handleLSApplyTemplate)
	s.mux.HandleFunc("GET /props", s.handleLSProps)
	s.mux.HandleFunc("POST /props", func(w http.ResponseWriter, r *http.Request) {
		lsError(w, &apiError{status: http.StatusNotImplemented, msg: "this server does not support changing global properties (llama-server's --props)"})
	})
	s.mux.HandleFunc("GET /slots", s.handleLSSlots)
}

// lsErrorBody is ae as llama-server's error object: {code, message, type}.
func lsErrorBody(ae *apiError) map[string]any {
	typ := "server_error"
	switch {
	case ae.code == "context_length_exceeded":
		typ = "exceed_context_size_error"
	case ae.status == http.StatusUnauthorized:
		typ = "authentication_error"
	case ae.status == http.StatusForbidden:
		typ = "permission_error"
	case ae.status == http.StatusNotFound:
		typ = "not_found_error"
	case ae.status == http.StatusNotImplemented:
		typ = "not_supported_error"
	case ae.status == http.StatusServiceUnavailable:
		typ = "unavailable_error"
	case ae.status == 499:
		typ = "cancelled"
	case ae.status >= 400 && ae.status < 500:
		typ = "invalid_request_error"
	}
	return map[string]any{"code": ae.status, "message": ae.msg, "type": typ}
}

// lsError writes err as a llama-server error.
func lsError(w http.ResponseWriter, err error) {
	ae := classify(err)
	writeJSON(w, ae.status, map[string]any{"error": lsErrorBody(ae)})
}

// lsModel decodes a request into req (when not nil) and resolves the model
// that name names. On failure it has written the error and reports false.
func (s *Server) lsModel(w http.ResponseWriter, r *http.Request, req any, name *string) (*runner.Model, bool) {
	if req != nil {
		if err := s.decodeJSON(w, r, req); err != nil {
			lsError(w, err)
			return nil, false
		}
	}
	m, err := s.run.Model(*name)
	if err != nil {
		lsError(w, err)
		return nil, false
	}
	return m, true
}

// tokensText returns the text of toks as llama-server shows a prompt: the
// pieces joined, special tokens as their text.
func tokensText(tk *tokenizer.Tokenizer, toks []int32) string {
	var sb strings.Builder
	for _, id := range toks {
		sb.WriteString(tk.TokenToPiece(id, true))
	}
	return sb.String()
}

// lsTokenizeRequest is a /tokenize request.
type lsTokenizeRequest struct {
	Model        string          `json:"model"`
	Content      json.RawMessage `json:"content"`
	AddSpecial   bool            `json:"add_special"`
	ParseSpecial *bool           `json:"parse_special"`
	WithPieces   bool            `json:"with_pieces"`
}

func (s *Server) handleLSTokenize(w http.ResponseWriter, r *http.Request) {
	var req lsTokenizeRequest
	m, ok := s.lsModel(w, r, &req, &req.Model)
	if !ok {
		return
	}
	out := []any{}
	if len(req.Content) > 0 && string(req.Content) != "null" {
		toks, err := tokenizeMixed(m.Tokenizer(), req.Content, req.AddSpecial, req.ParseSpecial == nil || *req.ParseSpecial)
		if err != nil {
			lsError(w, err)
			return
		}
		tk := m.Tokenizer()
		for _, id := range toks {
			if !req.WithPieces {
				out = append(out, id)
				continue
			}
			// A piece that is not whole UTF-8 is given as its bytes.
			var piece any = tk.TokenToPiece(id, true)
			if p := piece.(string); !utf8.ValidString(p) {
				piece = tokenBytes(p)
			}
			out = append(out, map[string]any{"id": id, "piece": piece})
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"tokens": out})
}

// tokenizeMixed tokenizes content, a string or a list of strings and token
// ids, as llama-server does: only the first element, when a string, adds
// the model's special tokens (addSpecial).
func tokenizeMixed(tk *tokenizer.Tokenizer, content json.RawMessage, addSpecial, parseSpecial bool) ([]int32, error) {
	var text string
	if json.Unmarshal(content, &text) == nil {
		return tk.Encode(text, addSpecial, parseSpecial), nil
	}
	var list []json.RawMessage
	if json.Unmarshal(content, &list) != nil {
		return nil, badRequest(`"content" must be a string or a list of strings and token ids`)
	}
	var toks []int32
	for i, e := range list {
		var id int32
		switch {
		case json.Unmarshal(e, &id) == nil:
			toks = append(toks, id)
		case json.Unmarshal(e, &text) == nil:
			toks = append(toks, tk.Encode(text, addSpecial && i == 0, parseSpecial)...)
		default:
			return nil, badRequest(`"content" must be a string or a list of strings and token ids`)
		}
	}
	return toks, nil
}

func (s *Server) handleLSDetokenize(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model  string  `json:"model"`
		Tokens []int32 `json:"tokens"`
	}
	m, ok := s.lsModel(w, r, &req, &req.Model)
	if !ok {
		return
	}
	tk := m.Tokenizer()
	for _, id := range req.Tokens {
		if id < 0 || int(id) >= tk.NumTokens() {
			lsError(w, badRequest("token %d is outside the vocabulary (%d tokens)", id, tk.NumTokens()))
			return
		}
	}
	writeJSON(w, http.StatusOK, map[string]any{"content": tokensText(tk, req.Tokens)})
}

func (s *Server) handleLSApplyTemplate(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model     string          `json:"model"`
		Messages  []oaiMessage    `json:"messages"`
		Tools     json.RawMessage `json:"tools"`
		KWArgs    map[string]any  `json:"chat_template_kwargs"`
		Reasoning string          `json:"reasoning_effort"`
	}
	m, ok := s.lsModel(w, r, &req, &req.Model)
	if !ok {
		return
	}
	if len(req.Messages) == 0 {
		lsError(w, badRequest(`"messages" is required`))
		return
	}
	msgs, err := chatMessages(req.Messages, s.images(r.Context()))
	if err != nil {
		lsError(w, err)
		return
	}
	g := runner.Request{Messages: msgs, TemplateExtra: req.KWArgs}
	if present(req.Tools) {
		var defs []any
		if err := json.Unmarshal(req.Tools, &defs); err != nil {
			lsError(w, badRequest("tools must be a list of tool definitions"))
			return
		}
		g.Tools = defs
	}
	if req.Reasoning != "" {
		if g.TemplateExtra == nil {
			g.TemplateExtra = map[string]any{}
		}
		g.TemplateExtra["reasoning_effort"] = req.Reasoning
	}
	prompt, err := m.Render(r.Context(), g)
	if err != nil {
		lsError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"prompt": prompt})
}

func (s *Server) handleLSProps(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("model")
	m, ok := s.lsModel(w, r, nil, &name)
	if !ok {
		return
	}
	tk := m.Tokenizer()
	text := func(id int32) string {
		if id < 0 {
			return ""
		}
		return tk.TokenToPiece(id, true)
	}
	defaults := runner.Request{Sampling: sample.Defaults(), MaxTokens: -1}
	caps := m.Caps()
	tmpl := m.Template().Source()
	writeJSON(w, http.StatusOK, map[string]any{
		"default_generation_settings": map[string]any{"params": generationSettings(defaults, false), "n_ctx": m.Info.Context},
		"total_slots":                 m.Scheduler().Config().MaxSeqs,
		"model_alias":                 m.Name,
		"model_path":                  m.Path,
		"model_ftype":                 m.Info.FileType,
		"modalities":                  map[string]any{"vision": m.Vision(), "video": false, "audio": false},
		"endpoint_slots":              true,
		"endpoint_props":              false,
		"endpoint_metrics":            true,
		"chat_template":               tmpl,
		"chat_template_caps": map[string]any{"supports_system_role": caps.SystemRole, "supports_tools": caps.Tools,
			"supports_tool_calls": caps.ToolCalls, "supports_parallel_tool_calls": caps.ParallelToolCalls,
			"supports_string_content": true, "supports_typed_content": caps.ContentParts},
		"bos_token":  text(tk.BOS()),
		"eos_token":  text(tk.EOS()),
		"build_info": lsBuild,
		// Saji serves no web UI, and its models do not sleep.
		"ui": false, "ui_settings": map[string]any{}, "is_sleeping": false, "cors_proxy_enabled": false,
	})
}

func (s *Server) handleLSSlots(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Query().Get("model")
	m, ok := s.lsModel(w, r, nil, &name)
	if !ok {
		return
	}
	// Saji's scheduler keeps no fixed slots: the running sequences show as
	// the first busy ones.
	cfg, st := m.Scheduler().Config(), m.Scheduler().Stats()
	slots := make([]map[string]any, cfg.MaxSeqs)
	for i := range slots {
		slots[i] = map[string]any{"id": i, "n_ctx": cfg.Context, "speculative": false, "is_processing": i < st.Running}
	}
	writeJSON(w, http.StatusOK, slots)
}
