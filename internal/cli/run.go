package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/chat"
	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/offload"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
	"saji/kernels/quant"
)

// runFlags are the settings of 'saji run'.
type runFlags struct {
	modelPath, system, kvType string
	stops                     []string
	maxTokens, nCtx, threads  int
	gpuLayers                 int
	quiet                     bool
	params                    sample.Params
}

// newRunCmd is 'saji run': generate from a prompt, or chat in the terminal.
func newRunCmd() *cobra.Command {
	rf := runFlags{params: sample.Defaults(), gpuLayers: offload.Auto}
	cmd := &cobra.Command{
		Use:   "run -m FILE [PROMPT]",
		Short: "Generate text from a prompt, or chat with a model in the terminal",
		Long: "With a PROMPT, tokenize it (adding BOS as the vocabulary says and parsing\n" +
			"special-token text, as llama.cpp's completion does), generate, and stream the\n" +
			"continuation to standard output. Generation stops at an end-of-generation token,\n" +
			"after --max-tokens tokens, at a --stop string (never printed) or when the context\n" +
			"is full. A line of statistics goes to standard error unless --quiet.\n\n" +
			"Without a PROMPT, chat: each line read from standard input is a user message;\n" +
			"the conversation is rendered with the model's chat template (ChatML when it has\n" +
			"none) and the reply streamed, followed by its speed on standard error.\n" +
			"/reset starts a new conversation; /exit or end of input ends the chat.\n\n" +
			"The sampler flags follow llama.cpp's; --temp 0 is greedy decoding. --gpu-layers\n" +
			"(-ngl) puts the last N layers on the GPU: -1 (the default) as many as fit, 0 none;\n" +
			"without a GPU, or when the model does not load on it, it runs on the CPU.",
		Example: "  saji run -m model.gguf 'Once upon a time' -n 64 --temp 0\n" +
			"  saji run -m model.gguf --system 'You are terse.'\n" +
			"  saji run -m model.gguf -ngl 0 'Once upon a time'",
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := rf.check(); err != nil {
				return err
			}
			kv, err := quant.ParseType(rf.kvType)
			if err != nil || (kv != quant.TypeF16 && kv != quant.TypeF32) {
				return fmt.Errorf("run: --kv-type must be f16 or f32, not %q", rf.kvType)
			}
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			lm, cache, err := openRunModel(ctx, &rf, kv)
			if err != nil {
				return fmt.Errorf("run: %w", err)
			}
			defer lm.Close()
			rf.noteContext(lm.model.Config().ContextTrain, cmd.ErrOrStderr())
			rf.notePlacement(lm.placed.Placement, cmd.ErrOrStderr())
			g, err := generatorWith(lm, &rf, cache)
			if err != nil {
				return err
			}
			if len(args) == 1 {
				return g.complete(ctx, args[0], cmd.OutOrStdout(), cmd.ErrOrStderr())
			}
			return g.chat(ctx, cmd.InOrStdin(), cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	p := &rf.params
	f.StringVarP(&rf.modelPath, "model", "m", "", "GGUF model `FILE`")
	f.IntVarP(&rf.maxTokens, "max-tokens", "n", -1, "most tokens to generate per reply (-1: until an end token or a full context)")
	f.StringArrayVar(&rf.stops, "stop", nil, "stop generating at `STR` (repeatable; the stop string is not printed)")
	f.BoolVarP(&rf.quiet, "quiet", "q", false, "print no statistics or notes on standard error")
	f.StringVar(&rf.system, "system", "", "system prompt for the chat")
	f.IntVarP(&rf.nCtx, "ctx", "c", 0, fmt.Sprintf("context size in tokens (0: the model's training context, at most %d)", scheduler.DefaultContext))
	f.IntVarP(&rf.threads, "threads", "t", 0, "number of threads (0: all CPUs)")
	f.StringVar(&rf.kvType, "kv-type", "f16", "key/value cache type: f16 (llama.cpp's default) or f32")
	registerGPULayers(f, &rf.gpuLayers, "")
	f.Float32Var(&p.Temperature, "temp", p.Temperature, "temperature (0: greedy)")
	f.IntVar(&p.TopK, "top-k", p.TopK, "top-k sampling (0: off)")
	f.Float32Var(&p.TopP, "top-p", p.TopP, "top-p sampling (1: off)")
	f.Float32Var(&p.MinP, "min-p", p.MinP, "min-p sampling (0: off)")
	f.Float32Var(&p.TypicalP, "typical", p.TypicalP, "locally typical sampling mass (1: off)")
	f.Float32Var(&p.RepeatPenalty, "repeat-penalty", p.RepeatPenalty, "penalty for repeated tokens (1: off)")
	f.IntVar(&p.LastN, "repeat-last-n", p.LastN, "tokens the penalties look back over (0: off, -1: all)")
	f.Float32Var(&p.PresencePenalty, "presence-penalty", p.PresencePenalty, "presence penalty (0: off)")
	f.Float32Var(&p.FrequencyPenalty, "frequency-penalty", p.FrequencyPenalty, "frequency penalty (0: off)")
	f.Int64VarP(&p.Seed, "seed", "s", p.Seed, "random seed (-1: random)")
	return cmd
}

// check validates the flags that need no model.
func (rf *runFlags) check() error {
	if rf.modelPath == "" {
		return errors.New("run: a model is required (-m FILE)")
	}
	if rf.maxTokens < -1 {
		return fmt.Errorf("run: --max-tokens must be -1 (no limit) or more, not %d", rf.maxTokens)
	}
	if rf.nCtx < 0 {
		return fmt.Errorf("run: --ctx must not be negative, not %d", rf.nCtx)
	}
	if rf.threads < 0 {
		return fmt.Errorf("run: --threads must not be negative, not %d", rf.threads)
	}
	for _, s := range rf.stops {
		if s == "" {
			return errors.New("run: --stop needs a non-empty string")
		}
	}
	if err := rf.params.Validate(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// generator holds one sequence's state: the key/value cache and the tokens
// in it, and the sampler.
type generator struct {
	lm        *loadedModel
	flags     *runFlags
	cache     *model.Cache
	seq       []int32 // the tokens whose keys and values are in cache
	sampler   *sample.Sampler
	maxTokens int
}

// runContext is the context the cache holds: --ctx, or else the
// scheduler's default for a model trained with train tokens.
func runContext(train, nCtx int) int {
	return scheduler.Config{Context: max(0, nCtx)}.Sized(train).Context
}

// openRunModel opens the model of the flags with --gpu-layers of its
// layers on the GPU, and its cache for the context in the same attempt,
// so that a cache the GPU cannot hold sends the model to the CPU with it.
func openRunModel(ctx context.Context, rf *runFlags, kv quant.Type) (*loadedModel, *model.Cache, error) {
	lm, err := openTokenized(rf.modelPath)
	if err != nil {
		return nil, nil, err
	}
	train := 0
	if v, err := lm.file.ContextLength(); err == nil {
		train = int(v)
	}
	cache, err := lm.loadWithCache(ctx, rf.gpuLayers, rf.threads, runContext(train, rf.nCtx), kv)
	if err != nil {
		lm.Close()
		return nil, nil, err
	}
	return lm, cache, nil
}

// notePlacement tells errw where the model runs, unless quiet (see
// notePlacement).
func (rf *runFlags) notePlacement(p offload.Placement, errw io.Writer) {
	if !rf.quiet {
		notePlacement(p, rf.gpuLayers, errw)
	}
}

// newGenerator sizes the context and builds the cache and sampler. Notes go
// to errw unless the flags say quiet.
func newGenerator(lm *loadedModel, rf *runFlags, kv quant.Type, errw io.Writer) (*generator, error) {
	cache, err := lm.model.NewCache(runContext(lm.model.Config().ContextTrain, rf.nCtx), kv)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	rf.noteContext(lm.model.Config().ContextTrain, errw)
	return generatorWith(lm, rf, cache)
}

// noteContext notes a context longer than the training context train.
func (rf *runFlags) noteContext(train int, errw io.Writer) {
	if train > 0 && rf.nCtx > train && !rf.quiet {
		fmt.Fprintf(errw, "saji: note: a context of %d is longer than the %d the model was trained with\n", rf.nCtx, train)
	}
}

// generatorWith builds the sampler of a generator over cache.
func generatorWith(lm *loadedModel, rf *runFlags, cache *model.Cache) (*generator, error) {
	s, err := sample.New(rf.params)
	if err != nil {
		return nil, fmt.Errorf("run: %w", err)
	}
	return &generator{lm: lm, flags: rf, cache: cache, sampler: s, maxTokens: rf.maxTokens}, nil
}

// genStats measures one generation.
type genStats struct {
	promptTokens int           // tokens in the prompt
	promptEval   int           // of which evaluated (not reused from the cache)
	promptTime   time.Duration // time to evaluate them
	genTokens    int           // tokens generated (an end-of-generation token not counted)
	genTime      time.Duration
	interrupted  bool // the context was cancelled
	full         bool // the context filled up
}

func rate(n int, d time.Duration) float64 {
	if n == 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// errContextFull is returned by generate for a prompt that leaves no room
// to generate.
var errContextFull = errors.New("context full")

// generate runs prompt through the model, reusing the cached keys and
// values of its longest common prefix with the previous sequence, then
// samples tokens and writes their text to w as it is produced. It stops at
// an end-of-generation token, a stop string, the token limit, a full
// context or a cancelled ctx (the last two are reported in the stats, not
// as errors). The reply text (what was written) is returned.
func (g *generator) generate(ctx context.Context, prompt []int32, w io.Writer) (string, genStats, error) {
	st := genStats{promptTokens: len(prompt)}
	if len(prompt) == 0 {
		return "", st, errors.New("the prompt has no tokens")
	}
	if len(prompt) > g.cache.Size() {
		return "", st, fmt.Errorf("%w: the prompt has %d tokens and the context holds %d (raise --ctx)",
			errContextFull, len(prompt), g.cache.Size())
	}
	// Keep the common prefix, but evaluate at least the last prompt token
	// to have its logits.
	keep := 0
	for keep < len(g.seq) && keep < len(prompt)-1 && g.seq[keep] == prompt[keep] {
		keep++
	}
	g.seq = g.seq[:keep]
	g.cache.Truncate(keep)
	if g.cache.Len() != keep { // out of step (an earlier failure): start over
		g.cache.Reset()
		g.seq, keep = g.seq[:0], 0
	}
	for _, t := range prompt[keep:] {
		g.sampler.Accept(t)
	}

	start := time.Now()
	logits, err := g.lm.model.Forward(ctx, prompt[keep:], positions(keep, len(prompt)-keep), g.cache, false)
	if err != nil {
		if ctx.Err() != nil {
			st.interrupted = true
			return "", st, nil
		}
		return "", st, err
	}
	g.seq = append(g.seq, prompt[keep:]...)
	st.promptEval = len(prompt) - keep
	st.promptTime = time.Since(start)

	dec := g.lm.tok.NewDecoder(tokenizer.DecoderOptions{Continue: true})
	stopper, err := sample.NewStopper(dec, g.lm.tok.EOGs(), g.flags.stops)
	if err != nil {
		return "", st, err
	}
	var reply strings.Builder
	emit := func(s string) error {
		if s == "" {
			return nil
		}
		reply.WriteString(s)
		_, err := io.WriteString(w, s)
		return err
	}
	start = time.Now()
	for g.maxTokens < 0 || st.genTokens < g.maxTokens {
		if ctx.Err() != nil {
			st.interrupted = true
			break
		}
		tok, err := g.sampler.Next(logits)
		if err != nil {
			return reply.String(), st, err
		}
		text, reason, err := stopper.Add(tok)
		if err != nil {
			return reply.String(), st, err
		}
		if reason != sample.StopEOG {
			st.genTokens++
		}
		if err := emit(text); err != nil {
			return reply.String(), st, err
		}
		if reason != sample.NotStopped {
			st.genTime = time.Since(start)
			return reply.String(), st, nil
		}
		if len(g.seq) >= g.cache.Size() {
			st.full = true
			break
		}
		if g.maxTokens >= 0 && st.genTokens >= g.maxTokens {
			break // no need to evaluate the last token
		}
		logits, err = g.lm.model.Forward(ctx, []int32{tok}, []int32{int32(len(g.seq))}, g.cache, false)
		if err != nil {
			if ctx.Err() != nil {
				st.interrupted = true
				break
			}
			return reply.String(), st, err
		}
		g.seq = append(g.seq, tok)
	}
	err = emit(stopper.Flush())
	st.genTime = time.Since(start)
	return reply.String(), st, err
}

// complete is 'saji run' with a prompt.
func (g *generator) complete(ctx context.Context, prompt string, out, errw io.Writer) error {
	tokens := g.lm.tok.Encode(prompt, true, true)
	w := bufio.NewWriterSize(out, 256)
	reply, st, err := g.generate(ctx, tokens, flushWriter{w})
	if ferr := w.Flush(); err == nil {
		err = ferr
	}
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	if !g.flags.quiet && reply != "" && !strings.HasSuffix(reply, "\n") {
		fmt.Fprintln(errw) // end the streamed line on a terminal
	}
	g.report(errw, st, true)
	return nil
}

// flushWriter flushes a bufio.Writer after every write, so that text
// streams while keeping each write whole.
type flushWriter struct{ w *bufio.Writer }

func (f flushWriter) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err == nil {
		err = f.w.Flush()
	}
	return n, err
}

// report writes the notes and statistics of a generation to errw: the
// whole line for a single prompt, the speed alone after a chat reply.
func (g *generator) report(errw io.Writer, st genStats, single bool) {
	if g.flags.quiet {
		return
	}
	if st.interrupted {
		fmt.Fprintln(errw, "saji: interrupted")
	}
	if st.full {
		fmt.Fprintf(errw, "saji: the context of %d tokens is full; generation stopped (raise --ctx)\n", g.cache.Size())
	}
	if single {
		fmt.Fprintf(errw, "prompt: %d tokens, %.1f tokens/s; generated: %d tokens, %.1f tokens/s\n",
			st.promptTokens, rate(st.promptEval, st.promptTime), st.genTokens, rate(st.genTokens, st.genTime))
	} else {
		fmt.Fprintf(errw, "[%d tokens, %.1f tokens/s]\n", st.genTokens, rate(st.genTokens, st.genTime))
	}
}

// chatTemplate returns the model's chat template, or ChatML with a note
// when it has none.
func (g *generator) chatTemplate(errw io.Writer) (*chat.Template, error) {
	src, err := g.lm.file.ChatTemplate()
	if err != nil && !errors.Is(err, gguf.ErrNotFound) {
		return nil, err
	}
	if src == "" {
		if !g.flags.quiet {
			fmt.Fprintln(errw, "saji: note: the model has no chat template; using ChatML")
		}
		return chat.ChatML(), nil
	}
	t, err := chat.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("the model's chat template: %w", err)
	}
	return t, nil
}

// chatPrompt renders the conversation and tokenizes it as llama.cpp's chat
// does: a BOS (or EOS) that the template writes and the tokenizer adds
// anyway is dropped from the text, so it is not doubled.
func (g *generator) chatPrompt(ctx context.Context, t *chat.Template, msgs []chat.Message) ([]int32, error) {
	tk := g.lm.tok
	text := func(id int32) string {
		if id < 0 {
			return ""
		}
		return tk.Text(id)
	}
	bos, eos := text(tk.BOS()), text(tk.EOS())
	s, err := t.RenderMessages(ctx, chat.Request{Messages: msgs, AddGenerationPrompt: true, BOSToken: bos, EOSToken: eos})
	if err != nil {
		return nil, err
	}
	if tk.AddBOS() && bos != "" {
		s = strings.TrimPrefix(s, bos)
	}
	if tk.AddEOS() && eos != "" {
		s = strings.TrimSuffix(s, eos)
	}
	return tk.Encode(s, true, true), nil
}

// chat is 'saji run' without a prompt: a conversation read line by line
// from in.
func (g *generator) chat(ctx context.Context, in io.Reader, out, errw io.Writer) error {
	tmpl, err := g.chatTemplate(errw)
	if err != nil {
		return fmt.Errorf("run: %w", err)
	}
	var base []chat.Message
	if g.flags.system != "" {
		base = append(base, chat.Message{Role: "system", Content: g.flags.system})
	}
	msgs := append([]chat.Message(nil), base...)
	terminal := isTerminal(in)
	if !g.flags.quiet {
		fmt.Fprintln(errw, "saji: chat; /reset starts over, /exit or end of input ends")
	}

	lines := make(chan string)
	readErr := make(chan error, 1)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(in)
		sc.Buffer(make([]byte, 64*1024), 16<<20)
		for sc.Scan() {
			select {
			case lines <- sc.Text():
			case <-ctx.Done():
				return
			}
		}
		readErr <- sc.Err()
	}()

	for {
		if terminal {
			fmt.Fprint(out, "> ")
		}
		var line string
		var ok bool
		select {
		case <-ctx.Done():
			fmt.Fprintln(out)
			return nil
		case line, ok = <-lines:
		}
		if !ok {
			if terminal {
				fmt.Fprintln(out)
			}
			select {
			case err := <-readErr:
				if err != nil {
					return fmt.Errorf("run: reading input: %w", err)
				}
			default:
			}
			return nil
		}
		line = strings.TrimRight(line, "\r")
		switch strings.TrimSpace(line) {
		case "":
			continue
		case "/exit", "/quit":
			return nil
		case "/reset":
			msgs = append(msgs[:0], base...)
			g.sampler.Reset()
			if !g.flags.quiet {
				fmt.Fprintln(errw, "saji: conversation cleared")
			}
			continue
		}
		msgs = append(msgs, chat.Message{Role: "user", Content: line})
		tokens, err := g.chatPrompt(ctx, tmpl, msgs)
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("run: rendering the conversation: %w", err)
		}
		reply, st, err := g.generate(ctx, tokens, out)
		if errors.Is(err, errContextFull) {
			msgs = msgs[:len(msgs)-1]
			fmt.Fprintf(errw, "saji: the conversation no longer fits: %v; /reset to start over\n", err)
			continue
		}
		if err != nil {
			return fmt.Errorf("run: %w", err)
		}
		fmt.Fprintln(out)
		g.report(errw, st, false)
		if st.interrupted {
			return nil
		}
		msgs = append(msgs, chat.Message{Role: "assistant", Content: reply})
		if st.full {
			fmt.Fprintln(errw, "saji: the conversation fills the context; /reset to start over")
		}
	}
}

// isTerminal reports whether r is a character device (an interactive
// terminal).
func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
