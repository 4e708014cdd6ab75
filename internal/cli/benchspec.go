package cli

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"

	"saji/engine/runner"
	"saji/engine/sample"
	"saji/engine/scheduler"
)

// specTest is the speculative decoding test of 'saji bench': greedy
// generations of nGen tokens from one prompt, without and with the
// drafter in turn, and their decode speeds.
type specTest struct {
	threads, nGen int
	drafter       string // "draft FILE" or "lookup"
	draftMax      int
	plain, spec   []float64 // decode tokens/s of each repetition
	drafted       int       // draft tokens verified over the speculative runs
	accepted      int       // of which accepted
	specSteps     int64     // decode steps of the speculative runs
	specTokens    int       // tokens they generated after the first
	same          bool      // every speculative output was the plain one
}

// name is the test's name: spec128.
func (t *specTest) name() string { return fmt.Sprintf("spec%d", t.nGen) }

// median returns the median of x (0 for none).
func median(x []float64) float64 {
	if len(x) == 0 {
		return 0
	}
	s := slices.Sorted(slices.Values(x))
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// speedup is the ratio of the median speeds.
func (t *specTest) speedup() float64 {
	if p := median(t.plain); p > 0 {
		return median(t.spec) / p
	}
	return 0
}

// acceptance is the share of draft tokens accepted.
func (t *specTest) acceptance() float64 {
	return scheduler.Usage{DraftTokens: t.drafted, AcceptedTokens: t.accepted}.AcceptanceRate()
}

// perStep is the mean number of tokens a speculative decode step made.
func (t *specTest) perStep() float64 {
	if t.specSteps == 0 {
		return 0
	}
	return float64(t.specTokens) / float64(t.specSteps)
}

// specPromptTokens is the length of the random prompt of the speculative
// test when --spec-prompt does not give one.
const specPromptTokens = 32

// runSpecBench runs the speculative test for every thread count and
// generation length, on the CPU with the first GPU layer count, and
// reports each. The plain and the speculative runs alternate (which goes
// first alternates too), so that a machine whose load changes slows both
// alike; the report gives their medians and ratio.
func runSpecBench(ctx context.Context, bf *benchFlags, threads, gens []int, ngl int, rep benchReporter, stderr io.Writer) error {
	spec, err := bf.spec.speculative()
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	drafter := "lookup"
	if spec.Draft != "" {
		drafter = "draft " + spec.Draft
	}
	for _, th := range threads {
		for _, n := range gens {
			if n < 2 {
				continue
			}
			ctxLen := n + spec.DraftMax + 1 + specPromptTokens
			if bf.specPrompt != "" {
				ctxLen += 4 * len(bf.specPrompt) // a token is at least a byte; room to spare
			}
			m, err := runner.Load(ctx, bf.modelPath, runner.LoadOptions{Threads: th, GPULayers: ngl, Memory: bf.memory.options(),
				Scheduler: scheduler.Config{Context: ctxLen, Parallel: 1, MaxSeqs: 1, KVType: bf.kvType}, Speculative: spec})
			if err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			t := &specTest{threads: th, nGen: n, drafter: drafter, draftMax: spec.DraftMax, same: true}
			err = t.run(ctx, m, bf, stderr)
			if cerr := m.Close(); err == nil && cerr != nil {
				err = fmt.Errorf("bench: %w", cerr)
			}
			if err != nil {
				return fmt.Errorf("bench: %s with %d threads: %w", t.name(), th, err)
			}
			rep.spec(t)
		}
	}
	return nil
}

// run runs the test's warm-up and repetitions on m.
func (t *specTest) run(ctx context.Context, m *runner.Model, bf *benchFlags, stderr io.Writer) error {
	req := runner.Request{Prompt: bf.specPrompt, MaxTokens: t.nGen, IgnoreEOS: true, Sampling: sample.Greedy()}
	if bf.specPrompt == "" {
		rng := rand.New(rand.NewPCG(1, 2))
		vocab := int32(m.Tokenizer().NumTokens())
		req.Tokens = make([]int32, specPromptTokens)
		for i := range req.Tokens {
			req.Tokens[i] = rng.Int32N(vocab)
		}
		if bos := m.Tokenizer().BOS(); bos >= 0 && m.Tokenizer().AddBOS() {
			req.Tokens[0] = bos
		}
	}
	type outcome struct {
		tokens []int32
		res    runner.Result
		steps  int64
	}
	gen := func(noDraft bool) (outcome, error) {
		r := req
		r.NoDraft = noDraft
		var o outcome
		before := m.Scheduler().Stats().Steps
		res, err := m.Generate(ctx, r, func(p runner.Piece) error {
			for _, tok := range p.Tokens {
				o.tokens = append(o.tokens, tok.ID)
			}
			return nil
		})
		o.res, o.steps = res, m.Scheduler().Stats().Steps-before
		return o, err
	}
	note := func(format string, args ...any) {
		if bf.progress {
			fmt.Fprintf(stderr, "saji bench: %s, %d threads: "+format+"\n", append([]any{t.name(), t.threads}, args...)...)
		}
	}
	rate := func(o outcome) float64 {
		if o.res.GenTime <= 0 {
			return 0
		}
		return float64(o.res.CompletionTokens-1) / o.res.GenTime.Seconds()
	}
	if !bf.noWarmup {
		note("warm-up")
		for _, noDraft := range []bool{true, false} {
			if _, err := gen(noDraft); err != nil {
				return err
			}
		}
	}
	var want []int32
	for i := range bf.reps {
		order := []bool{true, false}
		if i%2 == 1 {
			order = []bool{false, true}
		}
		for _, noDraft := range order {
			note("run %d/%d, %s", i+1, bf.reps, map[bool]string{true: "plain", false: "speculative"}[noDraft])
			o, err := gen(noDraft)
			if err != nil {
				return err
			}
			note("%.2f t/s, %d of %d draft tokens accepted, %d steps", rate(o), o.res.AcceptedTokens, o.res.DraftTokens, o.steps)
			if noDraft {
				t.plain = append(t.plain, rate(o))
				if want == nil {
					want = o.tokens
				}
				continue
			}
			t.spec = append(t.spec, rate(o))
			t.drafted += o.res.DraftTokens
			t.accepted += o.res.AcceptedTokens
			t.specSteps += o.steps - 1 // the prompt's step made the first token
			t.specTokens += o.res.CompletionTokens - 1
			if want != nil && !slices.Equal(o.tokens, want) {
				t.same = false
			}
		}
	}
	return nil
}

// specColumns are the columns of the speculative test's table.
var specColumns = []struct {
	title string
	width int
	value func(bm *benchModel, t *specTest) string
}{
	{"model", -30, func(bm *benchModel, _ *specTest) string { return bm.desc }},
	{"threads", 7, func(_ *benchModel, t *specTest) string { return fmt.Sprint(t.threads) }},
	{"test", 9, func(_ *benchModel, t *specTest) string { return t.name() }},
	{"drafter", -24, func(_ *benchModel, t *specTest) string { return t.drafter }},
	{"draft max", 9, func(_ *benchModel, t *specTest) string { return fmt.Sprint(t.draftMax) }},
	{"plain t/s", 10, func(_ *benchModel, t *specTest) string { return fmt.Sprintf("%.2f", median(t.plain)) }},
	{"spec t/s", 10, func(_ *benchModel, t *specTest) string { return fmt.Sprintf("%.2f", median(t.spec)) }},
	{"speed-up", 8, func(_ *benchModel, t *specTest) string { return fmt.Sprintf("%.2fx", t.speedup()) }},
	{"accepted", 8, func(_ *benchModel, t *specTest) string { return fmt.Sprintf("%.1f%%", 100*t.acceptance()) }},
	{"tok/step", 8, func(_ *benchModel, t *specTest) string { return fmt.Sprintf("%.2f", t.perStep()) }},
	{"same", 4, func(_ *benchModel, t *specTest) string { return map[bool]string{true: "yes", false: "NO"}[t.same] }},
}

// spec prints the speculative test's line, under a header of its own
// before the first.
func (r *markdownReporter) spec(t *specTest) {
	var line strings.Builder
	if !r.specHeader {
		r.specHeader = true
		var title, rule strings.Builder
		for _, c := range specColumns {
			fmt.Fprintf(&title, "| %*s ", c.width, c.title)
			if w := c.width; w < 0 {
				fmt.Fprintf(&rule, "| %s- ", strings.Repeat("-", -w-1))
			} else {
				fmt.Fprintf(&rule, "| %s: ", strings.Repeat("-", w-1))
			}
		}
		fmt.Fprintf(r.w, "\nSpeculative decoding, greedy (median decode t/s of plain and speculative runs in turn):\n\n%s|\n%s|\n", title.String(), rule.String())
	}
	for _, c := range specColumns {
		fmt.Fprintf(&line, "| %*s ", c.width, c.value(r.bm, t))
	}
	fmt.Fprintf(r.w, "%s|\n", line.String())
}

// specRecord is the --json record of a speculative test.
type specRecord struct {
	Test         string    `json:"test"`
	ModelFile    string    `json:"model_filename"`
	ModelType    string    `json:"model_type"`
	NThreads     int       `json:"n_threads"`
	NGen         int       `json:"n_gen"`
	UseMmap      bool      `json:"use_mmap"` // both models' files mapped (else read: --no-mmap)
	Drafter      string    `json:"drafter"`
	DraftMax     int       `json:"draft_max"`
	PlainTs      []float64 `json:"plain_samples_ts"`
	SpecTs       []float64 `json:"spec_samples_ts"`
	PlainMedian  float64   `json:"plain_median_ts"`
	SpecMedian   float64   `json:"spec_median_ts"`
	Speedup      float64   `json:"speedup"`
	DraftTokens  int       `json:"draft_n"`
	Accepted     int       `json:"draft_n_accepted"`
	Acceptance   float64   `json:"acceptance_rate"`
	TokensPerStp float64   `json:"tokens_per_step"`
	SameOutput   bool      `json:"same_output"`
}

// spec prints the speculative test's record.
func (r *jsonReporter) spec(t *specTest) {
	rec := specRecord{Test: t.name(), ModelFile: r.bm.path, ModelType: r.bm.desc, NThreads: t.threads, NGen: t.nGen,
		UseMmap: r.bm.mmap, Drafter: t.drafter, DraftMax: t.draftMax, PlainTs: t.plain, SpecTs: t.spec, PlainMedian: median(t.plain),
		SpecMedian: median(t.spec), Speedup: t.speedup(), DraftTokens: t.drafted, Accepted: t.accepted,
		Acceptance: t.acceptance(), TokensPerStp: t.perStep(), SameOutput: t.same}
	r.write(rec)
}
