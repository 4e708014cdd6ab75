package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"saji/engine/model"
	"saji/engine/offload"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/engine/tokenizer"
	"saji/internal/loadtest"
	"saji/kernels/cpu"
)

// localTarget serves a load test in process: prompts are tokenized with
// the model's tokenizer and run through Saji's scheduler, without HTTP, so
// that the serving core can be measured before (and apart from) the API.
type localTarget struct {
	sched *scheduler.Scheduler
	tok   *tokenizer.Tokenizer
	eog   []int32
}

// newLocalTarget starts a scheduler over m, whose tokenizer is tok.
func newLocalTarget(m model.Model, tok *tokenizer.Tokenizer, cfg scheduler.Config) (*localTarget, error) {
	s, err := scheduler.New(m, cfg)
	if err != nil {
		return nil, err
	}
	return &localTarget{sched: s, tok: tok, eog: tok.EOGs()}, nil
}

// Close stops the scheduler.
func (t *localTarget) Close() error { return t.sched.Close() }

// Stream runs one greedy completion and emits each token's text.
func (t *localTarget) Stream(ctx context.Context, req loadtest.Request, emit func(loadtest.Chunk)) (loadtest.Usage, error) {
	prompt := t.tok.Encode(req.Prompt, true, true)
	ch, err := t.sched.Submit(ctx, scheduler.Request{Prompt: prompt, MaxTokens: req.MaxTokens,
		Sampling: sample.Greedy(), EOG: t.eog, IgnoreEOS: req.IgnoreEOS})
	if err != nil {
		return loadtest.Usage{}, err
	}
	dec := t.tok.NewDecoder(tokenizer.DecoderOptions{Continue: true})
	for ev := range ch {
		if ev.Done {
			u := loadtest.Usage{PromptTokens: ev.Usage.PromptTokens, CompletionTokens: ev.Usage.CompletionTokens}
			if ev.Err != nil {
				return u, ev.Err
			}
			if ev.Finish == scheduler.FinishCancelled {
				return u, fmt.Errorf("loadtest: cancelled: %w", ctx.Err())
			}
			return u, nil
		}
		text, err := dec.Add(ev.Token)
		if err != nil {
			return loadtest.Usage{}, err
		}
		// A token that completes no character still counts as a chunk,
		// as a server that streams per token sends it.
		emit(loadtest.Chunk{Tokens: 1, Text: text})
	}
	return loadtest.Usage{}, fmt.Errorf("loadtest: the stream ended without a result")
}

// localFlags configure an in-process load test's scheduler.
type localFlags struct {
	threads, maxSeqs, budget, ctx int
	kvMiB, gpuLayers, parallel    int
	kvType                        string
	noPrefixCache                 bool
}

// register adds the flags to f, their help starting with note.
func (l *localFlags) register(f *pflag.FlagSet, note string) {
	f.IntVarP(&l.threads, "threads", "t", 0, note+"CPU threads (0: one per physical core)")
	f.IntVar(&l.maxSeqs, "max-seqs", scheduler.DefaultMaxSeqs, note+"most sequences running at once")
	f.IntVar(&l.budget, "token-budget", scheduler.DefaultTokenBudget, note+"most tokens per forward pass")
	f.IntVar(&l.parallel, "parallel", scheduler.DefaultParallel, note+"full contexts the KV cache holds for the sequences to share (as llama-server's -np; 1: one conversation and a reserve)")
	f.IntVar(&l.kvMiB, "kv-budget", 0, note+"KV cache memory in `MiB`, in place of --parallel (0: --parallel full contexts)")
	f.IntVar(&l.ctx, "ctx", 0, note+fmt.Sprintf("context length per sequence (0: %d, or the model's when shorter)", scheduler.DefaultContext))
	f.StringVar(&l.kvType, "ctk", "f16", note+"KV cache type: f16, f32 or q8_0")
	f.BoolVar(&l.noPrefixCache, "no-prefix-cache", false, note+"turn prefix caching off")
	registerGPULayers(f, &l.gpuLayers, note)
}

// scheduler is the scheduler configuration of the flags: the serving
// profile of --parallel contexts, or the --kv-budget in bytes.
func (l *localFlags) scheduler() scheduler.Config {
	return scheduler.Config{MaxSeqs: l.maxSeqs, TokenBudget: l.budget, Context: l.ctx, KVType: l.kvType,
		Parallel: max(0, l.parallel), KVBytes: int64(l.kvMiB) << 20, NoPrefixCache: l.noPrefixCache}
}

// isModelFile reports whether name is a GGUF file on disk.
func isModelFile(name string) bool {
	if !strings.HasSuffix(strings.ToLower(name), ".gguf") {
		return false
	}
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// runLocalLoadtest loads the model of lf.model and drives the workload
// through an in-process scheduler.
func runLocalLoadtest(ctx context.Context, lf *loadtestFlags, stdout, stderr io.Writer) error {
	l := lf.local
	threads := l.threads
	if threads <= 0 {
		threads = cpu.PhysicalCores()
	}
	lm, err := openTokenized(lf.model)
	if err != nil {
		return fmt.Errorf("loadtest: %w", err)
	}
	defer lm.Close()
	tk, err := loadtestTokenizer(lf.tokenizer)
	if err != nil {
		return err
	}
	if tk == nil {
		tk = lm.tok
	}
	items, err := loadtestWorkload(lf, tk)
	if err != nil {
		return err
	}
	// The scheduler's KV cache is allocated with the model, so that a
	// cache the GPU cannot hold sends the model to the CPU with it.
	sc := l.scheduler()
	sc.ModelID = lf.model
	var target *localTarget
	opts := offload.Options{Request: offload.ServeRequest(l.gpuLayers, sc), Threads: threads}
	if err := lm.load(ctx, opts, func(m model.Model) error {
		target, err = newLocalTarget(m, lm.tok, sc)
		return err
	}); err != nil {
		return fmt.Errorf("loadtest: %w", err)
	}
	defer target.Close()
	notePlacement(lm.placed.Placement, l.gpuLayers, stderr)
	mon := kvWatch{target.sched}
	cfg := target.sched.Config()
	fmt.Fprintf(stderr, "loadtest: in process, %d threads, %d sequences at most, %d tokens per step, context %d, KV cache %s of %d tokens\n",
		threads, cfg.MaxSeqs, cfg.TokenBudget, cfg.Context, cfg.KVType, target.sched.Capacity())
	name := filepath.Base(lf.model)
	return driveLoadtest(ctx, lf, target, loadtestInfo{model: name, endpoint: "in process", url: "saji scheduler", tokenizer: true},
		items, mon.notes, stdout, stderr)
}

// kvWatch reports a scheduler's KV cache figures after a load test.
type kvWatch struct{ s *scheduler.Scheduler }

// notes describes the cache.
func (w kvWatch) notes() []string {
	st := w.s.Stats()
	var out []string
	if st.UtilSteps > 0 {
		out = append(out, fmt.Sprintf("KV cache utilisation after each step (tokens stored / cells of the blocks held): mean %.1f%%, lowest %.1f%% over %d steps",
			100*st.MeanUtilization(), 100*st.UtilMin, st.UtilSteps))
	}
	out = append(out, fmt.Sprintf("prefix cache: %d of %d prompt tokens served from the cache (hit rate %.1f%%), %d evictions; %d preemptions",
		st.KV.HitTokens, st.KV.QueryTokens, 100*st.KV.HitRate(), st.KV.Evictions, st.Preemptions))
	return out
}
