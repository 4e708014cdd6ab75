package server

import (
	"encoding/json"
	"math"
	"strconv"

	"saji/engine/runner"
	"saji/engine/tokenizer"
)

// What a llama-server completion reads as llama-server does: its prompts
// (strings, token ids, both mixed, or a list of prompts), its logit_bias,
// and the fill-in-the-middle prompt of /infill.

// infillBatch is the batch size llama-server sizes an infill prompt for
// (its default --batch-size): the prefix and suffix share it 3:1.
const infillBatch = 2048

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
