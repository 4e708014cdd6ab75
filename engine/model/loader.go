package model

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"saji/engine/gguf"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// loader wraps a GGUF file's tensors and hyperparameters for an
// architecture. Like graph, it keeps its first error so that an
// architecture's loading code is a flat list of tensors.
type loader struct {
	// ctx cancels the load (nil: it cannot be cancelled): wrap fails
	// once it is done, so that no more weights are read or repacked.
	ctx           context.Context
	f             *gguf.File
	arch          string
	backend       kernels.Backend
	layerBackends []kernels.Backend
	// describe reads the hyperparameters and checks the tensor table
	// without touching the weights (Describe): tensors are not wrapped.
	describe bool
	// outNorm names the output norm where the architecture does not call
	// it output_norm.weight (LFM2's token_embd_norm.weight).
	outNorm string
	// releases drops the file's bytes of the weights this load repacks
	// (cpu.Release), shared among them so that no huge page is split
	// while bytes in it are still read.
	releases cpu.Releases
	err      error
}

// outNormName returns the name of the output norm's tensor.
func (ld *loader) outNormName() string {
	if ld.outNorm != "" {
		return ld.outNorm
	}
	return "output_norm.weight"
}

func (ld *loader) fail(err error) {
	if ld.err == nil {
		ld.err = err
	}
}

// layerBackend returns the backend of layer i.
func (ld *loader) layerBackend(i int) kernels.Backend {
	if i < len(ld.layerBackends) && ld.layerBackends[i] != nil {
		return ld.layerBackends[i]
	}
	return ld.backend
}

// shapeOf returns a tensor's shape as ints, and whether it exists.
func (ld *loader) shapeOf(name string) (gguf.TensorInfo, []int, bool) {
	ti, ok := ld.f.Tensor(name)
	if !ok {
		return ti, nil, false
	}
	shape := make([]int, len(ti.Shape))
	for i, d := range ti.Shape {
		shape[i] = int(d)
	}
	return ti, shape, true
}

// has reports whether the file has a tensor called name.
func (ld *loader) has(name string) bool {
	_, ok := ld.f.Tensor(name)
	return ok
}

// tensor wraps the tensor called name on backend b, checking its shape
// against want (trailing 1s may be omitted on either side).
func (ld *loader) tensor(b kernels.Backend, name string, want ...int) kernels.Tensor {
	ti, shape, ok := ld.checked(name, want...)
	if !ok {
		return nil
	}
	return ld.wrap(b, ti, shape, 0, rowsOf(shape))
}

// checked returns the tensor called name and its shape once it has checked
// the shape against want (as tensor does); false, with the failure
// recorded, when it is missing or of another shape.
func (ld *loader) checked(name string, want ...int) (gguf.TensorInfo, []int, bool) {
	if ld.err != nil {
		return gguf.TensorInfo{}, nil, false
	}
	ti, shape, ok := ld.shapeOf(name)
	if !ok {
		ld.fail(fmt.Errorf("tensor %s is missing", name))
		return ti, nil, false
	}
	if !sameDims(shape, want) {
		ld.fail(fmt.Errorf("tensor %s has shape %v, want %v", name, shape, want))
		return ti, nil, false
	}
	return ti, shape, true
}

// optional is tensor for a tensor that may be absent (nil then).
func (ld *loader) optional(b kernels.Backend, name string, want ...int) kernels.Tensor {
	if ld.err != nil || !ld.has(name) {
		return nil
	}
	return ld.tensor(b, name, want...)
}

// rowRange wraps rows [from, from+n) of the 2-D tensor called name (of row
// length cols) as a tensor of its own: a zero-copy slice of a fused weight.
// For a 1-D tensor (a fused bias) it takes elements [from, from+n).
func (ld *loader) rowRange(b kernels.Backend, name string, cols, from, n int) kernels.Tensor {
	if ld.err != nil {
		return nil
	}
	ti, shape, ok := ld.shapeOf(name)
	if !ok {
		ld.fail(fmt.Errorf("tensor %s is missing", name))
		return nil
	}
	if len(shape) == 1 || (len(shape) == 2 && shape[1] == 1) {
		if from < 0 || from+n > shape[0] || ti.Type != quant.TypeF32 {
			ld.fail(fmt.Errorf("tensor %s (%v %v): cannot take elements [%d, %d)", name, ti.Type, shape, from, from+n))
			return nil
		}
		data, ok := ld.data(ti)
		if !ok {
			return nil
		}
		t, err := b.Weight(ti.Type, []int{n}, data[4*from:4*(from+n)])
		ld.fail(err)
		return t
	}
	if len(shape) != 2 || shape[0] != cols || from < 0 || from+n > shape[1] {
		ld.fail(fmt.Errorf("tensor %s has shape %v: cannot take rows [%d, %d) of length %d", name, shape, from, from+n, cols))
		return nil
	}
	return ld.wrap(b, ti, shape, from, n)
}

// data returns ti's bytes; false when describing (no weight is read) or
// on an error, which it records.
func (ld *loader) data(ti gguf.TensorInfo) ([]byte, bool) {
	if ld.describe {
		return nil, false
	}
	data, err := ld.f.Data(ti)
	if err != nil {
		ld.fail(err)
		return nil, false
	}
	return data, true
}

// wrap makes rows [from, from+n) of ti a backend tensor.
func (ld *loader) wrap(b kernels.Backend, ti gguf.TensorInfo, shape []int, from, n int) kernels.Tensor {
	if ld.ctx != nil && ld.ctx.Err() != nil {
		ld.fail(ld.ctx.Err())
		return nil
	}
	cols := 1
	if len(shape) > 0 {
		cols = shape[0]
	}
	if !ti.Type.Known() || ti.Type.BlockSize() == 0 || cols%ti.Type.BlockSize() != 0 {
		ld.fail(fmt.Errorf("tensor %s: type %v does not fit rows of %d", ti.Name, ti.Type, cols))
		return nil
	}
	data, ok := ld.data(ti)
	if !ok {
		return nil
	}
	rb := cols / ti.Type.BlockSize() * ti.Type.TypeSize()
	if from != 0 || n != rowsOf(shape) {
		shape = []int{cols, n}
	}
	t, err := b.Weight(ti.Type, shape, data[from*rb:(from+n)*rb])
	if err == nil {
		t, err = repack(b, t, &ld.releases)
	}
	if err != nil {
		ld.fail(fmt.Errorf("tensor %s: %w", ti.Name, err))
		return nil
	}
	return t
}

// repack returns weight t (wrapped once, read by the model alone; an
// expert's matrix alike) in the CPU's interleaved layout where its kernels
// have one (cpu.Repack); where that copy serves every use, the file's
// bytes of t are dropped from memory through r (cpu.Release). Other
// backends' weights are returned as they are.
//
// Experts take the layout as dense weights do. They once waited, but for
// MXFP4's, for SAJI_REPACK=on: in the Go heap's 4 KiB pages, the sixteen-row
// Q4_K experts took qwen3-30b-a3b's decode from 10.6 to 7.2 t/s. In huge
// pages (cpu.Repack's memory since) they take it from 12.0 and 12.5 to 14.1
// and 15.3 t/s (2 threads, --no-mmap, AVX-512).
func repack(b kernels.Backend, t kernels.Tensor, r *cpu.Releases) (kernels.Tensor, error) {
	c, ok := b.(*cpu.Backend)
	if !ok {
		return t, nil
	}
	t, err := c.Repack(t)
	if err != nil {
		return nil, err
	}
	c.Release(t, r)
	return t, nil
}

// gatedFFN loads layer prefix p's gated feed-forward network of n values
// over e: ffn_gate, ffn_up and ffn_down with the name suffix (""; "_shexp"
// for a shared expert).
func (ld *loader) gatedFFN(b kernels.Backend, p, suffix string, e, n int) denseFFN {
	return denseFFN{
		gate: ld.tensor(b, p+"ffn_gate"+suffix+".weight", e, n),
		up:   ld.tensor(b, p+"ffn_up"+suffix+".weight", e, n),
		down: ld.tensor(b, p+"ffn_down"+suffix+".weight", n, e),
	}
}

// floats reads a small tensor (such as rope factors) to the host; nil when
// the tensor is absent.
func (ld *loader) floats(name string, n int) []float32 {
	if ld.err != nil || !ld.has(name) {
		return nil
	}
	ti, _, _ := ld.shapeOf(name)
	data, ok := ld.data(ti)
	if !ok {
		return nil
	}
	out := make([]float32, ti.Elements())
	if err := quant.Dequantize(ti.Type, data, out); err != nil {
		ld.fail(fmt.Errorf("tensor %s: %w", name, err))
		return nil
	}
	if len(out) != n {
		ld.fail(fmt.Errorf("tensor %s has %d values, want %d", name, len(out), n))
		return nil
	}
	return out
}

func rowsOf(shape []int) int {
	n := 1
	for _, d := range shape[min(1, len(shape)):] {
		n *= d
	}
	return n
}

// sameDims compares shapes ignoring trailing 1s.
func sameDims(a, b []int) bool {
	trim := func(s []int) []int {
		for len(s) > 0 && s[len(s)-1] == 1 {
			s = s[:len(s)-1]
		}
		return s
	}
	a, b = trim(a), trim(b)
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Hyperparameter accessors: required values fail the load when absent,
// optional ones fall back to a default.

func (ld *loader) required(name string, v uint64, err error) int {
	if err != nil {
		ld.fail(fmt.Errorf("hyperparameter %s: %w", name, err))
		return 0
	}
	if v == 0 || v > 1<<30 {
		ld.fail(fmt.Errorf("hyperparameter %s = %d is out of range", name, v))
		return 0
	}
	return int(v)
}

func (ld *loader) orDefault(v uint64, err error, def int) int {
	if errors.Is(err, gguf.ErrNotFound) {
		return def
	}
	if err != nil {
		ld.fail(err)
		return def
	}
	if v > 1<<30 {
		ld.fail(fmt.Errorf("hyperparameter value %d is out of range", v))
		return def
	}
	return int(v)
}

func (ld *loader) floatOr(key string, def float32) float32 {
	return float32(optional(ld, key, ld.f.Float, float64(def)))
}

func (ld *loader) boolOr(key string, def bool) bool { return optional(ld, key, ld.f.Bool, def) }

func (ld *loader) stringOr(key, def string) string { return optional(ld, key, ld.f.String, def) }

// optional reads key with get: def when the file lacks it, def and a
// failed load when it holds something else than get reads.
func optional[T any](ld *loader, key string, get func(string) (T, error), def T) T {
	v, err := get(key)
	if errors.Is(err, gguf.ErrNotFound) {
		return def
	}
	if err != nil {
		ld.fail(fmt.Errorf("hyperparameter %s: %w", key, err))
		return def
	}
	return v
}

// isArray reports whether the file holds key (with "%s" for the
// architecture) as an array.
func (ld *loader) isArray(key string) bool {
	k, err := ld.f.ArchKey(key)
	if err != nil {
		return false
	}
	v, ok := ld.f.Value(k)
	return ok && v.IsArray()
}

// ffnRows returns the rows of the first layer's ffn_up weight (n_ff), 0
// when it is not a matrix: the layers' shape checks then say so.
func (ld *loader) ffnRows() int {
	if _, s, ok := ld.shapeOf("blk.0.ffn_up.weight"); ok && len(s) == 2 {
		return s[1]
	}
	return 0
}

// hparams are the hyperparameters every supported architecture has.
type hparams struct {
	Config
	eps       float32 // RMSNorm epsilon
	ropeDims  int
	ropeBase  float32
	ropeScale float32 // linear scaling (1/factor), 1 when none
	ropeYaRN  kernels.YaRN
	ctxOrig   int // rope.scaling.original_context_length (ContextTrain when absent)

	// The keys below belong to some architectures only. Each is 0 when the
	// file lacks it, and the architecture applies llama.cpp's default.
	window       int     // attention.sliding_window
	swaPeriod    int     // attention.sliding_window_pattern (-1 when absent or an array)
	swaBase      float32 // rope.freq_base_swa
	attnSoftcap  float32 // attn_logit_softcapping (Gemma 2)
	finalSoftcap float32 // final_logit_softcapping (Gemma 2 and 3)
	attnScale    float32 // attention.scale: the scale of q·k (Granite)
	embedScale   float32 // embedding_scale (Granite)
	resScale     float32 // residual_scale (Granite)
	logitScale   float32 // logit_scale: logits are divided by it (Granite)
	attnTemp     float32 // attention.temperature_scale (Mistral 3, Llama 4)
	noRope       bool    // rope.scaling.finetuned is false: Granite's switch for no rotation
	// layerKVHeads is each layer's KV head count where the file holds
	// attention.head_count_kv as an array (0 marks a layer without
	// attention: LFM2's convolutions), nil where it holds one count.
	layerKVHeads []int
}

// rope returns the rotary embedding of the file's keys: heads of HeadDim,
// ropeDims rotating in the NeoX layout or in adjacent pairs, the base, the
// scaling and YaRN. Architectures add their frequency factors.
func (h hparams) rope(neox bool) kernels.RopeParams {
	return kernels.RopeParams{HeadDim: h.HeadDim, Dims: h.ropeDims, Base: h.ropeBase, FreqScale: h.ropeScale, Neox: neox, YaRN: h.ropeYaRN}
}

// ropeScaling reads the rope scaling keys into h as llama.cpp does
// (llama-model.cpp's hyperparameters, llama-context.cpp's YaRN factors):
// the type (linear when absent; none, linear, longrope and yarn), the
// factor (1/ropeScale), and for yarn the ramp with llama.cpp's default
// betas 32 and 1 over the original context (the training context when the
// key is absent), and the attention factor that cancels the magnitude
// correction the kernel applies, 1/(1+0.1·ln factor) times the mscale
// 1+0.1·ln factor, times rope.scaling.attn_factor.
func (ld *loader) ropeScaling(h *hparams) {
	h.ropeScale = 1
	factor := ld.floatOr("%s.rope.scaling.factor", 0)
	if factor == 0 {
		factor = ld.floatOr("%s.rope.scale_linear", 0)
	}
	if factor < 0 || factor != factor {
		ld.fail(fmt.Errorf("hyperparameter rope.scaling.factor %g is not positive", factor))
		return
	}
	if factor != 0 {
		h.ropeScale = 1 / factor
	}
	attn := ld.floatOr("%s.rope.scaling.attn_factor", 1)
	switch typ := strings.ToLower(ld.stringOr("%s.rope.scaling.type", "linear")); typ {
	case "none":
		h.ropeScale = 1
	case "linear", "longrope":
	case "yarn":
		orig := h.ctxOrig
		if orig <= 0 {
			ld.fail(errors.New("rope.scaling.type yarn needs rope.scaling.original_context_length or context_length"))
			return
		}
		// llama.cpp's get_mscale(factor, 1) (over get_mscale(factor,
		// yarn_log_multiplier) where the file has one) times the inverse
		// of the kernel's correction: 1 but for rounding when factor > 1.
		f := 1 / h.ropeScale
		lnf := float32(math.Log(float64(f)))
		getMscale := func(m float32) float32 {
			if f <= 1 {
				return 1
			}
			return fma32(0.1*m, lnf, 1)
		}
		betaFast, betaSlow, logMul := float32(32), float32(1), float32(0)
		if yarnKeyArchs[h.Arch] {
			betaFast = ld.floatOr("%s.rope.scaling.yarn_beta_fast", betaFast)
			betaSlow = ld.floatOr("%s.rope.scaling.yarn_beta_slow", betaSlow)
			logMul = ld.floatOr("%s.rope.scaling.yarn_log_multiplier", 0)
		}
		mscale := getMscale(1)
		if logMul != 0 {
			mscale = getMscale(1) / getMscale(logMul)
		}
		mscale *= 1 / fma32(0.1, lnf, 1)
		h.ropeYaRN = kernels.YaRN{ExtFactor: 1, AttnFactor: mscale * attn, BetaFast: betaFast, BetaSlow: betaSlow, OrigContext: orig}
		return
	default:
		ld.fail(fmt.Errorf("hyperparameter rope.scaling.type %q is not supported (none, linear, longrope or yarn)", typ))
		return
	}
	if attn != 1 {
		h.ropeYaRN.AttnFactor = attn
	}
}

// yarnKeyArchs are the architectures whose YaRN betas and log multiplier
// llama.cpp reads from the file (rope.scaling.yarn_beta_fast,
// yarn_beta_slow, yarn_log_multiplier); the others take the defaults.
var yarnKeyArchs = map[string]bool{"mistral3": true}

// fma32 is kernels.FMA32, a float32 fused multiply-add.
func fma32(a, b, c float32) float32 { return kernels.FMA32(a, b, c) }

// commonHParams reads the usual <arch>.* keys, with llama.cpp's defaults.
func (ld *loader) commonHParams() hparams {
	var h hparams
	f := ld.f
	h.Arch = ld.arch
	v, err := f.BlockCount()
	h.Layers = ld.required("block_count", v, err)
	v, err = f.EmbeddingLength()
	h.Embd = ld.required("embedding_length", v, err)
	v, err = f.HeadCount()
	h.Heads = ld.required("attention.head_count", v, err)
	h.KVHeads = ld.kvHeads(&h)
	if ld.err != nil {
		return h
	}
	if h.Heads%h.KVHeads != 0 {
		ld.fail(fmt.Errorf("%d heads are not a multiple of %d KV heads", h.Heads, h.KVHeads))
	}
	v, err = f.KeyLength()
	h.HeadDim = ld.orDefault(v, err, h.Embd/h.Heads)
	v, err = f.ValueLength()
	h.ValueDim = ld.orDefault(v, err, h.HeadDim)
	v, err = f.RopeDimensionCount()
	h.ropeDims = ld.orDefault(v, err, h.HeadDim)
	v, err = f.ContextLength()
	h.ContextTrain = ld.orDefault(v, err, 0)
	eps, err := f.RMSEpsilon()
	if err != nil {
		ld.fail(fmt.Errorf("hyperparameter attention.layer_norm_rms_epsilon: %w", err))
	}
	h.eps = float32(eps)
	h.ropeBase = ld.floatOr("%s.rope.freq_base", 10000)
	v, err = f.Uint(gguf.KeyRopeScalingOrigCtxLen)
	h.ctxOrig = ld.orDefault(v, err, h.ContextTrain)
	ld.ropeScaling(&h)
	if h.ropeDims > h.HeadDim || h.ropeDims%2 != 0 {
		ld.fail(fmt.Errorf("rope dimension count %d does not fit heads of %d", h.ropeDims, h.HeadDim))
	}
	ld.archHParams(&h)
	if ti, shape, ok := ld.shapeOf("token_embd.weight"); ok && len(shape) >= 2 {
		_ = ti
		h.Vocab = shape[1]
	} else {
		ld.fail(errors.New("tensor token_embd.weight is missing"))
	}
	return h
}

// kvHeads returns the KV head count of the attention layers: the file's
// attention.head_count_kv, or where that is a per-layer array (recorded
// in h.layerKVHeads), the count its attention layers share (Gemma 4's
// sliding and global layers differ: its loader reads each layer's count,
// and this returns the largest).
func (ld *loader) kvHeads(h *hparams) int {
	const key = "%s.attention.head_count_kv"
	if !ld.isArray(key) {
		v, err := ld.f.HeadCountKV()
		return ld.required("attention.head_count_kv", v, err)
	}
	counts, err := ld.f.Uint32s(key)
	if err != nil {
		ld.fail(fmt.Errorf("hyperparameter attention.head_count_kv: %w", err))
		return 0
	}
	if len(counts) != h.Layers {
		ld.fail(fmt.Errorf("hyperparameter attention.head_count_kv has %d layers' counts, the model %d layers", len(counts), h.Layers))
		return 0
	}
	n := 0
	for _, c := range counts {
		h.layerKVHeads = append(h.layerKVHeads, int(c))
		if c != 0 && n != 0 && int(c) != n && ld.arch != "gemma4" {
			ld.fail(fmt.Errorf("hyperparameter attention.head_count_kv: attention layers of %d and %d KV heads", n, c))
			return 0
		}
		n = max(n, int(c))
	}
	if n == 0 {
		ld.fail(errors.New("hyperparameter attention.head_count_kv: no layer has attention"))
	}
	return n
}

// archHParams reads the keys that only some architectures have, 0 where
// the file lacks them.
func (ld *loader) archHParams(h *hparams) {
	v, err := ld.f.SlidingWindow()
	h.window = ld.orDefault(v, err, 0)
	// A per-layer array (OLMo 3's) is not a period: like llama.cpp, take
	// the architecture's default then.
	h.swaPeriod = -1
	if pattern := "%s.attention.sliding_window_pattern"; !ld.isArray(pattern) {
		v, err = ld.f.Uint(pattern)
		h.swaPeriod = ld.orDefault(v, err, -1)
	}
	h.swaBase = ld.floatOr(gguf.KeyRopeFreqBaseSWA, 0)
	h.attnSoftcap = ld.floatOr(gguf.KeyAttnLogitSoftcapping, 0)
	h.finalSoftcap = ld.floatOr(gguf.KeyFinalLogitSoftcapping, 0)
	h.attnScale = ld.floatOr("%s.attention.scale", 0)
	h.embedScale = ld.floatOr("%s.embedding_scale", 0)
	h.resScale = ld.floatOr("%s.residual_scale", 0)
	h.logitScale = ld.floatOr("%s.logit_scale", 0)
	h.attnTemp = ld.floatOr("%s.attention.temperature_scale", 0)
	h.noRope = !ld.boolOr("%s.rope.scaling.finetuned", true)
}

// swaLayers returns each layer's attention window under llama.cpp's
// set_swa_pattern: with a window, layer i is local unless it is the last of
// its period (period 0: every layer is local). period is the file's
// sliding_window_pattern, or def when the file lacks it (or holds an array).
func (h *hparams) swaLayers(def int) []int {
	period := h.swaPeriod
	if period < 0 {
		period = def
	}
	w := make([]int, h.Layers)
	for i := range w {
		if h.window > 0 && (period == 0 || i%period < period-1) {
			w[i] = h.window
		}
	}
	return w
}
