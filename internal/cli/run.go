package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/chat"
	"saji/engine/imagefile"
	"saji/engine/kvcache"
	"saji/engine/offload"
	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/kernels/quant"
)

// runFlags are the settings of 'saji run'.
type runFlags struct {
	modelPath, system, kvType string
	stops                     []string
	mmproj                    string
	images                    []string
	maxTokens, nCtx, threads  int
	gpuLayers                 int
	quiet                     bool
	params                    sample.Params
	spec                      specFlags
	cache                     promptCacheFlags
	memory                    memoryFlags
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
			"  saji run -m gemma-3-4b-it.gguf --mmproj mmproj-f16.gguf --image cat.jpg 'This picture shows'\n" +
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
			disk, err := rf.cache.open(slog.Default())
			if err != nil {
				return fmt.Errorf("run: %w", err)
			}
			if disk != nil {
				defer disk.Close() // after the model, whose scheduler saves on closing
			}
			m, err := openRunModel(ctx, &rf, kv, disk)
			if err != nil {
				return fmt.Errorf("run: %w", err)
			}
			defer m.Close()
			rf.noteContext(m.Info.ContextTrain, cmd.ErrOrStderr())
			rf.notePlacement(m.Info.Offload, cmd.ErrOrStderr())
			g := &generator{m: m, flags: &rf}
			if g.images, err = readImages(rf.images); err != nil {
				return fmt.Errorf("run: %w", err)
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
	rf.memory.register(f, "")
	f.StringVar(&rf.mmproj, "mmproj", "", "vision projector `FILE` (an mmproj GGUF; default: an mmproj*.gguf beside the model)")
	f.StringArrayVar(&rf.images, "image", nil, "picture `FILE` for the model to see (JPEG, PNG, WebP or GIF; repeatable): placed at the prompt's image markers, or before it; in a chat, with the first message")
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
	rf.spec.register(f)
	rf.cache.register(f)
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
	if _, err := rf.spec.speculative(); err != nil {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// generator runs the generations of 'saji run' on its model, through the
// runner's generation path (the scheduler, with its prefix cache reusing
// the conversation's earlier turns).
type generator struct {
	m     *runner.Model
	flags *runFlags
	// images are the --image pictures, which go with the prompt, or with
	// the chat's first message.
	images []imagefile.Image
}

// openRunModel loads the model of the flags with --gpu-layers of its
// layers on the GPU and its KV cache for one conversation of the context
// (--ctx, or the scheduler's default: the training context up to
// scheduler.DefaultContext), in the same attempt, so that a cache the GPU
// cannot hold sends the model to the CPU with it. disk, when not nil, is
// the prompt cache on disk.
func openRunModel(ctx context.Context, rf *runFlags, kv quant.Type, disk *kvcache.Disk) (*runner.Model, error) {
	spec, err := rf.spec.speculative()
	if err != nil {
		return nil, err
	}
	return runner.Load(ctx, rf.modelPath, runner.LoadOptions{Threads: rf.threads, GPULayers: rf.gpuLayers,
		Scheduler: scheduler.Config{Context: rf.nCtx, KVType: strings.ToLower(kv.String()), Parallel: 1, MaxSeqs: 1,
			PromptCache: disk},
		Speculative: spec, Projector: rf.mmproj, Memory: rf.memory.options()})
}

// readImages reads and decodes the --image files.
func readImages(paths []string) ([]imagefile.Image, error) {
	var imgs []imagefile.Image
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		img, err := imagefile.Decode(b, imagefile.DefaultLimits)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}

// notePlacement tells errw where the model runs, unless quiet (see
// notePlacement).
func (rf *runFlags) notePlacement(p offload.Placement, errw io.Writer) {
	if !rf.quiet {
		notePlacement(p, rf.gpuLayers, errw)
	}
}

// noteContext notes a context longer than the training context train.
func (rf *runFlags) noteContext(train int, errw io.Writer) {
	if train > 0 && rf.nCtx > train && !rf.quiet {
		fmt.Fprintf(errw, "saji: note: a context of %d is longer than the %d the model was trained with\n", rf.nCtx, train)
	}
}

// genStats measures one generation.
type genStats struct {
	promptTokens int           // tokens in the prompt
	promptEval   int           // of which evaluated (not reused from the cache)
	promptTime   time.Duration // time to evaluate them
	genTokens    int           // tokens generated (an end-of-generation token not counted)
	genTime      time.Duration // from the first token to the last
	interrupted  bool          // the context was cancelled
	full         bool          // the context filled up
	draft        int           // draft tokens verified (speculative decoding)
	accepted     int           // of which accepted
}

// draftNote is the statistics' note on speculative decoding, "" without
// it.
func (st genStats) draftNote() string {
	if st.draft == 0 {
		return ""
	}
	return fmt.Sprintf("; draft: %d of %d accepted (%.0f%%)", st.accepted, st.draft, 100*float64(st.accepted)/float64(st.draft))
}

// decodeRate is the generation speed: the tokens after the first over the
// time from the first to the last (the first token's time is the prompt's).
func (st genStats) decodeRate() float64 { return rate(st.genTokens-1, st.genTime) }

func rate(n int, d time.Duration) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	return float64(n) / d.Seconds()
}

// errContextFull is returned by generate for a prompt that leaves no room
// to generate.
var errContextFull = errors.New("context full")

// generate runs req on the model and writes the text to w as it is
// produced. It stops at an end-of-generation token, a stop string, the
// token limit, a full context or a cancelled ctx (the last two are
// reported in the stats, not as errors). The reply text (what was written)
// is returned.
func (g *generator) generate(ctx context.Context, req runner.Request, w io.Writer) (string, genStats, error) {
	// -n is a most: the end of the context cuts the reply short.
	req.MaxTokens, req.Stop, req.Sampling, req.CutAtContext = g.flags.maxTokens, g.flags.stops, g.flags.params, true
	var st genStats
	if req.MaxTokens == 0 {
		return "", st, nil // -n 0 generates nothing, as llama.cpp's
	}
	s, err := g.m.Start(ctx, req)
	switch {
	case errors.Is(err, runner.ErrContextLength):
		return "", st, fmt.Errorf("%w: %w (raise --ctx)", errContextFull, err)
	case err != nil:
		return "", st, err
	}
	st.promptTokens = s.PromptTokens()
	// A thinking model's reasoning is written as it comes, and a blank
	// line before the answer; the reply is the answer alone.
	var reply strings.Builder
	thinking := false
	res, err := s.Run(func(p runner.Piece) error {
		text := p.Text
		if p.Reasoning != "" {
			text, thinking = p.Reasoning, true
			if p.Text != "" {
				text, thinking = p.Reasoning+"\n\n"+p.Text, false
			}
		} else if thinking && text != "" {
			text, thinking = "\n\n"+text, false
		}
		reply.WriteString(p.Text)
		_, err := io.WriteString(w, text)
		return err
	})
	st.promptEval = res.PromptTokens - res.CachedTokens
	st.promptTime, st.genTokens, st.genTime = res.PromptTime, res.CompletionTokens, res.GenTime
	st.draft, st.accepted = res.DraftTokens, res.AcceptedTokens
	switch {
	case ctx.Err() != nil:
		st.interrupted = true
		return reply.String(), st, nil
	case err != nil:
		return reply.String(), st, err
	}
	st.full = res.Finish == "length" && (g.flags.maxTokens < 0 || res.CompletionTokens < g.flags.maxTokens)
	return reply.String(), st, nil
}

// complete is 'saji run' with a prompt.
func (g *generator) complete(ctx context.Context, prompt string, out, errw io.Writer) error {
	w := bufio.NewWriterSize(out, 256)
	reply, st, err := g.generate(ctx, runner.Request{Prompt: prompt, Images: g.images}, flushWriter{w})
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
		fmt.Fprintf(errw, "saji: the context of %d tokens is full; generation stopped (raise --ctx)\n", g.m.Info.Context)
	}
	if single {
		fmt.Fprintf(errw, "prompt: %d tokens, %.1f tokens/s; generated: %d tokens, %.1f tokens/s%s\n",
			st.promptTokens, rate(st.promptEval, st.promptTime), st.genTokens, st.decodeRate(), st.draftNote())
	} else {
		fmt.Fprintf(errw, "[%d tokens, %.1f tokens/s%s]\n", st.genTokens, st.decodeRate(), st.draftNote())
	}
}

// chat is 'saji run' without a prompt: a conversation read line by line
// from in.
func (g *generator) chat(ctx context.Context, in io.Reader, out, errw io.Writer) error {
	if g.m.Info.Template == "" && !g.flags.quiet {
		fmt.Fprintln(errw, "saji: note: the model has no chat template; using ChatML")
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
			if !g.flags.quiet {
				fmt.Fprintln(errw, "saji: conversation cleared")
			}
			continue
		}
		msg := chat.Message{Role: "user", Content: line}
		if len(msgs) == len(base) && len(g.images) > 0 {
			for i := range g.images {
				msg.Parts = append(msg.Parts, chat.ContentPart{Type: "image", Image: &g.images[i]})
			}
			msg.Parts = append(msg.Parts, chat.ContentPart{Type: "text", Text: line})
		}
		msgs = append(msgs, msg)
		reply, st, err := g.generate(ctx, runner.Request{Messages: msgs}, out)
		if errors.Is(err, errContextFull) {
			msgs = msgs[:len(msgs)-1]
			fmt.Fprintf(errw, "saji: the conversation no longer fits: %v; /reset to start over\n", err)
			continue
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
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
