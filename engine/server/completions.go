package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"saji/engine/runner"
)

// The OpenAI dialect's legacy /v1/completions: a raw prompt continued, or
// several, one choice each.

// maxPrompts is the most prompts one completion request may hold: each is
// a sequence of its own on the model's scheduler.
const maxPrompts = 64

// completionPrompt is one prompt of a completion request: text, or the
// token ids of one.
type completionPrompt struct {
	text   string
	tokens []int32 // not nil: the prompt is these tokens, as they are
}

// parsePrompts reads a completion request's "prompt" as OpenAI takes it
// (a string, a list of strings, a list of token ids or a list of lists of
// them: the inputs of embeddings), each prompt its own choice.
func parsePrompts(raw json.RawMessage) ([]completionPrompt, error) {
	bad := func(format string, args ...any) error {
		return &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "prompt", msg: fmt.Sprintf(format, args...)}
	}
	var in embedInput
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, bad("prompt must be a string, a list of strings, a list of token ids or a list of lists of token ids")
	}
	var out []completionPrompt
	for _, t := range in.texts {
		out = append(out, completionPrompt{text: t})
	}
	for i, toks := range in.tokens {
		if len(toks) == 0 {
			return nil, bad("prompt[%d] has no tokens", i)
		}
		out = append(out, completionPrompt{tokens: toks})
	}
	switch {
	case len(out) == 0:
		return nil, bad("prompt must not be an empty list")
	case len(out) > maxPrompts:
		return nil, bad("prompt has %d prompts; a request takes at most %d", len(out), maxPrompts)
	}
	return out, nil
}

// completionLogProbs is a legacy completion choice's logprobs.
type completionLogProbs struct {
	Tokens        []string             `json:"tokens"`
	TokenLogProbs []float32            `json:"token_logprobs"`
	TopLogProbs   []map[string]float32 `json:"top_logprobs"`
	TextOffset    []int                `json:"text_offset"`
}

// add appends toks, the first at offset in the choice's text, and returns
// the offset after them.
func (c *completionLogProbs) add(toks []runner.Token, offset int) int {
	for _, t := range toks {
		c.Tokens = append(c.Tokens, t.Text)
		c.TokenLogProbs = append(c.TokenLogProbs, t.LogProb)
		top := map[string]float32{}
		for _, a := range t.Top {
			top[a.Text] = a.LogProb
		}
		c.TopLogProbs = append(c.TopLogProbs, top)
		c.TextOffset = append(c.TextOffset, offset)
		offset += len(t.Text)
	}
	return offset
}

// completion is one prompt's generation: its stream, the text echoed
// before it, and how it ended.
type completion struct {
	st   *runner.Stream
	echo string
	res  runner.Result
	err  error
}

func (s *Server) handleCompletions(w http.ResponseWriter, r *http.Request) {
	var req oaiCompletionRequest
	m, g, ok := s.oaiBegin(w, r, &req, &req.oaiCommon)
	if !ok {
		return
	}
	prompts, err := parsePrompts(req.Prompt)
	if err != nil {
		oaiError(w, err)
		return
	}
	if req.LogProbs != nil {
		if *req.LogProbs < 0 || *req.LogProbs > 5 {
			oaiError(w, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "logprobs", msg: "logprobs must be between 0 and 5"})
			return
		}
		g.LogProbs, g.TopLogProbs = true, *req.LogProbs
	}
	// Every prompt is submitted, and so checked, before the answer starts;
	// one that fails cancels the others.
	ctx, cancel := context.WithCancel(r.Context())
	defer cancel()
	runs := make([]*completion, len(prompts))
	for i, p := range prompts {
		gi := g
		switch {
		case p.tokens != nil && req.Suffix != nil:
			oaiError(w, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "suffix", msg: "suffix needs a text prompt, not token ids"})
			return
		case p.tokens != nil:
			gi.Tokens = p.tokens
		default:
			gi.Prompt = p.text
			if req.Suffix != nil {
				gi.Suffix = *req.Suffix
			}
		}
		st, err := m.Start(ctx, gi)
		if err != nil {
			oaiError(w, err)
			return
		}
		defer st.Close() // when the handler ends before reading it
		runs[i] = &completion{st: st}
		if req.Echo {
			runs[i].echo = p.text
			if p.tokens != nil {
				runs[i].echo, _ = m.Tokenizer().Detokenize(p.tokens, true, false) // Start checked the ids
			}
		}
	}
	id, created := newID("cmpl-"), time.Now().Unix()
	total := func() *usage {
		var sum runner.Result
		for _, c := range runs {
			sum.PromptTokens += c.res.PromptTokens
			sum.CompletionTokens += c.res.CompletionTokens
			sum.CachedTokens += c.res.CachedTokens
			sum.DraftTokens += c.res.DraftTokens
			sum.AcceptedTokens += c.res.AcceptedTokens
		}
		return usageOf(sum)
	}
	// runAll runs every prompt at once, the scheduler batching them; the
	// first failure cancels the others and is returned.
	runAll := func(run func(i int, c *completion) (runner.Result, error)) error {
		var wg sync.WaitGroup
		for i, c := range runs {
			wg.Go(func() {
				if c.res, c.err = run(i, c); c.err != nil {
					cancel()
				}
			})
		}
		wg.Wait()
		for _, c := range runs {
			if c.err != nil {
				return c.err
			}
		}
		return nil
	}
	if !req.Stream {
		choices := make([]map[string]any, len(runs))
		err := runAll(func(i int, c *completion) (runner.Result, error) {
			var text strings.Builder
			text.WriteString(c.echo)
			lp := &completionLogProbs{}
			off := len(c.echo)
			res, err := c.st.Run(func(p runner.Piece) error {
				text.WriteString(p.Text)
				off = lp.add(p.Tokens, off)
				return nil
			})
			choices[i] = map[string]any{"index": i, "text": text.String(), "logprobs": nil, "finish_reason": res.Finish}
			if g.LogProbs {
				choices[i]["logprobs"] = lp
			}
			return res, err
		})
		if err != nil {
			oaiError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"id": id, "object": "text_completion", "created": created,
			"model": m.Name, "system_fingerprint": "saji", "choices": choices, "usage": total()})
		return
	}
	ev := newSSE(w)
	var mu sync.Mutex // one event at a time
	send := func(i int, text string, finish any, toks []runner.Token, off int) error {
		c := map[string]any{"index": i, "text": text, "logprobs": nil, "finish_reason": finish}
		if g.LogProbs && toks != nil {
			lp := &completionLogProbs{}
			lp.add(toks, off)
			c["logprobs"] = lp
		}
		mu.Lock()
		defer mu.Unlock()
		return ev.send(map[string]any{"id": id, "object": "text_completion", "created": created, "model": m.Name,
			"system_fingerprint": "saji", "choices": []any{c}})
	}
	err = runAll(func(i int, c *completion) (runner.Result, error) {
		off := len(c.echo)
		if c.echo != "" {
			if err := send(i, c.echo, nil, nil, 0); err != nil {
				c.st.Close()
				return runner.Result{}, fmt.Errorf("server: the client went away: %w (%w)", context.Canceled, err)
			}
		}
		res, err := c.st.Run(func(p runner.Piece) error {
			err := send(i, p.Text, nil, p.Tokens, off)
			off += len(p.Text)
			return err
		})
		if err == nil {
			send(i, "", res.Finish, nil, off)
		}
		return res, err
	})
	if err != nil {
		ev.fail(r, err)
		return
	}
	if req.StreamOptions != nil && req.StreamOptions.IncludeUsage {
		ev.send(map[string]any{"id": id, "object": "text_completion", "created": created, "model": m.Name,
			"system_fingerprint": "saji", "choices": []any{}, "usage": total()})
	}
	ev.done()
}
