package synth

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"saji/engine/gguf"
)

// Granite 4 hybrid (llama.cpp's granitehybrid): Mamba-2 layers and a few
// attention layers without rotation (rope.scaling.finetuned false), a
// mixture of experts with an ungated shared expert in every layer, and
// Granite's multipliers. attention.head_count_kv is a per-layer array
// whose zeros mark the Mamba-2 layers; the mixers' sizes are the shape's
// mamba2Extra.

// mamba2Extra is what a shape with Mamba-2 layers adds to Shape.
type mamba2Extra struct {
	// inner is ssm.inner_size, heads ssm.time_step_rank, state
	// ssm.state_size, groups ssm.group_count and taps ssm.conv_kernel.
	inner, heads, state, groups, taps int
	// attn lists the attention layers.
	attn []int
	// rope makes the attention layers rotate (rope.scaling.finetuned
	// true, as in Bamba's files; Granite 4's attention has no positions).
	rope bool
}

// mamba2Extras holds the extras of the shapes with Mamba-2 layers by name.
var mamba2Extras = map[string]mamba2Extra{
	// Small enough for a conformance test: a Mamba-2 layer first, so
	// that its states meet the embeddings, then attention and two more
	// Mamba-2 layers; heads of 64 and states of 64 (one SIMD block of the
	// scan), two groups (each normed with its own weights). Untied, so
	// that the logits do not favour the input token (greedy decoding then
	// repeats it).
	"tiny-granitehybrid": {inner: 512, heads: 8, state: 64, groups: 2, taps: 4, attn: []int{1}},
	// The other branches: dense feed-forward networks (Granite-4.0-H-Micro's),
	// rotation, one group (every Granite 4's).
	"tiny-granitehybrid-dense": {inner: 512, heads: 8, state: 64, groups: 1, taps: 4, attn: []int{1}, rope: true},
	// Granite-4.0-H-Tiny: 40 layers of 1536, attention (12 heads, 4 KV
	// heads) at layers 5, 15, 25 and 35; Mamba-2 of 48 heads of 64,
	// states of 128, one group, 4 taps; 64 experts of 512, 6 per token,
	// a shared expert of 1024.
	"granite-4.0-h-tiny": {inner: 3072, heads: 48, state: 128, groups: 1, taps: 4, attn: []int{5, 15, 25, 35}},
}

func init() {
	registerArch("granitehybrid", archSpec{keys: graniteHybridKeys, tensors: graniteHybridTensors})
	addShapes(
		Shape{Name: "tiny-granitehybrid", Arch: "granitehybrid", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, FFN: 256,
			Experts: 8, ExpertsUsed: 2, SharedFFN: 512,
			RopeBase: 10000, Context: 1048576, Eps: 1e-5, Scaled: true},
		Shape{Name: "tiny-granitehybrid-dense", Arch: "granitehybrid", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, FFN: 512,
			RopeBase: 10000, Context: 4096, Eps: 1e-5, Scaled: true},
		Shape{Name: "granite-4.0-h-tiny", Arch: "granitehybrid", Embd: 1536, Layers: 40, Heads: 12, KVHeads: 4, FFN: 512,
			Experts: 64, ExpertsUsed: 6, SharedFFN: 1024,
			Tied: true, RopeBase: 10000, Context: 1048576, Eps: 1e-5},
	)
}

// graniteHybridKeys are the keys beyond the common ones: Granite's
// multipliers (Granite-4.0-H-Tiny's), whether attention rotates, the
// Mamba-2 sizes and the per-layer KV head counts (0 for a Mamba-2 layer).
func graniteHybridKeys(s Shape) map[string]any {
	x := mamba2Extras[s.Name]
	keys := mamba2Keys(s, x)
	for k, v := range map[string]any{
		"embedding_scale":        float32(12),
		"residual_scale":         float32(0.22),
		"attention.scale":        float32(0.0078125),
		"logit_scale":            float32(6),
		"rope.scaling.finetuned": x.rope,
	} {
		keys[k] = v
	}
	return keys
}

// mamba2Keys returns the Mamba-2 sizes of x and the per-layer KV head
// counts, as an array of int32 as the converter writes it.
func mamba2Keys(s Shape, x mamba2Extra) map[string]any {
	kv := make([]int32, s.Layers)
	for _, i := range x.attn {
		kv[i] = int32(s.KVHeads)
	}
	arr, _ := gguf.NewArray(kv) // []int32 is an array type
	return map[string]any{
		"attention.head_count_kv": arr,
		"ssm.conv_kernel":         uint32(x.taps),
		"ssm.inner_size":          uint32(x.inner),
		"ssm.state_size":          uint32(x.state),
		"ssm.time_step_rank":      uint32(x.heads),
		"ssm.group_count":         uint32(x.groups),
	}
}

// graniteHybridTensors lists a Granite 4 hybrid model's tensors: the
// Llama family's, with a Mamba-2 mixer in place of attention in the
// layers that are not attention, and no shared expert's gate (Granite 4
// adds its shared expert as it is).
func graniteHybridTensors(s Shape, vocab int) []TensorSpec {
	x := mamba2Extras[s.Name]
	var out []TensorSpec
	for _, t := range s.llamaTensors(vocab) {
		var i int
		var name string
		if _, err := fmt.Sscanf(t.Name, "blk.%d.%s", &i, &name); err == nil && !slices.Contains(x.attn, i) &&
			strings.HasPrefix(name, "attn_") && name != "attn_norm.weight" {
			if name == "attn_q.weight" {
				out = append(out, mamba2Tensors(fmt.Sprintf("blk.%d.", i), int64(s.Embd), x)...)
			}
			continue
		}
		if !strings.HasSuffix(t.Name, "ffn_gate_inp_shexp.weight") {
			out = append(out, t)
		}
	}
	return out
}

// mamba2Tensors lists a Mamba-2 mixer's tensors of layer prefix p for
// hidden size e, as the converter writes them: the decays A = −exp(A_log)
// of heads from 1 to 16 and dt biases that make the steps softplus(dt)
// between 0.001 and 0.1 at dt 0 (Mamba-2's initialization), so that the
// state neither blows up nor forgets at once.
func mamba2Tensors(p string, e int64, x mamba2Extra) []TensorSpec {
	inner, bc, nh := int64(x.inner), int64(x.groups*x.state), int64(x.heads)
	a, dt := make([]float32, nh), make([]float32, nh)
	for h := range nh {
		f := float64(h) / float64(max(1, nh-1))
		a[h] = -float32(math.Exp(f * math.Log(16)))
		step := math.Exp(math.Log(0.001) + f*(math.Log(0.1)-math.Log(0.001)))
		dt[h] = float32(step + math.Log(-math.Expm1(-step))) // softplus⁻¹(step)
	}
	ch := inner + 2*bc
	return []TensorSpec{
		{Name: p + "ssm_in.weight", Shape: []int64{e, 2*inner + 2*bc + nh}},
		{Name: p + "ssm_conv1d.weight", Shape: []int64{int64(x.taps), ch}},
		{Name: p + "ssm_conv1d.bias", Shape: []int64{ch}},
		{Name: p + "ssm_dt.bias", Shape: []int64{nh}, Values: dt},
		{Name: p + "ssm_a", Shape: []int64{1, nh}, Values: a},
		{Name: p + "ssm_d", Shape: []int64{1, nh}, Ones: true},
		{Name: p + "ssm_norm.weight", Shape: []int64{inner / int64(x.groups), int64(x.groups)}, Ones: true},
		{Name: p + "ssm_out.weight", Shape: []int64{inner, e}},
	}
}
