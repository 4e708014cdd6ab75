package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"saji/engine/chat"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
)

// Errors of Generate that the API reports as client errors.
var (
	// ErrBadRequest is wrapped by errors in the request itself.
	ErrBadRequest = errors.New("server: bad request")
	// ErrContextLength is wrapped when the prompt (and max tokens) do not
	// fit the model's context.
	ErrContextLength = errors.New("server: context length exceeded")
)

// GenRequest is one generation, in terms common to both dialects.
type GenRequest struct {
	// Messages is a chat, rendered through the model's template with the
	// start of an assistant turn. When nil, Prompt is the raw text.
	Messages []chat.Message
	// Tools are tool definitions passed to the template.
	Tools []any
	// TemplateExtra are extra template variables (enable_thinking, ...).
	TemplateExtra map[string]any
	// Prompt is a raw text prompt (completion); the tokenizer adds BOS as
	// the model asks, unless NoSpecial is set.
	Prompt    string
	NoSpecial bool
	// Suffix, when set, makes Prompt the text before a gap and Suffix the
	// text after it: the model fills in the middle (FIM), which needs its
	// FIM tokens.
	Suffix string
	// MaxTokens limits the generated tokens (<= 0: until the end of
	// generation or of the context).
	MaxTokens int
	// Stop are stop strings; the text stops before the first one.
	Stop []string
	// Sampling configures the sampler.
	Sampling sample.Params
	// LogProbs asks for the log-probability of every generated token, and
	// TopLogProbs for that many alternatives each.
	LogProbs    bool
	TopLogProbs int
	// IgnoreEOS keeps generating past end-of-generation tokens.
	IgnoreEOS bool
	// JSON constrains the output to one JSON value: an object matching
	// JSONSchema when it is set, any JSON object when not.
	JSON       bool
	JSONSchema json.RawMessage
	// Progress, when set, is told how much of the prompt has been read
	// (see scheduler.Request.Progress); it must not block.
	Progress func(done, total int)
}

// Piece is generated text as it is streamed: the text safe to emit now
// and the tokens that produced it (their log-probabilities when asked).
type Piece struct {
	Text   string
	Tokens []Token
}

// Token is one generated token.
type Token struct {
	ID      int32
	Text    string
	LogProb float32
	Top     []TopToken
}

// TopToken is an alternative to a generated token.
type TopToken struct {
	ID      int32
	Text    string
	LogProb float32
}

// GenResult is how a generation ended.
type GenResult struct {
	// Finish is "stop" (end of generation or a stop string) or "length"
	// (max tokens or the end of the context).
	Finish string
	// StopString is the stop string that ended it, if one did.
	StopString string
	// PromptTokens is the prompt's length; CachedTokens of them came from
	// the prefix cache. CompletionTokens counts the generated tokens.
	PromptTokens, CachedTokens, CompletionTokens int
	// FirstToken and Total time the request from its submission.
	FirstToken, Total time.Duration
	// PromptTime and GenTime split Total into prompt processing (with
	// queueing) and generation.
	PromptTime, GenTime time.Duration
}

// Prompt returns the tokens of req's prompt: the chat rendered through the
// model's template, or the raw prompt.
func (m *Model) Prompt(ctx context.Context, req GenRequest) ([]int32, error) {
	if req.Messages == nil && req.Suffix != "" {
		return m.fim(req.Prompt, req.Suffix)
	}
	if req.Messages == nil {
		return m.tok.Encode(req.Prompt, !req.NoSpecial, true), nil
	}
	tk := m.tok
	text := func(id int32) string {
		if id < 0 {
			return ""
		}
		return tk.Text(id)
	}
	bos, eos := text(tk.BOS()), text(tk.EOS())
	s, err := m.tmpl.RenderMessages(ctx, chat.Request{Messages: req.Messages, Tools: req.Tools,
		AddGenerationPrompt: true, BOSToken: bos, EOSToken: eos, Extra: req.TemplateExtra})
	if err != nil {
		return nil, fmt.Errorf("%w: the chat template: %w", ErrBadRequest, err)
	}
	// A BOS (or EOS) that the template writes and the tokenizer adds
	// anyway is not doubled, as in llama.cpp.
	if tk.AddBOS() && bos != "" {
		s = strings.TrimPrefix(s, bos)
	}
	if tk.AddEOS() && eos != "" {
		s = strings.TrimSuffix(s, eos)
	}
	return tk.Encode(s, true, true), nil
}

// Generate runs req and calls emit with the text as it is generated (text
// held back while it may be the start of a stop string comes later, and
// never the stop string itself). An error from emit (a client gone)
// cancels the generation and is returned. Cancelling ctx cancels it too,
// freeing its cache blocks at once.
func (m *Model) Generate(ctx context.Context, req GenRequest, emit func(Piece) error) (GenResult, error) {
	var res GenResult
	prompt, err := m.Prompt(ctx, req)
	if err != nil {
		return res, err
	}
	return m.GenerateTokens(ctx, prompt, req, emit)
}

// GenerateTokens is Generate for a prompt already tokenized.
func (m *Model) GenerateTokens(ctx context.Context, prompt []int32, req GenRequest, emit func(Piece) error) (res GenResult, err error) {
	defer m.touch() // a keep-alive counts from the end of the last request
	if m.observe != nil {
		defer func() { m.observe(res, err) }()
	}
	defer func() { m.checkGPU(err) }()
	return m.generate(ctx, prompt, req, emit)
}

// generate is GenerateTokens.
func (m *Model) generate(ctx context.Context, prompt []int32, req GenRequest, emit func(Piece) error) (GenResult, error) {
	res := GenResult{PromptTokens: len(prompt)}
	if len(prompt) == 0 {
		return res, fmt.Errorf("%w: the prompt is empty", ErrBadRequest)
	}
	if err := req.Sampling.Validate(); err != nil {
		return res, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	cons, err := m.constraint(req)
	if err != nil {
		return res, err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	events, err := m.sched.Submit(ctx, scheduler.Request{Prompt: prompt, MaxTokens: req.MaxTokens, Sampling: req.Sampling,
		EOG: m.tok.EOGs(), IgnoreEOS: req.IgnoreEOS, LogProbs: req.LogProbs, TopLogProbs: req.TopLogProbs, Constraint: cons, Progress: req.Progress})
	if err != nil {
		if errors.Is(err, scheduler.ErrContextOverflow) {
			return res, fmt.Errorf("%w: %w", ErrContextLength, err)
		}
		return res, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	dec := m.tok.NewDecoder(tokenizer.DecoderOptions{Continue: true})
	stopper, err := sample.NewStopper(dec, nil, req.Stop)
	if err != nil {
		cancel()
		drain(events)
		return res, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	var emitErr error
	send := func(p Piece) {
		if emitErr == nil && (p.Text != "" || len(p.Tokens) > 0) {
			if err := emit(p); err != nil {
				// The client is gone (a write failed before the request's
				// context says so): a cancellation, not a server error.
				emitErr = fmt.Errorf("server: the client went away: %w (%w)", context.Canceled, err)
				cancel()
			}
		}
	}
	var held []Token // tokens whose text the stopper still holds
	for ev := range events {
		if ev.Done {
			res.CachedTokens = ev.Usage.CachedTokens
			res.FirstToken, res.Total = ev.Usage.FirstToken, ev.Usage.Total
			res.PromptTime = ev.Usage.FirstToken
			res.GenTime = max(0, ev.Usage.Total-ev.Usage.FirstToken)
			switch {
			case emitErr != nil:
				return res, emitErr
			case stopper.Reason() == sample.StopString:
				res.Finish, res.StopString = "stop", stopper.StopString()
				return res, nil
			case ev.Finish == scheduler.FinishStop:
				res.Finish = "stop"
			case ev.Finish == scheduler.FinishLength:
				res.Finish = "length"
			case ev.Finish == scheduler.FinishCancelled:
				if err := ctx.Err(); err != nil {
					return res, err
				}
				return res, context.Canceled
			default:
				if ev.Err != nil {
					return res, ev.Err
				}
				return res, fmt.Errorf("server: generation ended: %v", ev.Finish)
			}
			send(Piece{Text: stopper.Flush(), Tokens: held})
			return res, emitErr
		}
		if stopper.Reason() != sample.NotStopped || emitErr != nil {
			continue // cancelled; the scheduler ends the stream
		}
		res.CompletionTokens++
		tok := Token{ID: ev.Token, Text: m.tok.Text(ev.Token), LogProb: ev.LogProb}
		for _, t := range ev.Top {
			tok.Top = append(tok.Top, TopToken{ID: t.ID, Text: m.tok.Text(t.ID), LogProb: t.LogProb})
		}
		text, reason, err := stopper.Add(ev.Token)
		if err != nil {
			cancel()
			drain(events)
			return res, err
		}
		held = append(held, tok)
		if text != "" || reason != sample.NotStopped {
			send(Piece{Text: text, Tokens: held})
			held = nil
		}
		if reason == sample.StopString {
			cancel() // the scheduler frees the sequence at its next step
		}
	}
	return res, errors.New("server: the generation stream ended without a result")
}

// drain reads a stream to its end.
func drain(events <-chan scheduler.Event) {
	for range events {
	}
}

// CanInsert reports whether the model has the tokens of fill-in-the-middle.
func (m *Model) CanInsert() bool {
	tk := m.tok
	return tk.ID(tokenizer.SpecialFIMPre) >= 0 && tk.ID(tokenizer.SpecialFIMSuf) >= 0 && tk.ID(tokenizer.SpecialFIMMid) >= 0
}

// fim builds a fill-in-the-middle prompt in llama.cpp's order: BOS (when
// the model adds one), FIM prefix token, the prefix, FIM suffix token, the
// suffix, FIM middle token; the model writes the middle.
func (m *Model) fim(prefix, suffix string) ([]int32, error) {
	if !m.CanInsert() {
		return nil, fmt.Errorf("%w: suffix: this model has no fill-in-the-middle tokens", ErrBadRequest)
	}
	tk := m.tok
	var toks []int32
	if tk.AddBOS() && tk.BOS() >= 0 {
		toks = append(toks, tk.BOS())
	}
	toks = append(toks, tk.ID(tokenizer.SpecialFIMPre))
	toks = append(toks, tk.Encode(prefix, false, false)...)
	toks = append(toks, tk.ID(tokenizer.SpecialFIMSuf))
	toks = append(toks, tk.Encode(suffix, false, false)...)
	toks = append(toks, tk.ID(tokenizer.SpecialFIMMid))
	return toks, nil
}
