package runner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"saji/engine/chat"
	"saji/engine/imagefile"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
)

// Errors of Start that callers report as client errors.
var (
	// ErrBadRequest is wrapped by errors in the request itself.
	ErrBadRequest = errors.New("runner: bad request")
	// ErrContextLength is wrapped when the prompt (and max tokens) do not
	// fit the model's context.
	ErrContextLength = errors.New("runner: context length exceeded")
)

// Request is one generation, in terms common to the app, the CLI and every
// API dialect.
type Request struct {
	// Model names the model for Runner.Start (see Runner.Model); Model.Start
	// ignores it.
	Model string
	// Tokens, when set, is the prompt already tokenized (the app counts a
	// conversation's tokens as it builds it, with Model.Prompt): Messages,
	// Prompt and Suffix are then not read.
	Tokens []int32
	// Messages is a chat, rendered through the model's template with the
	// start of an assistant turn. When nil, Prompt is the raw text. Its
	// "image" parts (chat.ContentPart.Image) need a model that can see.
	Messages []chat.Message
	// Images are the pictures of a raw Prompt (Ollama's generate
	// images), which need a model that can see.
	Images []imagefile.Image
	// Tools are tool definitions (OpenAI's shape, see chat.ParseTools).
	// A chat with tools is rendered with them and its reply parsed for
	// calls in the template's format (see Piece and Result.ToolCalls).
	Tools []any
	// ToolChoice is what the reply may do with Tools (tool_choice "none"
	// passes no tools).
	ToolChoice chat.ToolChoice
	// TemplateExtra are extra template variables (enable_thinking, ...).
	TemplateExtra map[string]any
	// Think, when set, turns the model's thinking on or off where its
	// template can: the template sees it as enable_thinking (Qwen3,
	// SmolLM3, Command-R7B ...). Nil leaves the template's default.
	Think *bool
	// ReasoningEffort, when set ("low", "medium", "high"), is the
	// template's reasoning_effort (gpt-oss's).
	ReasoningEffort string
	// RawReasoning leaves a chat reply's reasoning in the pieces' Text,
	// with its markers, as the model writes it (see Piece).
	RawReasoning bool
	// Prompt is a raw text prompt (completion); the tokenizer adds BOS as
	// the model asks, unless NoSpecial is set.
	Prompt    string
	NoSpecial bool
	// Suffix, when set, makes Prompt the text before a gap and Suffix the
	// text after it: the model fills in the middle (FIM), which needs its
	// FIM tokens.
	Suffix string
	// MaxTokens limits the generated tokens (<= 0: until the end of
	// generation or of the context). The prompt and MaxTokens must fit the
	// context together, unless CutAtContext.
	MaxTokens int
	// Context, when positive and below the model's context, is the
	// context this request may use (Ollama's num_ctx): the prompt must
	// fit it, and the generation ends at its end.
	Context int
	// CutAtContext makes MaxTokens a most that the end of the context
	// cuts short (Ollama's num_predict), not a length that must fit
	// (OpenAI's max_tokens, refused when it does not).
	CutAtContext bool
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
	// JSON constrains the output to one JSON value: a value of the JSON
	// Schema JSONSchema when it is set (sample.SchemaGrammar), any JSON
	// object when not.
	JSON       bool
	JSONSchema json.RawMessage
	// Grammar constrains the output to a sentence of a GBNF grammar
	// (llama.cpp's format, sample.ParseGrammar) from its rule root. A
	// request with both Grammar and JSON is refused.
	Grammar string
	// Progress, when set, is told how much of the prompt has been read
	// (see scheduler.Request.Progress); it must not block.
	Progress func(done, total int)
	// NoDraft turns the model's speculative decoding off for the request
	// (LoadOptions.Speculative); the output is the same either way.
	NoDraft bool
}

// Piece is generated text as it is streamed: the text safe to emit now
// and the tokens that produced it (their log-probabilities when asked).
//
// For a chat (Messages, or Tokens from Model.Prompt) on a model whose
// template has a reasoning format (chat.Template.Reasoning), Text is only
// the answer and Reasoning the model's thinking (<think>...</think>,
// harmony's analysis channel; chat.Splitter); the markers are neither.
// Otherwise, or with Request.RawReasoning, Reasoning is empty.
//
// For a chat with tools, Text also leaves out the tool calls, which come
// in Result.ToolCalls; text that may start a call is held back until it
// is clear (chat.ToolStream).
type Piece struct {
	Text      string
	Reasoning string
	Tokens    []Token
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

// Result is how a generation ended.
type Result struct {
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
	// ToolCalls are the tool calls of the reply of a chat with tools (or
	// of a harmony reply), which the pieces' Text leaves out (see Piece).
	ToolCalls []chat.ToolCall
	// DraftTokens counts the draft tokens of speculative decoding that
	// were verified, AcceptedTokens those the model agreed with.
	DraftTokens, AcceptedTokens int
}

// AcceptanceRate returns the share of draft tokens accepted (0 without
// speculative decoding).
func (r Result) AcceptanceRate() float64 {
	return scheduler.Usage{DraftTokens: r.DraftTokens, AcceptedTokens: r.AcceptedTokens}.AcceptanceRate()
}

// templateVars returns the extra template variables of req: its
// TemplateExtra, with its thinking controls as enable_thinking and
// reasoning_effort where TemplateExtra does not set them (a client's own
// chat_template_kwargs win, as in llama-server).
func templateVars(req Request) map[string]any {
	if req.Think == nil && req.ReasoningEffort == "" {
		return req.TemplateExtra
	}
	extra := make(map[string]any, len(req.TemplateExtra)+2)
	for k, v := range req.TemplateExtra {
		extra[k] = v
	}
	if _, ok := extra["enable_thinking"]; !ok && req.Think != nil {
		extra["enable_thinking"] = *req.Think
	}
	if _, ok := extra["reasoning_effort"]; !ok && req.ReasoningEffort != "" {
		extra["reasoning_effort"] = req.ReasoningEffort
	}
	return extra
}

// promptTail is how many of a prompt's last tokens the reasoning splitter
// reads to know whether the prompt opened the reasoning.
const promptTail = 8

// splitter returns the reasoning splitter of a chat reply to prompt, or
// nil for a raw prompt, a request for the raw reasoning, or a template
// without a reasoning format. A constrained reply (JSON) is constrained
// from its first token, so that it is the answer even where the prompt
// opened the reasoning.
func (m *Model) splitter(req Request, prompt []int32, constrained bool) chat.Splitter {
	f := m.tmpl.Reasoning()
	if req.RawReasoning || f.None() || (req.Messages == nil && req.Tokens == nil) {
		return nil
	}
	var tail strings.Builder
	if !constrained {
		for _, id := range prompt[max(0, len(prompt)-promptTail):] {
			tail.WriteString(m.tok.TokenToPiece(id, true))
		}
	}
	return f.NewSplitter(tail.String())
}

// Prompt returns the tokens of req's prompt: req.Tokens when set, else the
// chat rendered through the model's template, the fill-in-the-middle
// prompt, or the raw prompt.
func (m *Model) Prompt(ctx context.Context, req Request) ([]int32, error) {
	plan, err := m.toolPlan(req)
	if err != nil {
		return nil, err
	}
	tokens, _, err := m.prompt(ctx, req, plan)
	return tokens, err
}

// prompt is Prompt, with req's tools already read, and the pictures'
// places in the tokens (their positions hold negative ids, see
// pictureIDs).
func (m *Model) prompt(ctx context.Context, req Request, plan *toolPlan) ([]int32, []scheduler.Picture, error) {
	imgs := req.requestImages()
	if len(imgs) > 0 && m.proj == nil {
		return nil, nil, fmt.Errorf("%w: model %q cannot see images (%d in the request): it has no vision projector (mmproj)", ErrBadRequest, m.Name, len(imgs))
	}
	switch {
	case req.Tokens != nil && len(imgs) == 0: // pictures need their places: the prompt is made again
		return req.Tokens, nil, nil
	case req.Messages == nil && req.Suffix != "":
		if err := m.checkPromptBytes(len(req.Prompt) + len(req.Suffix)); err != nil {
			return nil, nil, err
		}
		tokens, err := m.fim(req.Prompt, req.Suffix)
		return tokens, nil, err
	case req.Messages == nil:
		if err := m.checkPromptBytes(len(req.Prompt)); err != nil {
			return nil, nil, err
		}
		if len(imgs) > 0 {
			return m.encodePictures(ctx, req.Prompt, !req.NoSpecial, false, imgs)
		}
		return m.tok.Encode(req.Prompt, !req.NoSpecial, true), nil, nil
	}
	tk := m.tok
	s, err := m.render(ctx, req, plan)
	if err == nil && len(imgs) > 0 && !m.proj.marked(s) {
		// A template that writes nothing for image parts: each becomes
		// its marker's text, as llama.cpp's server puts its media marker
		// in the message.
		req.Messages = m.proj.markerParts(req.Messages)
		s, err = m.render(ctx, req, plan)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := m.checkPromptBytes(len(s)); err != nil {
		return nil, nil, err
	}
	bos, eos := m.tokenText(tk.BOS()), m.tokenText(tk.EOS())
	// A BOS (or EOS) that the template writes and the tokenizer adds
	// anyway is not doubled, as in llama.cpp.
	if tk.AddBOS() && bos != "" {
		s = strings.TrimPrefix(s, bos)
	}
	if tk.AddEOS() && eos != "" {
		s = strings.TrimSuffix(s, eos)
	}
	if len(imgs) > 0 {
		return m.encodePictures(ctx, s, true, true, imgs)
	}
	return tk.Encode(s, true, true), nil, nil
}

// Render returns req's chat (req.Messages, req.Tools, req.TemplateExtra)
// rendered through the model's template with the start of an assistant
// turn: the text that Prompt tokenizes, as the template writes it.
func (m *Model) Render(ctx context.Context, req Request) (string, error) {
	plan, err := m.toolPlan(req)
	if err != nil {
		return "", err
	}
	return m.render(ctx, req, plan)
}

// render is Render, with req's tools already read: the generic format's
// tools are described in the system turn (see renderRequest).
func (m *Model) render(ctx context.Context, req Request, plan *toolPlan) (string, error) {
	r := m.renderRequest(req, plan)
	r.BOSToken, r.EOSToken = m.tokenText(m.tok.BOS()), m.tokenText(m.tok.EOS())
	s, err := m.tmpl.RenderMessages(ctx, r)
	if err != nil {
		return "", fmt.Errorf("%w: the chat template: %w", ErrBadRequest, err)
	}
	return s, nil
}

// tokenText returns the text of token id, "" for none (a negative id).
func (m *Model) tokenText(id int32) string {
	if id < 0 {
		return ""
	}
	return m.tok.Text(id)
}

// Start runs the one validation of req against the runner's models: it
// resolves (and if needed loads) req.Model, then starts the generation on
// it (see Model.Start). Every error in the request is returned here,
// before the caller has written anything.
func (r *Runner) Start(ctx context.Context, req Request) (*Stream, error) {
	m, err := r.Model(req.Model)
	if err != nil {
		return nil, err
	}
	return m.Start(ctx, req)
}

// Start tokenizes req's prompt once (unless req.Tokens has it), checks
// the request (sampling, stop strings, JSON schema, the context), and
// submits it to the model's scheduler. Every error in the request is
// returned here, wrapping ErrBadRequest or ErrContextLength, so that a
// handler can answer with a status before it writes a header. The
// generation runs from now on; the caller must call the Stream's Run (or
// Close) to read it and free its resources. Cancelling ctx cancels it,
// freeing its cache blocks at once.
func (m *Model) Start(ctx context.Context, req Request) (_ *Stream, err error) {
	defer func() {
		switch {
		case errors.Is(err, ErrBadRequest), errors.Is(err, ErrContextLength):
			m.touch() // refused: no generation ran, none is observed
		case err != nil:
			m.finish(Result{}, err)
		}
	}()
	plan, err := m.toolPlan(req)
	if err != nil {
		return nil, err
	}
	prompt, pics, err := m.prompt(ctx, req, plan)
	if err != nil {
		return nil, err
	}
	if len(prompt) == 0 {
		return nil, fmt.Errorf("%w: the prompt is empty", ErrBadRequest)
	}
	maxTokens, err := m.limit(len(prompt), req)
	if err != nil {
		return nil, err
	}
	if err := plan.constrain(&req); err != nil {
		return nil, err
	}
	cons, err := m.constraint(req)
	if err != nil {
		return nil, err
	}
	dec := m.tok.NewDecoder(tokenizer.DecoderOptions{Continue: true})
	stopper, err := sample.NewStopper(dec, nil, req.Stop)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	sr := scheduler.Request{Prompt: prompt, MaxTokens: maxTokens, Sampling: req.Sampling,
		EOG: m.tok.EOGs(), IgnoreEOS: req.IgnoreEOS, LogProbs: req.LogProbs, TopLogProbs: req.TopLogProbs, Constraint: cons, Progress: req.Progress,
		Pictures: pics}
	if len(pics) == 0 { // a draft cannot propose a picture's positions
		m.speculate(&sr, req)
	}
	events, err := m.sched.Submit(ctx, sr)
	if err != nil {
		if sr.Drafter != nil {
			sr.Drafter.Close()
		}
		cancel()
		switch {
		case errors.Is(err, scheduler.ErrContextOverflow):
			return nil, fmt.Errorf("%w: %w", ErrContextLength, err)
		case errors.Is(err, scheduler.ErrClosed):
			return nil, fmt.Errorf("runner: %q was unloaded: %w", m.Name, err)
		}
		return nil, fmt.Errorf("%w: %w", ErrBadRequest, err)
	}
	s := &Stream{m: m, ctx: ctx, cancel: cancel, events: events, stopper: stopper, split: m.splitter(req, prompt, cons != nil), prompt: len(prompt)}
	s.tools = plan.stream()
	return s, nil
}

// contextHint says where the context length is raised, for the errors of
// a prompt that does not fit it.
const contextHint = "raise the context length (in the app: Settings or the model's preset, Context length; saji serve --ctx N)"

// limit returns the most tokens a request of prompt tokens generates:
// req.MaxTokens, or the room that the context (req.Context when smaller)
// leaves, cut to the end of the context when req.CutAtContext. A prompt
// that does not leave room for one generated token is refused here, with
// by how much it is over and how to raise the context; the scheduler
// checks MaxTokens against the model's context when it is not cut.
func (m *Model) limit(prompt int, req Request) (int, error) {
	n, whole := m.sched.Config().Context, m.sched.Config().Context
	if req.Context > 0 && req.Context < n {
		n = req.Context
	}
	if prompt >= n {
		over := prompt - n + 1
		if n < whole {
			return 0, fmt.Errorf("%w: the prompt has %d tokens, %d over the request's context of %d (num_ctx) with room for a reply; raise num_ctx (at most the model's %d)",
				ErrContextLength, prompt, over, n, whole)
		}
		return 0, fmt.Errorf("%w: the prompt has %d tokens, %d over the context of %d with room for a reply; %s",
			ErrContextLength, prompt, over, n, contextHint)
	}
	if n == whole && !req.CutAtContext {
		return req.MaxTokens, nil // the scheduler says what does not fit
	}
	room := n - prompt
	switch {
	case req.MaxTokens <= 0:
		return room, nil
	case req.MaxTokens > room && !req.CutAtContext:
		return 0, fmt.Errorf("%w: %d prompt tokens plus max_tokens %d exceed the request's context of %d", ErrContextLength, prompt, req.MaxTokens, n)
	}
	return min(req.MaxTokens, room), nil
}

// Generate starts req on the model it names and runs it to its end (see
// Runner.Start and Stream.Run).
func (r *Runner) Generate(ctx context.Context, req Request, emit func(Piece) error) (Result, error) {
	s, err := r.Start(ctx, req)
	if err != nil {
		return Result{}, err
	}
	return s.Run(emit)
}

// Generate starts req on m and runs it to its end, calling emit with the
// text as it is generated (see Stream.Run).
func (m *Model) Generate(ctx context.Context, req Request, emit func(Piece) error) (Result, error) {
	s, err := m.Start(ctx, req)
	if err != nil {
		return Result{}, err
	}
	return s.Run(emit)
}

// finish records a generation's end: the model's keep-alive counts from
// the end of its last request, the runner's observers are told, and a
// failure caused by the model's GPU failing starts its recovery.
func (m *Model) finish(res Result, err error) {
	m.touch()
	if m.runner != nil {
		m.runner.observed(m, res, err)
	}
	m.checkGPU(err)
}

// Stream is a generation that Start has submitted: Run reads it.
type Stream struct {
	m       *Model
	ctx     context.Context
	cancel  context.CancelFunc
	events  <-chan scheduler.Event
	stopper *sample.Stopper
	split   chat.Splitter    // splits the reply's reasoning from its answer, or nil
	tools   *chat.ToolStream // takes the tool calls out of the answer, or nil
	prompt  int
	done    bool
}

// Model returns the model the generation runs on.
func (s *Stream) Model() *Model { return s.m }

// PromptTokens returns the length of the prompt in tokens.
func (s *Stream) PromptTokens() int { return s.prompt }

// Close abandons a generation that Run has not read: it is cancelled and
// its resources freed. Closing after Run does nothing.
func (s *Stream) Close() {
	if s.done {
		return
	}
	s.done = true
	s.cancel()
	drain(s.events)
	s.m.finish(Result{PromptTokens: s.prompt}, context.Canceled)
}

// Run reads the generation to its end, calling emit with the text as it is
// generated (text held back while it may be the start of a stop string
// comes later, and never the stop string itself), and returns how it
// ended. An error from emit (a client gone) cancels the generation and is
// returned. Run is called once.
func (s *Stream) Run(emit func(Piece) error) (res Result, err error) {
	if s.done {
		return Result{}, errors.New("runner: the stream was already read")
	}
	s.done = true
	defer func() { s.m.finish(res, err) }()
	defer s.cancel()
	if s.tools != nil {
		return s.runTools(emit)
	}
	return s.m.run(s.ctx, s.cancel, s.events, s.stopper, s.split, s.prompt, emit)
}

// run is Stream.Run; split, when not nil, splits the text into the
// pieces' Text and Reasoning.
func (m *Model) run(ctx context.Context, cancel context.CancelFunc, events <-chan scheduler.Event, stopper *sample.Stopper,
	split chat.Splitter, prompt int, emit func(Piece) error) (Result, error) {
	res := Result{PromptTokens: prompt}
	var emitErr error
	send := func(p Piece, last bool) {
		if split != nil {
			p.Text, p.Reasoning = split.Add(p.Text)
			if last {
				c, r := split.Flush()
				p.Text, p.Reasoning = p.Text+c, p.Reasoning+r
				res.ToolCalls = split.Calls()
			}
		}
		if emitErr == nil && (p.Text != "" || p.Reasoning != "" || len(p.Tokens) > 0) {
			if err := emit(p); err != nil {
				// The client is gone (a write failed before the request's
				// context says so): a cancellation, not a server error.
				emitErr = fmt.Errorf("runner: the client went away: %w (%w)", context.Canceled, err)
				cancel()
			}
		}
	}
	var held []Token // tokens whose text the stopper still holds
	dropped := false // tokens were not emitted: ctx was cancelled
	for ev := range events {
		if ev.Done {
			res.CachedTokens = ev.Usage.CachedTokens
			res.DraftTokens, res.AcceptedTokens = ev.Usage.DraftTokens, ev.Usage.AcceptedTokens
			res.FirstToken, res.Total = ev.Usage.FirstToken, ev.Usage.Total
			res.PromptTime = ev.Usage.FirstToken
			res.GenTime = max(0, ev.Usage.Total-ev.Usage.FirstToken)
			switch {
			case emitErr != nil:
				return res, emitErr
			case stopper.Reason() == sample.StopString:
				res.Finish, res.StopString = "stop", stopper.StopString()
				send(Piece{}, true) // what the reasoning splitter holds
				return res, emitErr
			case dropped:
				return res, ctx.Err() // tokens came after the cancellation
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
				return res, fmt.Errorf("runner: generation ended: %v", ev.Finish)
			}
			send(Piece{Text: stopper.Flush(), Tokens: held}, true)
			return res, emitErr
		}
		if ctx.Err() != nil {
			dropped = true // cancelled: the scheduler ends the stream
			continue
		}
		if stopper.Reason() != sample.NotStopped || emitErr != nil {
			continue // stopped; the scheduler ends the stream
		}
		res.CompletionTokens++
		// A token's text is what it decodes to (" the", not the vocabulary's
		// "Ġthe"), control tokens none, as llama-server reports them.
		tok := Token{ID: ev.Token, Text: m.tok.TokenToPiece(ev.Token, false), LogProb: ev.LogProb}
		for _, t := range ev.Top {
			tok.Top = append(tok.Top, TopToken{ID: t.ID, Text: m.tok.TokenToPiece(t.ID, false), LogProb: t.LogProb})
		}
		text, reason, err := stopper.Add(ev.Token)
		if err != nil {
			cancel()
			drain(events)
			return res, err
		}
		held = append(held, tok)
		if text != "" || reason != sample.NotStopped {
			send(Piece{Text: text, Tokens: held}, false)
			held = nil
		}
		if reason == sample.StopString {
			cancel() // the scheduler frees the sequence at its next step
		}
	}
	return res, errors.New("runner: the generation stream ended without a result")
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
