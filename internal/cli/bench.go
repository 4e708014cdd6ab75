package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/offload"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// benchBatch is the largest batch a prompt test decodes at once
// (llama-bench's default n_batch).
const benchBatch = 2048

// benchFlags are the settings of 'saji bench'.
type benchFlags struct {
	modelPath              string
	threads, prompts, gens string
	depths, gpuLayers      string
	reps                   int
	jsonOut                bool
	memory                 memoryFlags
	noWarmup, progress     bool
	kvType                 string
	spec                   specFlags
	specPrompt             string
	specOnly               bool
	restore                int
}

// newBenchCmd is 'saji bench': llama-bench's prompt-processing and
// generation speed tests. The synthetic models they run on in CI are
// written by the dev tool internal/tools/synthmodel.
func newBenchCmd() *cobra.Command {
	bf := benchFlags{threads: strconv.Itoa(runtime.NumCPU()), prompts: "512", gens: "128", depths: "0", gpuLayers: "-1", reps: 5, kvType: "f16"}
	cmd := &cobra.Command{
		Use:   "bench -m FILE",
		Short: "Measure a model's prompt-processing and generation speed, as llama-bench does",
		Long: "Run llama-bench's tests on the CPU and print its table (or --json records).\n\n" +
			"  ppN  processes N random tokens (the first is BOS when the vocabulary adds one)\n" +
			"       in one batch from an empty cache;\n" +
			"  tgN  generates N tokens one at a time from an empty cache, starting from BOS.\n\n" +
			"-d D runs them after D tokens already in the cache (llama-bench's \"pp512 @ d4096\"):\n" +
			"the speed at that depth of a conversation. The D tokens are processed once per\n" +
			"test, untimed, and the cache goes back to them before each repetition.\n\n" +
			"Each test runs once untimed as a warm-up, then --repetitions times; t/s is the\n" +
			"number of tokens over the time of a repetition, shown as mean ± standard\n" +
			"deviation. -p, -n, -d, -t and -ngl take comma-separated lists; -p 0 or -n 0 skips\n" +
			"those tests. The key/value cache is F16 unless --ctk says f32.\n\n" +
			"-ngl puts the last N layers on the GPU (CUDA, Metal): -1 (the default) as many as\n" +
			"fit, 0 none. The backend column says where a test ran, and the ngl column (the\n" +
			"JSON's n_gpu_layers) how many layers were on the GPU: without a GPU, or when the\n" +
			"model does not load on it, the tests run on the CPU.\n\n" +
			"--draft FILE (-md) or --lookup adds the speculative test specN after the others:\n" +
			"N tokens generated greedily from one prompt (--spec-prompt, or 32 random tokens),\n" +
			"by plain decoding and by speculative decoding in turn, -r times each. Its table\n" +
			"gives the median decode speed of each, the speed-up, the share of draft tokens\n" +
			"accepted, the tokens a decode step made, and whether both outputs were the same.",
		Example: "  saji bench -m model.gguf\n" +
			"  saji bench -m model.gguf -t 1,2,4 -p 128 -n 32 -r 3 --json\n" +
			"  saji bench -m model.gguf -ngl 0,16,99\n" +
			"  saji bench -m model.gguf -p 0 -n 64 -d 0,4096,16384\n" +
			"  saji bench -m model-q8_0.gguf --draft model-q4_k_m.gguf -p 0 -n 128 -t 2",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			if ctx == nil {
				ctx = context.Background()
			}
			return runBench(ctx, &bf, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	f := cmd.Flags()
	f.StringVarP(&bf.modelPath, "model", "m", "", "GGUF model `FILE`")
	f.StringVarP(&bf.threads, "threads", "t", bf.threads, "thread counts to test, comma-separated")
	f.StringVarP(&bf.prompts, "n-prompt", "p", bf.prompts, "prompt lengths to test, comma-separated (0: none)")
	f.StringVarP(&bf.gens, "n-gen", "n", bf.gens, "generation lengths to test, comma-separated (0: none)")
	f.StringVarP(&bf.depths, "n-depth", "d", bf.depths, "tokens already in the cache when each test starts, comma-separated")
	f.IntVarP(&bf.reps, "repetitions", "r", bf.reps, "timed repetitions of each test")
	f.BoolVar(&bf.jsonOut, "json", false, "print JSON records instead of the table")
	bf.memory.register(f, "")
	f.BoolVar(&bf.noWarmup, "no-warmup", false, "skip the untimed warm-up run of each test")
	f.BoolVar(&bf.progress, "progress", false, "report each run on standard error")
	f.StringVar(&bf.kvType, "ctk", bf.kvType, "key/value cache type: f16 or f32")
	f.StringVar(&bf.gpuLayers, "n-gpu-layers", bf.gpuLayers, "GPU layer counts to test, comma-separated (-1: as many as fit, 0: none; also -ngl)")
	f.StringVar(&bf.gpuLayers, "gpu-layers", bf.gpuLayers, "GPU layer counts to test (Saji's name for --n-gpu-layers)")
	f.MarkHidden("gpu-layers")
	bf.spec.register(f)
	f.StringVar(&bf.specPrompt, "spec-prompt", "", "prompt `TEXT` of the speculative test (default: 32 random tokens)")
	f.BoolVar(&bf.specOnly, "spec-only", false, "run the speculative test alone, without the pp and tg tests")
	f.IntVar(&bf.restore, "restore", 0, "run the prompt cache test alone: time to the first token after a restart that continues an `N`-token conversation, restored from disk and recomputed")
	return cmd
}

// benchTest is one line of the report: a test at a thread count, and its
// timings.
type benchTest struct {
	threads, nPrompt, nGen int
	nDepth                 int // tokens in the cache before the test
	samples                []time.Duration
}

// name is llama-bench's test name: pp512, tg128, tg128 @ d4096.
func (t *benchTest) name() string {
	var s string
	switch {
	case t.nGen == 0:
		s = fmt.Sprintf("pp%d", t.nPrompt)
	case t.nPrompt == 0:
		s = fmt.Sprintf("tg%d", t.nGen)
	default:
		s = fmt.Sprintf("pp%d+tg%d", t.nPrompt, t.nGen)
	}
	if t.nDepth > 0 {
		s += fmt.Sprintf(" @ d%d", t.nDepth)
	}
	return s
}

// rates returns the tokens per second of each repetition.
func (t *benchTest) rates() []float64 {
	ts := make([]float64, len(t.samples))
	for i, d := range t.samples {
		ts[i] = float64(t.nPrompt+t.nGen) / d.Seconds()
	}
	return ts
}

// meanStd returns the mean and the sample standard deviation (n-1), 0 for
// fewer than two values, as llama-bench computes them.
func meanStd(x []float64) (float64, float64) {
	if len(x) == 0 {
		return 0, 0
	}
	var sum, sq float64
	for _, v := range x {
		sum += v
		sq += v * v
	}
	n := float64(len(x))
	mean := sum / n
	if len(x) < 2 {
		return mean, 0
	}
	return mean, math.Sqrt(max(0, sq/(n-1)-mean*mean*n/(n-1)))
}

// benchModel is what the report says about the model.
type benchModel struct {
	path, desc  string
	size        int64 // bytes of tensor data
	params      int64
	kernels     string
	gpu         string // the GPU API of the layers on the GPU ("CUDA"), "" on the CPU alone
	device      string // the GPU holding them ("cuda:0")
	ngl         int    // layers on the GPU
	bos         int32  // first token of a test, or -1 for a random one
	vocab       int    // random tokens are below this: the model's logit count
	kv          quant.Type
	mmap, mlock bool
}

func runBench(ctx context.Context, bf *benchFlags, stdout, stderr io.Writer) error {
	if bf.modelPath == "" {
		return errors.New("bench: a model is required (-m FILE)")
	}
	threads, err := intList("threads", bf.threads, 1)
	if err != nil {
		return err
	}
	prompts, err := intList("n-prompt", bf.prompts, 0)
	if err != nil {
		return err
	}
	gens, err := intList("n-gen", bf.gens, 0)
	if err != nil {
		return err
	}
	depths, err := intList("n-depth", bf.depths, 0)
	if err != nil {
		return err
	}
	ngls, err := intList("n-gpu-layers", bf.gpuLayers, -1)
	if err != nil {
		return err
	}
	if bf.reps < 1 {
		return errors.New("bench: --repetitions must be at least 1")
	}
	kv, err := quant.ParseType(bf.kvType)
	if err != nil || (kv != quant.TypeF16 && kv != quant.TypeF32) {
		return fmt.Errorf("bench: --ctk must be f16 or f32, not %q", bf.kvType)
	}
	if bf.restore > 0 {
		return runRestoreBench(ctx, bf, threads, ngls[0], stdout, stderr)
	}
	f, err := gguf.OpenWith(ctx, bf.modelPath, bf.memory.options())
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer f.Close()
	bm, err := describeBenchModel(f, bf.modelPath)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	bm.kv, bm.mmap, bm.mlock = kv, !bf.memory.noMmap, bf.memory.mlock

	// The ngl column shows when layers may go to a GPU there is.
	gpus := offload.System()
	showNGL := false
	if slices.ContainsFunc(ngls, func(n int) bool { return n != 0 }) {
		_, err := gpus.Open()
		showNGL = err == nil
	}
	maxCtx := 1
	for _, p := range prompts {
		for _, n := range gens {
			maxCtx = max(maxCtx, p+n)
		}
	}
	maxCtx += slices.Max(depths)

	if _, err := bf.spec.speculative(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	var rep benchReporter = &markdownReporter{w: stdout, showKV: kv != quant.TypeF16, showNGL: showNGL, bm: bm}
	if bf.jsonOut {
		rep = &jsonReporter{w: stdout, bm: bm}
	}
	rep.header()
	rng := rand.New(rand.NewPCG(1, 2))
	runs := benchRuns(threads, ngls)
	if bf.specOnly {
		if bf.spec.draft == "" && !bf.spec.lookup {
			return errors.New("bench: --spec-only needs --draft FILE or --lookup")
		}
		runs = nil
	}
	for i, run := range runs {
		backend := cpu.New(run.threads)
		bm.kernels = kernelsOf(backend)
		placed, err := offload.Load(ctx, f, offload.Options{Request: offload.Request{GPULayers: run.ngl, Context: maxCtx,
			KVType: strings.ToLower(kv.String()), Parallel: 1}, Threads: run.threads, CPU: backend, Registry: gpus}, nil)
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		p := placed.Placement
		bm.ngl, bm.device, bm.gpu = p.Layers, p.Device, ""
		if p.Layers > 0 {
			bm.gpu = gpus.Platform().Name
		}
		if i%len(threads) == 0 && (p.Device != "" || run.ngl > 0) {
			fmt.Fprintf(stderr, "saji bench: -ngl %d: %s\n", run.ngl, p)
		}
		err = bm.runTests(ctx, placed.Model, run.threads, prompts, gens, depths, bf, rep, rng, stderr)
		if cerr := placed.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("bench: %w", cerr)
		}
		if err != nil {
			return err
		}
	}
	if bf.spec.draft != "" || bf.spec.lookup {
		if err := runSpecBench(ctx, bf, threads, gens, ngls[0], rep, stderr); err != nil {
			return err
		}
	}
	rep.footer()
	return nil
}

// benchRun is a thread count and a GPU layer count to run the tests with.
type benchRun struct{ threads, ngl int }

// benchRuns lists the runs: every thread count for each GPU layer count.
func benchRuns(threads, ngls []int) []benchRun {
	var out []benchRun
	for _, n := range ngls {
		for _, th := range threads {
			out = append(out, benchRun{threads: th, ngl: n})
		}
	}
	return out
}

// runTests runs the prompt and generation tests on m with th threads at
// each depth, reporting each.
func (bm *benchModel) runTests(ctx context.Context, m model.Model, th int, prompts, gens, depths []int,
	bf *benchFlags, rep benchReporter, rng *rand.Rand, stderr io.Writer) error {
	bm.vocab = m.Config().Vocab
	if int(bm.bos) >= bm.vocab {
		bm.bos = -1
	}
	var tests []*benchTest
	for _, d := range depths {
		for _, p := range prompts {
			if p > 0 {
				tests = append(tests, &benchTest{threads: th, nPrompt: p, nDepth: d})
			}
		}
		for _, n := range gens {
			if n > 0 {
				tests = append(tests, &benchTest{threads: th, nGen: n, nDepth: d})
			}
		}
	}
	for _, t := range tests {
		if err := runBenchTest(ctx, m, bm, t, bf, rng, stderr); err != nil {
			return fmt.Errorf("bench: %s with %d threads: %w", t.name(), th, err)
		}
		rep.test(bm, t)
	}
	return nil
}

// runBenchTest runs one test: its depth, untimed, then a warm-up and the
// timed repetitions, each from the cache holding the depth's tokens.
func runBenchTest(ctx context.Context, m model.Model, bm *benchModel, t *benchTest, bf *benchFlags, rng *rand.Rand, stderr io.Writer) error {
	cache, err := m.NewCache(t.nDepth+t.nPrompt+t.nGen, bm.kv)
	if err != nil {
		return err
	}
	first := func() int32 {
		if bm.bos >= 0 {
			return bm.bos
		}
		return rng.Int32N(int32(bm.vocab))
	}
	prompt := func(n int) error {
		for done := 0; done < n; {
			k := min(n-done, benchBatch)
			tokens := make([]int32, k)
			for i := range tokens {
				tokens[i] = rng.Int32N(int32(bm.vocab))
			}
			if done == 0 {
				tokens[0] = first()
			}
			if _, err := m.Forward(ctx, tokens, positions(cache.Len(), k), cache, false); err != nil {
				return err
			}
			done += k
		}
		return nil
	}
	gen := func(n int) error {
		tok := first()
		for range n {
			if _, err := m.Forward(ctx, []int32{tok}, []int32{int32(cache.Len())}, cache, false); err != nil {
				return err
			}
			tok = rng.Int32N(int32(bm.vocab))
		}
		return nil
	}
	note := func(format string, args ...any) {
		if bf.progress {
			fmt.Fprintf(stderr, "saji bench: %s, %d threads: "+format+"\n", append([]any{t.name(), t.threads}, args...)...)
		}
	}
	if t.nDepth > 0 {
		note("depth")
		if err := prompt(t.nDepth); err != nil {
			return err
		}
	}
	if !bf.noWarmup {
		note("warm-up")
		if t.nPrompt > 0 {
			if err := prompt(t.nPrompt); err != nil {
				return err
			}
		}
		if t.nGen > 0 {
			cache.Truncate(t.nDepth)
			if err := gen(1); err != nil {
				return err
			}
		}
	}
	for i := range bf.reps {
		cache.Truncate(t.nDepth)
		note("run %d/%d", i+1, bf.reps)
		start := time.Now()
		if t.nPrompt > 0 {
			if err := prompt(t.nPrompt); err != nil {
				return err
			}
		}
		if t.nGen > 0 {
			if err := gen(t.nGen); err != nil {
				return err
			}
		}
		t.samples = append(t.samples, time.Since(start))
	}
	return nil
}

// describeBenchModel reads what the report shows about the model, and the
// first token of each test from its vocabulary.
func describeBenchModel(f *gguf.File, path string) (*benchModel, error) {
	bm := &benchModel{path: path, bos: -1, params: f.ParameterCount()}
	for _, t := range f.Tensors() {
		bm.size += t.Size
	}
	arch, err := f.Architecture()
	if err != nil {
		return nil, err
	}
	desc := arch + " " + sizeLabel(bm.params)
	if ft, err := f.FileType(); err == nil {
		desc += " " + ft.Description()
	}
	bm.desc = desc
	bm.bos = int32(benchBOS(f))
	return bm, nil
}

// benchBOS returns the token the tests start with: BOS when the vocabulary
// adds one (tokenizer.ggml.add_bos_token, which defaults to true for
// SentencePiece vocabularies as in llama.cpp), or -1 for a random token.
// It reads the two keys rather than building the tokenizer, whose tables
// for a 128K vocabulary would add tens of megabytes to the peak memory
// the benchmark reports.
func benchBOS(f *gguf.File) int {
	bos, err := f.BOSTokenID()
	if err != nil {
		slog.Debug("bench: no BOS token; the tests start from a random token", "err", err)
		return -1
	}
	add, err := f.AddBOSToken()
	if err != nil {
		model, _ := f.TokenizerModel()
		add = model == "llama"
	}
	if !add {
		return -1
	}
	return int(bos)
}

// sizeLabel names a parameter count the way model cards do ("1B", "0.5B",
// "8B"); llama.cpp derives its label from the architecture's layer count,
// which agrees for the usual models. Below 100M it is "?B", like an
// unknown llama.cpp model type.
func sizeLabel(params int64) string {
	switch b := float64(params) / 1e9; {
	case b >= 0.95:
		return fmt.Sprintf("%.0fB", b)
	case b >= 0.1:
		return fmt.Sprintf("%.1fB", b)
	}
	return "?B"
}

// kernelsOf returns the backend's kernel set ("avx2", "go"), or "".
func kernelsOf(b kernels.Backend) string {
	if k, ok := b.(interface{ Kernels() string }); ok {
		return k.Kernels()
	}
	return ""
}

// backendName is the table's backend column: the GPU API when layers
// run on the GPU ("CUDA", as llama-bench says), else "CPU" and the kernel
// set.
func (bm *benchModel) backendName() string {
	if bm.gpu != "" {
		return bm.gpu
	}
	if bm.kernels == "" {
		return "CPU"
	}
	return "CPU " + bm.kernels
}

// intList parses a comma-separated list of integers of at least least.
func intList(flag, s string, least int) ([]int, error) {
	var out []int
	for part := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(part))
		if err != nil || n < least {
			return nil, fmt.Errorf("bench: --%s wants comma-separated integers of at least %d, not %q", flag, least, s)
		}
		out = append(out, n)
	}
	return out, nil
}

// benchReporter prints the results as they come.
type benchReporter interface {
	header()
	test(bm *benchModel, t *benchTest)
	spec(t *specTest)
	footer()
}

// markdownReporter prints llama-bench's markdown table.
type markdownReporter struct {
	w          io.Writer
	showKV     bool
	showNGL    bool
	bm         *benchModel // the model of the speculative tests
	specHeader bool        // the speculative tests' header is printed
	printed    bool        // the tests' header is printed
}

// benchColumn is a column of the table: its title and width (negative:
// left-aligned), as llama-bench sizes them.
type benchColumn struct {
	title string
	width int
	value func(bm *benchModel, t *benchTest) string
}

func (r *markdownReporter) columns() []benchColumn {
	cols := []benchColumn{
		{"model", -30, func(bm *benchModel, _ *benchTest) string { return bm.desc }},
		{"size", 10, func(bm *benchModel, _ *benchTest) string { return benchSize(bm.size) }},
		{"params", 10, func(bm *benchModel, _ *benchTest) string { return benchParams(bm.params) }},
		{"backend", -10, func(bm *benchModel, _ *benchTest) string { return bm.backendName() }},
	}
	if r.showNGL {
		cols = append(cols, benchColumn{"ngl", 3, func(bm *benchModel, _ *benchTest) string { return strconv.Itoa(bm.ngl) }})
	}
	cols = append(cols, benchColumn{"threads", 7, func(_ *benchModel, t *benchTest) string { return strconv.Itoa(t.threads) }})
	if r.showKV {
		cols = append(cols,
			benchColumn{"type_k", 6, func(bm *benchModel, _ *benchTest) string { return strings.ToLower(bm.kv.String()) }},
			benchColumn{"type_v", 6, func(bm *benchModel, _ *benchTest) string { return strings.ToLower(bm.kv.String()) }})
	}
	return append(cols,
		benchColumn{"test", 15, func(_ *benchModel, t *benchTest) string { return t.name() }},
		benchColumn{"t/s", 20, func(_ *benchModel, t *benchTest) string {
			mean, std := meanStd(t.rates())
			return fmt.Sprintf("%.2f ± %.2f", mean, std)
		}})
}

// header does nothing: the first test prints the header, so that a run of
// the speculative test alone (--spec-only) prints no empty table.
func (r *markdownReporter) header() {}

// tableHeader prints the tests' header.
func (r *markdownReporter) tableHeader() {
	var title, rule strings.Builder
	for _, c := range r.columns() {
		fmt.Fprintf(&title, "| %*s ", c.width, c.title)
		w := c.width
		if w < 0 {
			fmt.Fprintf(&rule, "| %s- ", strings.Repeat("-", -w-1))
		} else {
			fmt.Fprintf(&rule, "| %s: ", strings.Repeat("-", w-1))
		}
	}
	fmt.Fprintf(r.w, "%s|\n%s|\n", title.String(), rule.String())
}

func (r *markdownReporter) test(bm *benchModel, t *benchTest) {
	if !r.printed {
		r.printed = true
		r.tableHeader()
	}
	var line strings.Builder
	for _, c := range r.columns() {
		fmt.Fprintf(&line, "| %*s ", c.width, c.value(bm, t))
	}
	fmt.Fprintf(r.w, "%s|\n", line.String())
}

func (r *markdownReporter) footer() {
	fmt.Fprintf(r.w, "\nbuild: saji %s (%s)\n", Version, buildRevision())
}

// benchSize formats bytes as llama-bench does: MiB below 1 GiB, else GiB.
func benchSize(n int64) string {
	if n < 1<<30 {
		return fmt.Sprintf("%.2f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
}

// benchParams formats a parameter count as llama-bench does.
func benchParams(n int64) string {
	if n < 1e9 {
		return fmt.Sprintf("%.2f M", float64(n)/1e6)
	}
	return fmt.Sprintf("%.2f B", float64(n)/1e9)
}

// benchRecord is one --json record, with llama-bench's field names.
type benchRecord struct {
	BuildCommit string    `json:"build_commit"`
	BuildNumber int       `json:"build_number"`
	CPUInfo     string    `json:"cpu_info"`
	GPUInfo     string    `json:"gpu_info"`
	Backends    string    `json:"backends"`
	Kernels     string    `json:"kernels"`
	ModelFile   string    `json:"model_filename"`
	ModelType   string    `json:"model_type"`
	ModelSize   int64     `json:"model_size"`
	ModelParams int64     `json:"model_n_params"`
	NBatch      int       `json:"n_batch"`
	NUBatch     int       `json:"n_ubatch"`
	NThreads    int       `json:"n_threads"`
	TypeK       string    `json:"type_k"`
	TypeV       string    `json:"type_v"`
	NGPULayers  int       `json:"n_gpu_layers"`
	UseMmap     bool      `json:"use_mmap"`
	UseMlock    bool      `json:"use_mlock"`
	NPrompt     int       `json:"n_prompt"`
	NGen        int       `json:"n_gen"`
	NDepth      int       `json:"n_depth"`
	TestTime    string    `json:"test_time"`
	AvgNs       int64     `json:"avg_ns"`
	StddevNs    int64     `json:"stddev_ns"`
	AvgTs       float64   `json:"avg_ts"`
	StddevTs    float64   `json:"stddev_ts"`
	SamplesNs   []int64   `json:"samples_ns"`
	SamplesTs   []float64 `json:"samples_ts"`
}

// jsonReporter prints a JSON array of records, one per test, each as soon
// as its test ends.
type jsonReporter struct {
	w     io.Writer
	count int
	bm    *benchModel // the model of the speculative tests
}

func (r *jsonReporter) header() { fmt.Fprint(r.w, "[\n") }

func (r *jsonReporter) test(bm *benchModel, t *benchTest) {
	ns := make([]float64, len(t.samples))
	rec := benchRecord{
		BuildCommit: buildRevision(), CPUInfo: cpuInfo(), Backends: "CPU", Kernels: bm.kernels, NGPULayers: bm.ngl,
		ModelFile: bm.path, ModelType: bm.desc, ModelSize: bm.size, ModelParams: bm.params,
		NBatch: benchBatch, NUBatch: benchBatch, NThreads: t.threads,
		TypeK: strings.ToLower(bm.kv.String()), TypeV: strings.ToLower(bm.kv.String()),
		UseMmap: bm.mmap, UseMlock: bm.mlock, NPrompt: t.nPrompt, NGen: t.nGen, NDepth: t.nDepth,
		TestTime: time.Now().UTC().Format(time.RFC3339), SamplesTs: t.rates(),
	}
	for i, d := range t.samples {
		rec.SamplesNs = append(rec.SamplesNs, d.Nanoseconds())
		ns[i] = float64(d.Nanoseconds())
	}
	avg, std := meanStd(ns)
	rec.AvgNs, rec.StddevNs = int64(avg), int64(std)
	rec.AvgTs, rec.StddevTs = meanStd(rec.SamplesTs)
	if bm.gpu != "" {
		rec.Backends, rec.GPUInfo = bm.gpu, bm.device
	}
	r.write(rec)
}

// write prints rec as the array's next element.
func (r *jsonReporter) write(rec any) {
	b, err := json.MarshalIndent(rec, "  ", "  ")
	if err != nil { // cannot happen: the records have no unencodable values
		b = []byte("{}")
	}
	if r.count > 0 {
		fmt.Fprint(r.w, ",\n")
	}
	r.count++
	fmt.Fprintf(r.w, "  %s", b)
}

func (r *jsonReporter) footer() { fmt.Fprint(r.w, "\n]\n") }

// buildRevision returns the VCS revision Saji was built from, or "unknown".
func buildRevision() string {
	if c := BuildCommit(); c != "unknown" && len(c) >= 7 {
		return c[:7]
	}
	return "unknown"
}

// cpuInfo returns the CPU's model name where the system says it (Linux),
// else the architecture.
func cpuInfo() string {
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}
