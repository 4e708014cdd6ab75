package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"saji/engine/hardware"
	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/scheduler"
	"saji/internal/loadtest"
)

// localTarget serves a load test in process: prompts run through the
// runner's generation path (tokenizer, scheduler, detokenizer) without
// HTTP, so that the serving core can be measured before (and apart from)
// the API.
type localTarget struct {
	m *runner.Model
}

// Stream runs one greedy completion and emits the text of each piece the
// runner streams.
func (t *localTarget) Stream(ctx context.Context, req loadtest.Request, emit func(loadtest.Chunk)) (loadtest.Usage, error) {
	res, err := t.m.Generate(ctx, runner.Request{Prompt: req.Prompt, MaxTokens: req.MaxTokens, Sampling: sample.Greedy(),
		IgnoreEOS: req.IgnoreEOS}, func(p runner.Piece) error {
		emit(loadtest.Chunk{Tokens: len(p.Tokens), Text: p.Text})
		return nil
	})
	u := loadtest.Usage{PromptTokens: res.PromptTokens, CompletionTokens: res.CompletionTokens}
	if err != nil {
		return u, fmt.Errorf("loadtest: %w", err)
	}
	return u, nil
}

// localFlags configure an in-process load test's scheduler.
type localFlags struct {
	threads, maxSeqs, budget, ctx int
	kvMiB, gpuLayers, parallel    int
	kvType                        string
	noPrefixCache                 bool
	memory                        memoryFlags
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
	l.memory.register(f, note)
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
	threads := hardware.Threads(l.threads)
	// The scheduler's KV cache is allocated with the model, so that a
	// cache the GPU cannot hold sends the model to the CPU with it.
	sc := l.scheduler()
	sc.ModelID = lf.model
	m, err := runner.Load(ctx, lf.model, runner.LoadOptions{Threads: threads, GPULayers: l.gpuLayers, Scheduler: sc, Memory: l.memory.options()})
	if err != nil {
		return fmt.Errorf("loadtest: %w", err)
	}
	defer m.Close()
	tk, err := loadtestTokenizer(lf.tokenizer)
	if err != nil {
		return err
	}
	if tk == nil {
		tk = m.Tokenizer()
	}
	items, err := loadtestWorkload(lf, tk)
	if err != nil {
		return err
	}
	notePlacement(m.Info.Offload, l.gpuLayers, stderr)
	sched := m.Scheduler()
	mon := kvWatch{sched}
	cfg := sched.Config()
	fmt.Fprintf(stderr, "loadtest: in process, %d threads, %d sequences at most, %d tokens per step, context %d, KV cache %s of %d tokens\n",
		threads, cfg.MaxSeqs, cfg.TokenBudget, cfg.Context, cfg.KVType, sched.Capacity())
	target := &localTarget{m: m}
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
