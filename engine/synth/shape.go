package synth

import (
	"fmt"
	"slices"
	"strings"

	"saji/engine/gguf"
	"saji/engine/quantize"
)

// Shape is the architecture and size of a synthetic model.
type Shape struct {
	// Name is the name --shape selects.
	Name string
	// Arch is general.architecture. Architectures other than the Llama
	// family's register their tensors and metadata with registerArch.
	Arch string
	// Embd, Layers, Heads, KVHeads and FFN are n_embd, n_layer, n_head,
	// n_head_kv and n_ff.
	Embd, Layers, Heads, KVHeads, FFN int
	// Head is the length of an attention head (key_length and
	// value_length); 0 means Embd/Heads.
	Head int
	// Tied models have no output.weight: the embeddings are the output.
	Tied bool
	// QKVBias adds attn_q, attn_k and attn_v biases (Qwen2).
	QKVBias bool
	// HeadNorm adds per-head q and k norms (Qwen3).
	HeadNorm bool
	// Deepstack is Qwen3-VL's n_deepstack_layers: the layers after which
	// a picture's input vector adds a part of its own.
	Deepstack int
	// RopeBase is the rotary frequency base.
	RopeBase float32
	// Context is the training context length (metadata only).
	Context int
	// Eps is the RMSNorm epsilon.
	Eps float32
	// Experts and ExpertsUsed are the number of experts of a
	// mixture-of-experts layer and how many each token uses (0: dense);
	// ExpertFFN is the n_ff of one expert and SharedFFN that of the shared
	// expert (0: none).
	Experts, ExpertsUsed, ExpertFFN, SharedFFN int
	// Window is the sliding-window length of the local layers (0: none).
	Window int
	// Scaled weights have a standard deviation of 1/√fan-in and norms of
	// 1+0.1·N(0,1), as the shared test models do, so that a tiny model's
	// logits differ enough between tokens for a conformance test to mean
	// something; otherwise weights are N(0, 0.02²) and norms 1, about a
	// trained model's, for benchmarks.
	Scaled bool
}

// HeadDim returns the length of one attention head.
func (s Shape) HeadDim() int {
	if s.Head > 0 {
		return s.Head
	}
	return s.Embd / s.Heads
}

var shapes = []Shape{
	// Llama-3.2-1B.
	{Name: "llama-1b", Arch: "llama", Embd: 2048, Layers: 16, Heads: 32, KVHeads: 8, FFN: 8192,
		Tied: true, RopeBase: 500000, Context: 131072, Eps: 1e-5},
	// Llama-3.1-8B.
	{Name: "llama-8b", Arch: "llama", Embd: 4096, Layers: 32, Heads: 32, KVHeads: 8, FFN: 14336,
		RopeBase: 500000, Context: 131072, Eps: 1e-5},
	// Qwen2-0.5B (and Qwen2.5-0.5B).
	{Name: "qwen2-0.5b", Arch: "qwen2", Embd: 896, Layers: 24, Heads: 14, KVHeads: 2, FFN: 4864,
		Tied: true, QKVBias: true, RopeBase: 1000000, Context: 32768, Eps: 1e-6},
	// A small model for tests: four layers so that the mixes vary by
	// layer, rows of 256 so that every block format fits.
	{Name: "tiny", Arch: "llama", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, FFN: 512,
		RopeBase: 10000, Context: 2048, Eps: 1e-5},
	// The tiny shape with scaled weights, for reference figures of the
	// weight types (testdata/ref).
	{Name: "tiny-llama", Arch: "llama", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		RopeBase: 10000, Context: 2048, Eps: 1e-5, Scaled: true},
}

// addShapes adds shapes to the list --shape selects from (files that
// register an architecture add its shapes in their init).
func addShapes(ss ...Shape) { shapes = append(shapes, ss...) }

// archSpec is what a synthetic model of an architecture outside the Llama
// family needs: its metadata beyond the common keys, and its tensors.
type archSpec struct {
	// keys returns the architecture's own metadata (keys without the
	// "ARCH." prefix, which the writer adds).
	keys func(s Shape) map[string]any
	// tensors lists the tensors in file order, as Shape.Tensors does.
	tensors func(s Shape, vocab int) []TensorSpec
}

// archs holds the registered architectures.
var archs = map[string]archSpec{}

// registerArch registers an architecture's synthetic tensors and keys.
func registerArch(name string, a archSpec) { archs[name] = a }

// ShapeNames returns the names of the known shapes.
func ShapeNames() []string {
	names := make([]string, len(shapes))
	for i, s := range shapes {
		names[i] = s.Name
	}
	return names
}

// LookupShape returns the shape called name.
func LookupShape(name string) (Shape, error) {
	i := slices.IndexFunc(shapes, func(s Shape) bool { return strings.EqualFold(s.Name, name) })
	if i < 0 {
		return Shape{}, fmt.Errorf("synth: unknown shape %q (one of %s)", name, strings.Join(ShapeNames(), ", "))
	}
	return shapes[i], nil
}

// TensorSpec is one tensor of a synthetic model.
type TensorSpec struct {
	Name  string
	Shape []int64 // ggml order: Shape[0] is the row length
	// Ones marks norm weights, which are all 1 (1+0.1·N(0,1) in a Scaled
	// shape); the other tensors are random.
	Ones bool
	// Std, when above 0, is the standard deviation of the tensor's random
	// values, instead of the shape's rule.
	Std float64
	// Values, when not nil, are the tensor's values (a small fixed tensor
	// such as Gemma 4's rope factors, written in one chunk).
	Values []float32
}

// Tensors lists the tensors of a model of shape s with a vocabulary of
// vocab tokens, in file order (llama.cpp's convert order: embeddings,
// blocks, output).
func (s Shape) Tensors(vocab int) []TensorSpec {
	if a, ok := archs[s.Arch]; ok && a.tensors != nil {
		return a.tensors(s, vocab)
	}
	return s.llamaTensors(vocab)
}

// llamaTensors lists the tensors of a Llama-family model of shape s, which
// other architectures' lists start from.
func (s Shape) llamaTensors(vocab int) []TensorSpec {
	e, v := int64(s.Embd), int64(vocab)
	q, kv := int64(s.Heads*s.HeadDim()), int64(s.KVHeads*s.HeadDim())
	out := []TensorSpec{{Name: "token_embd.weight", Shape: []int64{e, v}}}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		out = append(out,
			TensorSpec{Name: p + "attn_norm.weight", Shape: []int64{e}, Ones: true},
			TensorSpec{Name: p + "attn_q.weight", Shape: []int64{e, q}},
			TensorSpec{Name: p + "attn_k.weight", Shape: []int64{e, kv}},
			TensorSpec{Name: p + "attn_v.weight", Shape: []int64{e, kv}})
		if s.QKVBias {
			out = append(out,
				TensorSpec{Name: p + "attn_q.bias", Shape: []int64{q}},
				TensorSpec{Name: p + "attn_k.bias", Shape: []int64{kv}},
				TensorSpec{Name: p + "attn_v.bias", Shape: []int64{kv}})
		}
		if s.HeadNorm {
			d := int64(s.HeadDim())
			out = append(out,
				TensorSpec{Name: p + "attn_k_norm.weight", Shape: []int64{d}, Ones: true},
				TensorSpec{Name: p + "attn_q_norm.weight", Shape: []int64{d}, Ones: true})
		}
		out = append(out,
			TensorSpec{Name: p + "attn_output.weight", Shape: []int64{q, e}},
			TensorSpec{Name: p + "ffn_norm.weight", Shape: []int64{e}, Ones: true})
		out = append(out, s.ffnTensors(p)...)
	}
	return append(out, s.outputTensors(vocab)...)
}

// ffnTensors lists layer prefix p's feed-forward network: the experts of
// a mixture-of-experts shape, or SwiGLU's gate, up and down.
func (s Shape) ffnTensors(p string) []TensorSpec {
	if s.Experts > 0 {
		return s.expertTensors(p)
	}
	e, ff := int64(s.Embd), int64(s.FFN)
	return []TensorSpec{
		{Name: p + "ffn_gate.weight", Shape: []int64{e, ff}},
		{Name: p + "ffn_up.weight", Shape: []int64{e, ff}},
		{Name: p + "ffn_down.weight", Shape: []int64{ff, e}},
	}
}

// outputTensors lists the output norm and, unless the shape is tied, the
// output matrix.
func (s Shape) outputTensors(vocab int) []TensorSpec {
	e := int64(s.Embd)
	out := []TensorSpec{{Name: "output_norm.weight", Shape: []int64{e}, Ones: true}}
	if !s.Tied {
		out = append(out, TensorSpec{Name: "output.weight", Shape: []int64{e, int64(vocab)}})
	}
	return out
}

// Mix returns the type mix of this shape quantized to ft.
func (s Shape) Mix(ft gguf.FileType) quantize.Mix {
	return quantize.Mix{FileType: ft, Arch: s.Arch, Layers: s.Layers, GQA: s.Heads / s.KVHeads, Experts: s.Experts, Tied: s.Tied}
}
