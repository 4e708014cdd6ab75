package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"saji/engine/runner"
)

// llama-server's completions: /completion (and /completions) and /infill
// take the OpenAI sampling fields and llama-server's own, and answer with
// its object (content, stop_type, timings, generation_settings, ...),
// whole or as a stream of them.

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
		g.Grammar = req.Grammar // the runner's Start parses it
	case len(req.JSONSchema) > 0 && string(req.JSONSchema) != "null":
		g.JSON, g.JSONSchema = true, req.JSONSchema
	}
	return g, nil
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
		// llama-server's 501, which editors written for it take as "this
		// server cannot fill in", although here it is the model that cannot.
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
		gi.RawReasoning = true // a completion is the text as the model writes it, whatever the prompt
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
	t := map[string]any{"cache_n": res.CachedTokens,
		"prompt_n": promptN, "prompt_ms": ms(res.PromptTime), "prompt_per_token_ms": ppt, "prompt_per_second": pps,
		"predicted_n": res.CompletionTokens, "predicted_ms": ms(res.GenTime), "predicted_per_token_ms": gpt, "predicted_per_second": gps}
	if res.DraftTokens > 0 { // speculative decoding, as llama-server reports it
		t["draft_n"], t["draft_n_accepted"] = res.DraftTokens, res.AcceptedTokens
	}
	return t
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
		"n_probs": nProbs, "min_keep": p.MinKeep, "grammar": g.Grammar, "json_schema": jsonSchemaSetting(g)}
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
