package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
	"saji/internal/refdata"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// refModel is the part of a ref/<model>.json file the tests use.
type refModel struct {
	Model struct {
		Path   string        `json:"path"`
		Arch   string        `json:"architecture"`
		NVocab int           `json:"n_vocab"`
		Type   *int          `json:"file_type"`
		SHA256 string        `json:"sha256"`
		Synth  *synth.Recipe `json:"synth"` // a synthetic model the test writes
	} `json:"model"`
	Config struct {
		// PromptTail > 0: llama.cpp read each prompt in two batches, its
		// last PromptTail tokens alone (refgen's Tails).
		PromptTail int `json:"prompt_tail"`
	} `json:"config"`
	Prompts []struct {
		ID        string        `json:"id"`
		Tokens    []int32       `json:"tokens"`
		TopLogits [][][]float64 `json:"top_logits"`
		Last      []float32     `json:"last_logits"`
		Greedy    struct {
			Tokens []int32       `json:"tokens"`
			Margin []float64     `json:"margin"`
			Top5   [][][]float64 `json:"top5"`
		} `json:"greedy"`
	} `json:"prompts"`
}

// shortSet are the reference models checked under -short: one per
// architecture and weight format family.
var shortSet = map[string]bool{
	"stories260K":           true,
	"llama-2-tiny-random":   true,
	"tiny-llama-spm-q4_k_m": true,
	"tiny-llama3-bpe-q4_0":  true,
	"tiny-qwen2-f16":        true,
	"tiny-qwen3-q6_k":       true,
	"tiny-gemma3-q8_0":      true,
}

// projectShort are the project's reference models the pure-Go oracle
// checks under -short, and arm64's kernels too (the arm64 tests run under
// emulation, -short): a few of the new architectures and weight-type
// families. The amd64 SIMD kernels, which run in a tenth of the time,
// check all of them; the full run checks every one on both.
var projectShort = map[string]bool{
	"tiny-qwen3moe-q4_k_m":    true,
	"tiny-gpt-oss-mxfp4_moe":  true,
	"tiny-gemma2-q8_0":        true,
	"tiny-mistral3-q4_k_m":    true,
	"tiny-granite-q4_0":       true,
	"tiny-llama-pure-iq2_xxs": true,
	"tiny-llama-pure-iq1_m":   true,
	"tiny-lfm2-q4_k_m":        true,
	"tiny-gemma4-q8_0":        true,
}

// refModels lists the reference files to check: every primary
// <model>.json (F32 cache, no flash attention) and every <model>.kvf16.json
// (llama.cpp's defaults: F16 cache, flash attention) of the shared data,
// and the project's own (testdata/ref: synthetic models of the
// architectures and types the shared data lacks), fewer under -short
// (all of the project's for the SIMD kernels, projectShort for the
// oracle) and the race detector.
func refModels(t *testing.T, simd bool) []string {
	var paths []string
	for _, dir := range []string{filepath.Join(refdata.Dir(t), "ref"), projectRefDir(t)} {
		ps, err := filepath.Glob(filepath.Join(dir, "*.json"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ps...)
	}
	var names []string
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		if raceEnabled && name != "stories260K" && name != "tiny-gemma3-q4_k_m" {
			continue // the race detector slows the forward pass tenfold
		}
		project := filepath.Dir(p) == projectRefDir(t)
		if testing.Short() && !(shortSet[name] || name == "tiny-qwen3-q4_k_m.kvf16" || name == "tiny-gemma3-q8_0.kvf16" ||
			(project && ((simd && runtime.GOARCH == "amd64") || projectShort[name]))) {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

// projectRefDir returns the project's own reference figures folder,
// testdata/ref at the module root.
func projectRefDir(t testing.TB) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for d := wd; filepath.Dir(d) != d; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, "testdata", "ref")
		}
	}
	t.Fatal("model: no go.mod above " + wd)
	return ""
}

// synthModels holds the synthetic reference models written so far by this
// test binary, by recipe.
var synthModels = struct {
	sync.Mutex
	dir   string
	paths map[synth.Recipe]string
}{paths: map[synth.Recipe]string{}}

// synthModel writes the recipe's model (once per test binary) and checks
// that it is the very file llama.cpp's figures came from.
func synthModel(t testing.TB, r synth.Recipe, sum string) string {
	t.Helper()
	synthModels.Lock()
	defer synthModels.Unlock()
	if p, ok := synthModels.paths[r]; ok {
		return p
	}
	if synthModels.dir == "" {
		d, err := os.MkdirTemp("", "saji-refmodels")
		if err != nil {
			t.Fatal(err)
		}
		synthModels.dir = d
	}
	p := filepath.Join(synthModels.dir, r.Name()+".gguf")
	got, _, err := r.Write(context.Background(), refdata.Path(t, r.Vocab), p)
	if err != nil {
		t.Fatal(err)
	}
	if got != sum {
		t.Fatalf("%s: the synthetic writer now writes a file of sha256 %s, not the %s llama.cpp's figures came from; "+
			"regenerate them with internal/tools/refgen (testdata/README.md)", r.Name(), got, sum)
	}
	synthModels.paths[r] = p
	return p
}

// loadRef loads a reference model on backend (nil: the pure-Go oracle,
// which the strict tolerances are for).
func loadRef(t testing.TB, name string, backend ...kernels.Backend) (*refModel, Model, *gguf.File) {
	t.Helper()
	dir := refdata.Dir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "ref", name+".json"))
	if errors.Is(err, fs.ErrNotExist) {
		raw, err = os.ReadFile(filepath.Join(projectRefDir(t), name+".json"))
	}
	if err != nil {
		t.Fatal(err)
	}
	var ref refModel
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ref.Model.Path)
	if ref.Model.Synth != nil {
		path = synthModel(t, *ref.Model.Synth, ref.Model.SHA256)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	var b kernels.Backend = cpu.NewReference(2)
	if len(backend) > 0 {
		b = backend[0]
	}
	m, err := Load(context.Background(), f, Options{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	return &ref, m, f
}

// tolerance is the largest logit difference from llama.cpp accepted: 1e-3
// for F32 and F16 weights, 2e-3 for quantized weights. Saji in fact
// matches to print precision (about 1e-7): the CPU backend follows the
// float operations of ggml's x86-64 build, which matters because llama.cpp
// rounds activations (to F16, or to 8-bit quants) before each matrix
// product, and a last-bit difference upstream can flip one rounding and
// move the logits by 1e-3 (F16) to 1e-1 (8-bit).
func tolerance(name string) float64 {
	name = strings.Replace(name, "-f32.kvf16", "-f32", 1)
	name = strings.Replace(name, "-f16.kvf16", "-f16", 1)
	switch {
	case name == "stories260K.kvf16":
		// Its primary logits differ from llama.cpp's by 1e-5 (a last-bit
		// difference not yet traced, with head_dim 8 and n_ff 172 taking
		// ggml's scalar tails); flash attention's F16 value accumulator
		// turns that into 3e-3 here.
		return 5e-3
	case strings.HasSuffix(name, "-f32"), strings.HasSuffix(name, "-f16"),
		strings.HasPrefix(name, "stories260K"), strings.HasPrefix(name, "llama-2-tiny-random"):
		return 1e-3
	}
	return 2e-3
}

// promptResult is the comparison of one prompt.
type promptResult struct {
	worstTop, worstLast float64
	exact, positions    int // positions within the strict tolerance
	matched             int // greedy tokens equal before the first difference
}

// TestConformance compares logits and greedy continuations with llama.cpp's
// (one batch for the prompt, then one token at a time through the cache)
// for every reference file: F32 cache for the primary files, F16 cache for
// the .kvf16 files, whose greedy runs are checked for 8 steps to keep the
// test fast (the later steps take the same path).
func TestConformance(t *testing.T) { testConformance(t, nil, 1) }

// TestConformanceSIMD runs the conformance test on the SIMD kernels. They
// reproduce the oracle's float operations bit for bit (the kernels' own
// tests check that), so they are held to the same tolerances: a last-bit
// difference anywhere would flip an activation's rounding and show here.
// Every kernel set the CPU runs is checked (avx2, avx-vnni and
// avx512-vnni on a recent x86-64 CPU); -short checks the newest only.
func TestConformanceSIMD(t *testing.T) {
	sets := cpu.KernelSets()
	if len(sets) == 0 || os.Getenv("SAJI_SIMD") == "off" {
		t.Skip("model: this CPU has no SIMD kernels (or SAJI_SIMD=off)")
	}
	for i, name := range sets {
		t.Run(name, func(t *testing.T) {
			if i < len(sets)-1 && testing.Short() {
				t.Skip("model: -short checks the newest kernel set only")
			}
			b, err := cpu.NewWithKernels(2, name)
			if err != nil {
				t.Fatal(err)
			}
			testConformance(t, b, 1)
		})
	}
}

func testConformance(t *testing.T, b kernels.Backend, tolScale float64) {
	names := refModels(t, b != nil)
	var table []string
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			var ref *refModel
			var m Model
			if b != nil {
				ref, m, _ = loadRef(t, name, b)
			} else {
				ref, m, _ = loadRef(t, name)
			}
			tol := tolerance(name) * tolScale
			kv := quant.TypeF32
			if strings.HasSuffix(name, ".kvf16") {
				kv = quant.TypeF16
			}
			if m.Config().Vocab != ref.Model.NVocab {
				t.Fatalf("vocab %d, want %d", m.Config().Vocab, ref.Model.NVocab)
			}
			var sum promptResult
			total := 0
			for _, p := range ref.Prompts {
				greedy := p.Greedy.Tokens
				if kv == quant.TypeF16 {
					greedy = greedy[:min(8, len(greedy))]
				}
				r := runPrompt(t, m, kv, ref.Config.PromptTail, p.Tokens, p.TopLogits, p.Last, greedy, p.Greedy.Margin, p.Greedy.Top5, tol)
				sum.worstTop, sum.worstLast = max(sum.worstTop, r.worstTop), max(sum.worstLast, r.worstLast)
				sum.exact += r.exact
				sum.positions += r.positions
				sum.matched += r.matched
				total += len(greedy)
			}
			table = append(table, fmt.Sprintf("%-24s %9.2e %9.2e %8d/%d %7d/%d",
				name, sum.worstTop, sum.worstLast, sum.matched, total, sum.exact, sum.positions))
		})
	}
	t.Logf("\nmodel                    worst-top worst-last greedy-matched within-tol\n%s", strings.Join(table, "\n"))
}

// runPrompt checks one prompt, read in one batch, or in two with its last
// tail tokens alone.
func runPrompt(t *testing.T, m Model, kv quant.Type, tail int, tokens []int32, topRef [][][]float64, lastRef []float32,
	greedyRef []int32, margin []float64, top5 [][][]float64, tol float64) promptResult {
	t.Helper()
	ctx := context.Background()
	vocab := m.Config().Vocab
	cache, err := m.NewCache(512, kv)
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int32, len(tokens))
	for i := range pos {
		pos[i] = int32(i)
	}
	cut := len(tokens)
	if tail > 0 && tail < len(tokens) {
		cut -= tail
	}
	logits, err := m.Forward(ctx, tokens[:cut], pos[:cut], cache, true)
	if err != nil {
		t.Fatal(err)
	}
	if cut < len(tokens) {
		rest, err := m.Forward(ctx, tokens[cut:], pos[cut:], cache, true)
		if err != nil {
			t.Fatal(err)
		}
		logits = append(logits, rest...)
	}
	var r promptResult
	r.positions = len(topRef)
	for i, row := range topRef {
		got := logits[i*vocab : (i+1)*vocab]
		worst := 0.0
		for _, pair := range row {
			worst = max(worst, math.Abs(float64(got[int(pair[0])])-pair[1]))
		}
		r.worstTop = max(r.worstTop, worst)
		if worst <= tol {
			r.exact++
		} else {
			t.Errorf("position %d: top-20 logits differ by up to %.2e (tolerance %.0e)", i, worst, tol)
		}
	}
	last := logits[(len(tokens)-1)*vocab:]
	for id, want := range lastRef {
		r.worstLast = max(r.worstLast, math.Abs(float64(last[id]-want)))
	}
	if r.worstLast > tol {
		t.Errorf("last-position logits differ by up to %.2e (tolerance %.0e)", r.worstLast, tol)
	}
	measured := max(r.worstTop, r.worstLast)
	// Top-20 ids: the reference's order must be ours wherever neighbours
	// are further apart than twice the measured error.
	for i, row := range topRef {
		ours := topK(logits[i*vocab:(i+1)*vocab], len(row))
		for k := range row {
			if int(ours[k]) == int(row[k][0]) {
				continue
			}
			gapPrev := k > 0 && row[k-1][1]-row[k][1] <= 2*measured
			gapNext := k+1 < len(row) && row[k][1]-row[k+1][1] <= 2*measured
			if !gapPrev && !gapNext && k+1 < len(row) {
				t.Errorf("position %d rank %d: id %d, want %d", i, k, ours[k], int(row[k][0]))
			}
		}
	}
	// Greedy: one token at a time through the cache.
	// The error measured so far grows with each step's own error over the
	// reference's top-5 logits.
	cur := last
	for step := range greedyRef {
		for _, pair := range top5[step] {
			measured = max(measured, math.Abs(float64(cur[int(pair[0])])-pair[1]))
		}
		next := argmax(cur)
		if next != greedyRef[step] {
			if margin[step] > 2*measured {
				t.Errorf("greedy step %d: token %d, want %d (margin %.3g, measured error %.2e)", step, next, greedyRef[step], margin[step], measured)
			}
			break
		}
		r.matched++
		if step == len(greedyRef)-1 {
			break
		}
		cur, err = m.Forward(ctx, []int32{next}, []int32{int32(len(tokens) + step)}, cache, false)
		if err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func argmax(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}

func topK(x []float32, k int) []int32 {
	idx := make([]int32, len(x))
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
	return idx[:k]
}

// TestMain removes the synthetic reference models the tests wrote.
func TestMain(m *testing.M) {
	code := m.Run()
	if synthModels.dir != "" {
		os.RemoveAll(synthModels.dir)
	}
	os.Exit(code)
}
