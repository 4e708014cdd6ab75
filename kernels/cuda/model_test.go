//go:build linux

package cuda

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"testing"
	"unsafe"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/internal/refdata"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// This file runs whole reference models with every layer, the embeddings
// and the output on the CUDA backend over the emulator, and compares their
// logits with the CPU backend's and llama.cpp's (the reference data that
// engine/model's conformance test uses). The test imports the engine only
// as a test: the kernels never do.

// refFile is the part of a ref/<model>.json file this test reads.
type refFile struct {
	Model struct {
		Path   string `json:"path"`
		NVocab int    `json:"n_vocab"`
	} `json:"model"`
	Prompts []struct {
		Tokens    []int32       `json:"tokens"`
		TopLogits [][][]float64 `json:"top_logits"`
		Greedy    struct {
			Tokens []int32   `json:"tokens"`
			Margin []float64 `json:"margin"`
		} `json:"greedy"`
	} `json:"prompts"`
}

// modelCase is a reference model, its cache type, and how far the GPU's
// logits may be from the CPU's and llama.cpp's.
//
// The GPU multiplies F32 activations where ggml's CPU backend (and so
// Saji's, and llama.cpp's reference logits) rounds them to F16 (F16
// weights) or to 8-bit blocks (quantized weights) first; over an F16
// cache the CPU also rounds queries and accumulates values in F16 (ggml's
// flash attention). Against those the GPU is held to the size of that
// rounding (tol). Against the same CPU backend with every weight
// dequantized to F32 beforehand (exact), which multiplies F32
// activations as the GPU does, it is held to float rounding (1e-3).
type modelCase struct {
	name  string
	kv    quant.Type
	tol   float64 // largest logit difference from the CPU and llama.cpp
	short bool    // run under -short too
}

// exactTol is the largest logit difference from the CPU over
// dequantized weights.
const exactTol = 1e-3

var modelCases = []modelCase{
	{"stories260K", quant.TypeF32, 2e-4, true}, // F32, head_dim 8, n_ff 172
	{"tiny-llama-spm-q4_k_m", quant.TypeF32, 0.4, false},
	{"tiny-llama3-bpe-q4_0", quant.TypeQ8_0, 0.4, false}, // rope factors, Q8_0 cache
	{"tiny-qwen2-f16", quant.TypeF32, 2e-2, false},       // biases, tied embeddings
	{"tiny-qwen3-q6_k", quant.TypeF16, 0.4, false},       // head_dim 128, q/k norms
	{"tiny-gemma3-q8_0", quant.TypeF32, 0.4, true},       // GEGLU, sliding window, logit softcap
}

// f32Weights is the CPU backend with every weight dequantized to F32 when
// it is loaded: its matrix products multiply F32 activations, as the GPU's
// do.
type f32Weights struct{ *cpu.Backend }

// Weight dequantizes data and hands it to the CPU backend as F32.
func (b f32Weights) Weight(typ quant.Type, shape []int, data []byte) (kernels.Tensor, error) {
	if typ == quant.TypeF32 {
		return b.Backend.Weight(typ, shape, data)
	}
	n := 1
	for _, d := range shape {
		n *= d
	}
	vals := make([]float32, n)
	if err := quant.Dequantize(typ, data, vals); err != nil {
		return nil, err
	}
	return b.Backend.Weight(quant.TypeF32, shape, unsafe.Slice((*byte)(unsafe.Pointer(&vals[0])), 4*n))
}

// greedySteps is how many tokens of each greedy continuation the test
// decodes one at a time (the emulator is slow; the steps take one path).
func greedySteps() int {
	if testing.Short() {
		return 2
	}
	return 4
}

func TestModelOnCUDA(t *testing.T) {
	dir := refdata.Dir(t)
	for _, mc := range modelCases {
		if testing.Short() && !mc.short {
			continue
		}
		t.Run(mc.name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(dir, "ref", mc.name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var ref refFile
			if err := json.Unmarshal(raw, &ref); err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Open(filepath.Join(dir, ref.Model.Path))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			g := emuBackend(t)
			onGPU, err := model.Load(context.Background(), f, model.Options{Backend: g})
			if err != nil {
				t.Fatal(err)
			}
			onCPU, err := model.Load(context.Background(), f, model.Options{Backend: cpu.New(1)})
			if err != nil {
				t.Fatal(err)
			}
			exact, err := model.Load(context.Background(), f, model.Options{Backend: f32Weights{cpu.New(1)}})
			if err != nil {
				t.Fatal(err)
			}
			if onGPU.Config().Vocab != ref.Model.NVocab {
				t.Fatalf("vocab %d, want %d", onGPU.Config().Vocab, ref.Model.NVocab)
			}
			p := ref.Prompts[0]
			mc.name = "the CPU"
			worstCPU, worstRef := runBoth(t, onGPU, onCPU, mc, p.Tokens, p.TopLogits, p.Greedy.Tokens, p.Greedy.Margin)
			// Over F16 and Q8_0 caches the CPU rounds queries (ggml's flash
			// attention, Q8_0 dot products) on purpose: the exact run takes
			// an F32 cache.
			exactCase := modelCase{name: mc.name + " over F32 weights", kv: quant.TypeF32, tol: exactTol}
			worstExact, _ := runBoth(t, onGPU, exact, exactCase, p.Tokens, nil, p.Greedy.Tokens, p.Greedy.Margin)
			refText := "not compared (the reference files' cache is F32)"
			if mc.kv == quant.TypeF32 {
				refText = fmt.Sprintf("%.2e", worstRef)
			}
			t.Logf("logits within %.2e of the CPU's over F32 weights, %.2e of the CPU's; llama.cpp's top 20: %s",
				worstExact, worstCPU, refText)
		})
	}
}

// runBoth runs a prompt and greedySteps() decoding steps on both models
// and compares the logits (mc.name names the second model in messages).
// It returns the largest difference from the second model's logits and
// from the reference's top logits.
func runBoth(t *testing.T, onGPU, onCPU model.Model, mc modelCase, tokens []int32, topRef [][][]float64,
	greedy []int32, margin []float64) (worstCPU, worstRef float64) {
	t.Helper()
	ctx := context.Background()
	vocab := onGPU.Config().Vocab
	gc, err := onGPU.NewCache(256, mc.kv)
	if err != nil {
		t.Fatal(err)
	}
	cc, err := onCPU.NewCache(256, mc.kv)
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int32, len(tokens))
	for i := range pos {
		pos[i] = int32(i)
	}
	gl, err := onGPU.Forward(ctx, tokens, pos, gc, true)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := onCPU.Forward(ctx, tokens, pos, cc, true)
	if err != nil {
		t.Fatal(err)
	}
	worstCPU = maxDiff(gl, cl)
	if worstCPU > mc.tol || math.IsNaN(worstCPU) {
		t.Errorf("prompt: logits differ from %s's by up to %.3g (tolerance %.0e)", mc.name, worstCPU, mc.tol)
	}
	if mc.kv == quant.TypeF32 { // the reference files' exact setting
		for i, row := range topRef {
			got := gl[i*vocab : (i+1)*vocab]
			for _, pair := range row {
				worstRef = max(worstRef, math.Abs(float64(got[int(pair[0])])-pair[1]))
			}
		}
		if worstRef > mc.tol {
			t.Errorf("prompt: top logits differ from llama.cpp's by up to %.3g (tolerance %.0e)", worstRef, mc.tol)
		}
	}
	// Greedy decoding through the caches, one token at a time, fed the
	// reference's tokens so both sides take the same path.
	// The tokens are llama.cpp's: checked where its logits are (topRef),
	// where they win by more than the GPU may differ from them.
	gcur := gl[(len(tokens)-1)*vocab:]
	var ccur []float32
	for step := range min(greedySteps(), len(greedy)) {
		if next := argmaxF32(gcur); topRef != nil && next != greedy[step] && margin[step] > 2*max(worstCPU, mc.tol) {
			t.Errorf("greedy step %d: token %d, want %d (margin %.3g)", step, next, greedy[step], margin[step])
		}
		tok, p := []int32{greedy[step]}, []int32{int32(len(tokens) + step)}
		if gcur, err = onGPU.Forward(ctx, tok, p, gc, false); err != nil {
			t.Fatal(err)
		}
		if ccur, err = onCPU.Forward(ctx, tok, p, cc, false); err != nil {
			t.Fatal(err)
		}
		d := maxDiff(gcur, ccur)
		if d > mc.tol || math.IsNaN(d) {
			t.Errorf("greedy step %d: logits differ from %s's by up to %.3g (tolerance %.0e)", step, mc.name, d, mc.tol)
		}
		worstCPU = max(worstCPU, d)
	}
	return worstCPU, worstRef
}

// maxDiff is the largest |a[i]-b[i]| (NaN when a NaN appears).
func maxDiff(a, b []float32) float64 {
	worst := 0.0
	for i := range a {
		d := math.Abs(float64(a[i]) - float64(b[i]))
		if math.IsNaN(d) {
			return math.NaN()
		}
		worst = max(worst, d)
	}
	return worst
}

func argmaxF32(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}

// TestModelLayerSplit runs a model with its first layers on the CPU and
// the rest on the emulated GPU (how engine/offload splits a model that
// does not fit), activations moving between them.
func TestModelLayerSplit(t *testing.T) {
	dir := refdata.Dir(t)
	f, err := gguf.Open(filepath.Join(dir, "models", "stories260K.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g := emuBackend(t)
	c := cpu.New(1)
	whole, err := model.Load(context.Background(), f, model.Options{Backend: c})
	if err != nil {
		t.Fatal(err)
	}
	n := whole.Config().Layers
	layers := make([]kernels.Backend, n)
	for i := n / 2; i < n; i++ {
		layers[i] = g
	}
	split, err := model.Load(context.Background(), f, model.Options{Backend: c, LayerBackends: layers})
	if err != nil {
		t.Fatal(err)
	}
	tokens := []int32{1, 400, 30, 59, 201, 7, 99}
	pos := []int32{0, 1, 2, 3, 4, 5, 6}
	var out [2][]float32
	for i, m := range []model.Model{whole, split} {
		cache, err := m.NewCache(64, quant.TypeF32)
		if err != nil {
			t.Fatal(err)
		}
		if out[i], err = m.Forward(context.Background(), tokens, pos, cache, true); err != nil {
			t.Fatal(err)
		}
	}
	if d := maxDiff(out[1], out[0]); d > 2e-4 || math.IsNaN(d) {
		t.Errorf("split model's logits differ from the CPU's by %.3g", d)
	}
}
