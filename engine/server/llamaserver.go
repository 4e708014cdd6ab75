package server

import (
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
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

// infillBatch is the batch size llama-server sizes an infill prompt for
// (its default --batch-size): the prefix and suffix share it 3:1.
const infillBatch = 2048

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

// lsLogitBias is llama-server's logit_bias: [[token, bias], ...] or
// {"token": bias}, where a token is an id or a text (every token of it)
// and a bias of false bans the token.
type lsLogitBias json.RawMessage

func (b *lsLogitBias) UnmarshalJSON(data []byte) error {
	*b = append((*b)[:0], data...)
	return nil
}

// resolve returns the biases by token id, texts tokenized with tk.
func (b lsLogitBias) resolve(tk *tokenizer.Tokenizer) (map[int32]float32, error) {
	if !present(json.RawMessage(b)) {
		return nil, nil
	}
	bad := badRequest("logit_bias must be [[token, bias], ...] or {\"token\": bias}, a token an id or a text and a bias a number or false")
	out := map[int32]float32{}
	add := func(tok, bias json.RawMessage) error {
		v := float32(0)
		if string(bias) == "false" {
			v = float32(math.Inf(-1))
		} else if err := json.Unmarshal(bias, &v); err != nil {
			return bad
		}
		var ids []int32
		var id int32
		var text string
		switch {
		case json.Unmarshal(tok, &id) == nil:
			ids = []int32{id}
		case json.Unmarshal(tok, &text) == nil:
			if n, err := strconv.ParseInt(text, 10, 32); err == nil {
				ids = []int32{int32(n)} // an object's keys are ids as text
			} else {
				ids = tk.Encode(text, false, false)
			}
		default:
			return bad
		}
		for _, id := range ids {
			if id < 0 || int(id) >= tk.NumTokens() {
				return badRequest("logit_bias: token %d is outside the vocabulary", id)
			}
			out[id] = v
		}
		return nil
	}
	var pairs [][]json.RawMessage
	if json.Unmarshal(b, &pairs) == nil {
		for _, p := range pairs {
			if len(p) != 2 {
				return nil, bad
			}
			if err := add(p[0], p[1]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil, bad
	}
	for k, v := range m {
		if err := add(json.RawMessage(strconv.Quote(k)), v); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// lsCompletionRequest is a /completion (or /infill) request: the OpenAI
// sampling fields, which llama-server shares, and its own.
type lsCompletionRequest struct {
	oaiCommon
	Prompt json.RawMessage `json:"prompt"`
	// LogitBias shadows oaiCommon's, of another shape.
	LogitBias lsLogitBias `json:"logit_bias"`
	NPredict  *int        `json:"n_predict"`
	NProbs    int         `json:"n_probs"`
	TypicalP  *float32    `json:"typical_p"`
	// RepeatLastN is the penalties' window (-1: the whole context).
	RepeatLastN  *int            `json:"repeat_last_n"`
	MinKeep      *int            `json:"min_keep"`
	ReturnTokens bool            `json:"return_tokens"`
	Grammar      string          `json:"grammar"`
	JSONSchema   json.RawMessage `json:"json_schema"`
	// CachePrompt is accepted: Saji's prefix cache serves every request.
	CachePrompt *bool `json:"cache_prompt"`

	// The infill fields.
	InputPrefix *string `json:"input_prefix"`
	InputSuffix *string `json:"input_suffix"`
	InputExtra  []struct {
		Filename *string `json:"filename"`
		Text     *string `json:"text"`
	} `json:"input_extra"`
}

// genRequest returns the generation req asks for on m.
func (req *lsCompletionRequest) genRequest(m *runner.Model) (runner.Request, error) {
	// llama-server takes any temperature (at most 0 is greedy): the
	// OpenAI range is not checked.
	temp := req.Temperature
	req.Temperature = nil
	g, err := req.oaiCommon.genRequest()
	req.Temperature = temp
	if err != nil {
		return g, err
	}
	if temp != nil {
		g.Sampling.Temperature = *temp
	}
	// n_predict (or max_tokens) is a most that the end of the context cuts
	// short; llama-server generates one token for 0, and -1 is unbounded.
	g.CutAtContext = true
	if req.NPredict != nil {
		g.MaxTokens = *req.NPredict
		if *req.NPredict == 0 {
			g.MaxTokens = 1
		}
	}
	if g.MaxTokens <= 0 {
		g.MaxTokens = -1
	}
	if req.TypicalP != nil {
		g.Sampling.TypicalP = *req.TypicalP
	}
	if req.RepeatLastN != nil {
		if *req.RepeatLastN < -1 {
			return g, badRequest("repeat_last_n must be -1 (the whole context) or more, not %d", *req.RepeatLastN)
		}
		g.Sampling.LastN = *req.RepeatLastN
	}
	if req.MinKeep != nil {
		g.Sampling.MinKeep = *req.MinKeep
	}
	if g.Sampling.LogitBias, err = req.LogitBias.resolve(m.Tokenizer()); err != nil {
		return g, err
	}
	if req.NProbs < 0 || req.NProbs > 20 {
		return g, badRequest("n_probs must be between 0 and 20, not %d", req.NProbs)
	}
	if req.NProbs > 0 {
		g.LogProbs, g.TopLogProbs = true, req.NProbs
	}
	// A grammar wins over a schema, as in llama-server.
	switch {
	case req.Grammar != "":
		if err := grammar(&g, req.Grammar); err != nil {
			return g, err
		}
	case len(req.JSONSchema) > 0 && string(req.JSONSchema) != "null":
		g.JSON, g.JSONSchema = true, req.JSONSchema
	}
	return g, nil
}

// grammar constrains g to the GBNF grammar src; this build's runner has
// no grammars, so it is refused.
func grammar(g *runner.Request, src string) error {
	return &apiError{status: http.StatusBadRequest, param: "grammar",
		msg: "grammar: GBNF grammars are not supported by this build of Saji; json_schema is"}
}

// lsInput is one prompt of a completion: its tokens, and its text when it
// is a plain string (which goes to the runner as text, as on /v1).
type lsInput struct {
	toks  []int32
	text  string
	plain bool
}

// lsPrompts reads a /completion prompt for m, as llama-server does: a
// string, a list of token ids and strings (one prompt), or a list of
// prompts without ids at its top, each a string, a list of ids and
// strings, or {"prompt_string": ...}.
func lsPrompts(m *runner.Model, raw json.RawMessage) ([]lsInput, error) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil || hasID(list) {
		in, err := lsPrompt(m, raw)
		return []lsInput{in}, err
	}
	if len(list) == 0 {
		return nil, badRequest(`"prompt" is empty`)
	}
	ins := make([]lsInput, len(list))
	for i, e := range list {
		var err error
		if ins[i], err = lsPrompt(m, e); err != nil {
			return nil, err
		}
	}
	return ins, nil
}

// hasID reports whether a list has a number in it.
func hasID(list []json.RawMessage) bool {
	for _, e := range list {
		var id float64
		if json.Unmarshal(e, &id) == nil {
			return true
		}
	}
	return false
}

// lsPrompt reads one prompt: a string, a list of token ids and strings
// (llama-server's tokenize_mixed: strings are tokenized with special tokens
// parsed, the first adding BOS when the model does), or an object with it
// as prompt_string.
func lsPrompt(m *runner.Model, raw json.RawMessage) (lsInput, error) {
	bad := badRequest(`"prompt" must be a string, a list of tokens, or a list of mixed strings and tokens`)
	tk := m.Tokenizer()
	var text string
	if json.Unmarshal(raw, &text) == nil {
		return lsInput{toks: tk.Encode(text, true, true), text: text, plain: true}, nil
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		var obj struct {
			Prompt json.RawMessage `json:"prompt_string"`
		}
		if json.Unmarshal(raw, &obj) != nil || obj.Prompt == nil {
			return lsInput{}, bad
		}
		return lsPrompt(m, obj.Prompt)
	}
	var in lsInput
	for i, e := range list {
		var id int64
		if json.Unmarshal(e, &id) == nil {
			if id < 0 || id >= int64(tk.NumTokens()) {
				return lsInput{}, badRequest("prompt: token %d is outside the vocabulary (%d tokens)", id, tk.NumTokens())
			}
			in.toks = append(in.toks, int32(id))
			continue
		}
		if json.Unmarshal(e, &text) != nil {
			return lsInput{}, bad
		}
		in.toks = append(in.toks, tk.Encode(text, i == 0, true)...)
	}
	return in, nil
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

// lsTooLong is llama-server's error for a prompt that does not fit the
// context, or nil.
func lsTooLong(w http.ResponseWriter, m *runner.Model, n int) bool {
	if n < m.Info.Context {
		return false
	}
	body := lsErrorBody(&apiError{status: http.StatusBadRequest, code: "context_length_exceeded",
		msg: fmt.Sprintf("the request (%d tokens) exceeds the available context size (%d tokens): raise the model's context (saji serve --ctx)", n, m.Info.Context)})
	body["n_prompt_tokens"], body["n_ctx"] = n, m.Info.Context
	writeJSON(w, http.StatusBadRequest, map[string]any{"error": body})
	return true
}

func (s *Server) handleLSCompletion(w http.ResponseWriter, r *http.Request) {
	var req lsCompletionRequest
	m, ok := s.lsModel(w, r, &req, &req.Model)
	if !ok {
		return
	}
	if len(req.Prompt) == 0 || string(req.Prompt) == "null" {
		lsError(w, badRequest(`"prompt" is required`))
		return
	}
	ins, err := lsPrompts(m, req.Prompt)
	if err != nil {
		lsError(w, err)
		return
	}
	s.lsGenerate(w, r, m, &req, ins)
}

func (s *Server) handleLSInfill(w http.ResponseWriter, r *http.Request) {
	var req lsCompletionRequest
	m, ok := s.lsModel(w, r, &req, &req.Model)
	if !ok {
		return
	}
	if !m.CanInsert() {
		lsError(w, &apiError{status: http.StatusNotImplemented,
			msg: fmt.Sprintf("infill is not supported by model %q: it has no fill-in-the-middle tokens", m.Name)})
		return
	}
	var prompt string
	if present(req.Prompt) && json.Unmarshal(req.Prompt, &prompt) != nil {
		lsError(w, badRequest(`"prompt" must be a string`))
		return
	}
	switch {
	case req.InputPrefix == nil:
		lsError(w, badRequest(`"input_prefix" is required`))
		return
	case req.InputSuffix == nil:
		lsError(w, badRequest(`"input_suffix" is required`))
		return
	}
	for _, c := range req.InputExtra {
		if c.Text == nil {
			lsError(w, badRequest(`input_extra: every chunk must have a "text" string`))
			return
		}
	}
	s.lsGenerate(w, r, m, &req, []lsInput{{toks: infillPrompt(m, &req, prompt)}})
}

// infillPrompt builds llama-server's infill prompt: the extra chunks (as
// files of a repository when the model has the tokens, else after a
// snippet marker), then BOS, FIM prefix token, the prefix and the prompt,
// FIM suffix token, the suffix, FIM middle token. The prefix keeps its
// last and the suffix its first tokens to fit a batch 3:1, and the extra
// chunks keep their last tokens to fill the rest of the context.
func infillPrompt(m *runner.Model, req *lsCompletionRequest, prompt string) []int32 {
	tk := m.Tokenizer()
	enc := func(s string) []int32 { return tk.Encode(s, false, false) }
	rep, sep := tk.ID(tokenizer.SpecialFIMRep), tk.ID(tokenizer.SpecialFIMSep)
	var extra []int32
	if rep >= 0 {
		extra = append(append(extra, rep), enc("myproject\n")...)
	}
	for _, c := range req.InputExtra {
		if sep >= 0 {
			name := "tmp"
			if c.Filename != nil {
				name = *c.Filename
			}
			extra = append(append(extra, sep), enc(name+"\n")...)
		} else {
			extra = append(extra, enc("\n\n--- snippet ---\n\n")...)
		}
		extra = append(extra, enc(*c.Text)...)
	}
	if sep >= 0 {
		extra = append(append(extra, sep), enc("filename\n")...)
	}
	pre, suf, mid := enc(*req.InputPrefix), enc(*req.InputSuffix), tk.Encode(prompt, false, true)
	pre = pre[len(pre)-min(len(pre), 3*(infillBatch/4)):]
	suf = suf[:min(len(suf), max(0, infillBatch/4-(2+len(mid))))]
	nExtra := min(max(0, m.Info.Context-infillBatch+2), len(extra))
	var toks []int32
	toks = append(toks, extra[len(extra)-nExtra:]...)
	if tk.AddBOS() && tk.BOS() >= 0 {
		toks = append(toks, tk.BOS())
	}
	toks = append(append(append(toks, tk.ID(tokenizer.SpecialFIMPre)), pre...), mid...)
	toks = append(append(toks, tk.ID(tokenizer.SpecialFIMSuf)), suf...)
	return append(toks, tk.ID(tokenizer.SpecialFIMMid))
}

// lsGenerate runs a completion of each of ins, side by side, and answers
// as llama-server: one object (a list of them for several prompts), or a
// stream of them, each with its prompt's index.
func (s *Server) lsGenerate(w http.ResponseWriter, r *http.Request, m *runner.Model, req *lsCompletionRequest, ins []lsInput) {
	g, err := req.genRequest(m)
	if err != nil {
		lsError(w, err)
		return
	}
	streams := make([]*runner.Stream, len(ins))
	defer func() { // when the handler ends before reading them
		for _, st := range streams {
			if st != nil {
				st.Close()
			}
		}
	}()
	for i, in := range ins {
		if len(in.toks) == 0 {
			lsError(w, badRequest(`"prompt" is empty`))
			return
		}
		if lsTooLong(w, m, len(in.toks)) {
			return
		}
		gi := g
		if in.plain {
			gi.Prompt = in.text
		} else {
			gi.Tokens = in.toks
		}
		if streams[i], err = m.Start(r.Context(), gi); err != nil {
			lsError(w, err)
			return
		}
	}
	tk := m.Tokenizer()
	final := func(i int, content string, ids []int32, probs []lsProb, res runner.Result) map[string]any {
		stopType := "eos"
		switch {
		case res.StopString != "":
			stopType = "word"
		case res.Finish == "length":
			stopType = "limit"
		}
		v := map[string]any{"index": i, "id_slot": -1, "content": content, "tokens": ids, "stop": true, "model": m.Name,
			"tokens_predicted": res.CompletionTokens, "tokens_evaluated": res.PromptTokens,
			"generation_settings": generationSettings(g, req.Stream), "prompt": tokensText(tk, ins[i].toks),
			"has_new_line": strings.Contains(content, "\n"), "truncated": false, "stop_type": stopType,
			"stopping_word": res.StopString, "tokens_cached": max(0, res.PromptTokens+res.CompletionTokens-1),
			"timings": lsTimings(res)}
		if probs != nil {
			v["completion_probabilities"] = probs
		}
		return v
	}
	var wg sync.WaitGroup
	errs := make([]error, len(ins))
	if !req.Stream {
		answers := make([]map[string]any, len(ins))
		for i, st := range streams {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var content strings.Builder
				ids := []int32{}
				var probs []lsProb
				if g.LogProbs {
					probs = []lsProb{}
				}
				res, err := st.Run(func(p runner.Piece) error {
					content.WriteString(p.Text)
					for _, t := range p.Tokens {
						if req.ReturnTokens {
							ids = append(ids, t.ID)
						}
						if g.LogProbs {
							probs = append(probs, lsProbOf(t))
						}
					}
					return nil
				})
				answers[i], errs[i] = final(i, content.String(), ids, probs, res), err
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				lsError(w, err)
				return
			}
		}
		if len(answers) == 1 {
			writeJSON(w, http.StatusOK, answers[0])
			return
		}
		writeJSON(w, http.StatusOK, answers)
		return
	}
	ev := newSSE(w)
	var mu sync.Mutex // one event at a time
	send := func(v any) error {
		mu.Lock()
		defer mu.Unlock()
		return ev.send(v)
	}
	for i, st := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			predicted := 0
			res, err := st.Run(func(p runner.Piece) error {
				ids := make([]int32, len(p.Tokens))
				var probs []lsProb
				for j, t := range p.Tokens {
					ids[j] = t.ID
					if g.LogProbs {
						probs = append(probs, lsProbOf(t))
					}
				}
				predicted += len(p.Tokens)
				v := map[string]any{"index": i, "id_slot": -1, "content": p.Text, "tokens": ids, "stop": false,
					"tokens_predicted": predicted, "tokens_evaluated": st.PromptTokens()}
				if probs != nil {
					v["completion_probabilities"] = probs
				}
				return send(v)
			})
			switch {
			case err == nil:
				send(final(i, "", []int32{}, nil, res))
			case r.Context().Err() == nil:
				send(map[string]any{"error": lsErrorBody(classify(err))})
			}
		}()
	}
	wg.Wait()
}

// lsProb is a token of completion_probabilities.
type lsProb struct {
	ID      int32    `json:"id"`
	Token   string   `json:"token"`
	Bytes   []int    `json:"bytes"`
	LogProb float32  `json:"logprob"`
	Top     []lsProb `json:"top_logprobs,omitempty"`
}

// lsProbOf returns t with its alternatives as llama-server reports them.
func lsProbOf(t runner.Token) lsProb {
	p := lsProb{ID: t.ID, Token: t.Text, Bytes: tokenBytes(t.Text), LogProb: t.LogProb, Top: []lsProb{}}
	for _, a := range t.Top {
		p.Top = append(p.Top, lsProb{ID: a.ID, Token: a.Text, Bytes: tokenBytes(a.Text), LogProb: a.LogProb})
	}
	return p
}

// lsTimings is a completion's timings object.
func lsTimings(res runner.Result) map[string]any {
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	per := func(n int, d time.Duration) (float64, float64) {
		if n == 0 || d <= 0 {
			return 0, 0
		}
		return ms(d) / float64(n), float64(n) / d.Seconds()
	}
	promptN := res.PromptTokens - res.CachedTokens
	ppt, pps := per(promptN, res.PromptTime)
	gpt, gps := per(res.CompletionTokens, res.GenTime)
	return map[string]any{"cache_n": res.CachedTokens,
		"prompt_n": promptN, "prompt_ms": ms(res.PromptTime), "prompt_per_token_ms": ppt, "prompt_per_second": pps,
		"predicted_n": res.CompletionTokens, "predicted_ms": ms(res.GenTime), "predicted_per_token_ms": gpt, "predicted_per_second": gps}
}

// generationSettings describes g's sampling as llama-server's
// generation_settings (the settings Saji has).
func generationSettings(g runner.Request, stream bool) map[string]any {
	p := g.Sampling
	seed := uint64(p.Seed)
	if p.Seed < 0 {
		seed = 0xFFFFFFFF // LLAMA_DEFAULT_SEED: a random one
	}
	bias := []map[string]any{}
	for id, b := range p.LogitBias {
		e := map[string]any{"token": id, "bias": b}
		if b < -1e30 {
			e["bias"] = nil
		}
		bias = append(bias, e)
	}
	stop := g.Stop
	if stop == nil {
		stop = []string{}
	}
	n := g.MaxTokens
	if n <= 0 {
		n = -1
	}
	nProbs := 0
	if g.LogProbs {
		nProbs = g.TopLogProbs
	}
	return map[string]any{"seed": seed, "temperature": p.Temperature, "top_k": p.TopK, "top_p": p.TopP, "min_p": p.MinP,
		"typical_p": p.TypicalP, "repeat_last_n": p.LastN, "repeat_penalty": p.RepeatPenalty,
		"presence_penalty": p.PresencePenalty, "frequency_penalty": p.FrequencyPenalty, "stop": stop,
		"max_tokens": n, "n_predict": n, "ignore_eos": g.IgnoreEOS, "stream": stream, "logit_bias": bias,
		"n_probs": nProbs, "min_keep": p.MinKeep, "grammar": "", "json_schema": jsonSchemaSetting(g)}
}

// jsonSchemaSetting is the schema a request is constrained to, as
// generation_settings shows it ({} for any JSON, null for none).
func jsonSchemaSetting(g runner.Request) any {
	switch {
	case !g.JSON:
		return nil
	case len(g.JSONSchema) == 0:
		return map[string]any{}
	}
	return g.JSONSchema
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
	g := runner.Request{Messages: chatMessages(req.Messages), TemplateExtra: req.KWArgs}
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
		"modalities":                  map[string]any{"vision": false, "video": false, "audio": false},
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
