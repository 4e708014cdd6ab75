package synth

import (
	"fmt"

	"saji/engine/gguf"
)

// Qwen3.5 (llama.cpp's qwen35 and qwen35moe): gated delta-net layers
// (linear attention) with every full_attention_interval-th layer a gated
// full attention; each layer norms its input (attn_norm) and, after the
// residual, the feed-forward network's (post_attention_norm). A linear
// layer projects q, k and v in one matrix (attn_qkv) through a causal
// convolution of ssm.conv_kernel taps (ssm_conv1d), its output gate z
// (attn_gate), the update strength β (ssm_beta) and the decay's input α
// (ssm_alpha, with ssm_dt.bias and ssm_a = −exp(A_log)); ssm.group_count
// key heads and ssm.time_step_rank value heads of ssm.state_size values.
// An attention layer's attn_q makes each head's query followed by its
// output gate; rope turns a quarter of each head (IMRoPE, which for text
// is NeoX rope over the rotated dimensions).
//
// Qwen3-Next (llama.cpp's qwen3next) is the mixture-of-experts form with β
// and α in one projection, ssm_ba: per key head, its value heads'
// β then their α.

// qwen35Extra is what a Qwen3.5 shape adds to Shape.
type qwen35Extra struct {
	// kHeads and vHeads are the delta net's key and value heads (group
	// count and time-step rank), each of state values (state size).
	kHeads, vHeads, state int
	// interval makes every interval-th layer full attention.
	interval int
	// rot is rope.dimension_count, sections rope.dimension_sections.
	rot      int
	sections [4]int32
}

// qwen35Extras holds the extras of the Qwen3.5 shapes by name.
var qwen35Extras = map[string]qwen35Extra{
	// Linear, attention, linear, attention: the state meets the
	// embeddings first; twice as many value heads as key heads, as in the
	// released models, so that the heads' broadcast is checked.
	"tiny-qwen35":    {kHeads: 4, vHeads: 8, state: 32, interval: 2, rot: 16, sections: [4]int32{3, 3, 2, 0}},
	"tiny-qwen35moe": {kHeads: 4, vHeads: 8, state: 32, interval: 2, rot: 16, sections: [4]int32{3, 3, 2, 0}},
	// Qwen3-Next's twists in the same size: value head h reads key head
	// h/2, not h mod 4.
	"tiny-qwen3next": {kHeads: 4, vHeads: 8, state: 32, interval: 2, rot: 16, sections: [4]int32{3, 3, 2, 0}},
	// Qwen3.5-9B: 32 layers of 4096, every fourth full attention (16
	// heads, 4 KV heads of 256, a quarter of each rotated); 16 key heads
	// and 32 value heads of 128 in the delta net.
	"qwen3.5-9b": {kHeads: 16, vHeads: 32, state: 128, interval: 4, rot: 64, sections: [4]int32{11, 11, 10, 0}},
	// Qwen3.5-4B: the 9B's layout in 2560 (llama.cpp's size table: 32
	// layers of 2560), tied embeddings; half the file, for the benchmarks
	// a loaded machine can hold.
	"qwen3.5-4b": {kHeads: 16, vHeads: 32, state: 128, interval: 4, rot: 64, sections: [4]int32{11, 11, 10, 0}},
}

// qwen35ConvTaps is ssm.conv_kernel, as in every released Qwen3.5.
const qwen35ConvTaps = 4

func init() {
	registerArch("qwen35", archSpec{keys: qwen35Keys, tensors: qwen35Tensors})
	registerArch("qwen35moe", archSpec{keys: qwen35Keys, tensors: qwen35Tensors})
	registerArch("qwen3next", archSpec{keys: qwen35Keys, tensors: qwen35Tensors})
	addShapes(
		Shape{Name: "tiny-qwen35", Arch: "qwen35", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, Head: 64, FFN: 512,
			Tied: true, RopeBase: 10000000, Context: 262144, Eps: 1e-6, Scaled: true},
		Shape{Name: "tiny-qwen35moe", Arch: "qwen35moe", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, Head: 64, FFN: 512,
			Experts: 4, ExpertsUsed: 2, ExpertFFN: 256, SharedFFN: 256,
			Tied: true, RopeBase: 10000000, Context: 262144, Eps: 1e-6, Scaled: true},
		Shape{Name: "tiny-qwen3next", Arch: "qwen3next", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, Head: 64, FFN: 512,
			Experts: 4, ExpertsUsed: 2, ExpertFFN: 256, SharedFFN: 256,
			Tied: true, RopeBase: 10000000, Context: 262144, Eps: 1e-6, Scaled: true},
		Shape{Name: "qwen3.5-9b", Arch: "qwen35", Embd: 4096, Layers: 32, Heads: 16, KVHeads: 4, Head: 256, FFN: 12288,
			RopeBase: 10000000, Context: 262144, Eps: 1e-6},
		Shape{Name: "qwen3.5-4b", Arch: "qwen35", Embd: 2560, Layers: 32, Heads: 16, KVHeads: 4, Head: 256, FFN: 9216,
			Tied: true, RopeBase: 10000000, Context: 262144, Eps: 1e-6},
	)
}

// qwen35Recurrent reports whether layer i of a Qwen3.5 shape is a delta
// net (llama.cpp's rule from full_attention_interval).
func qwen35Recurrent(x qwen35Extra, i int) bool { return (i+1)%x.interval != 0 }

// qwen35Keys are Qwen3.5's keys beyond the common ones.
func qwen35Keys(s Shape) map[string]any {
	x := qwen35Extras[s.Name]
	sections, _ := gguf.NewArray(x.sections[:]) // []int32 is an array type
	return map[string]any{
		"rope.dimension_count":    uint32(x.rot),
		"rope.dimension_sections": sections,
		"full_attention_interval": uint32(x.interval),
		"ssm.conv_kernel":         uint32(qwen35ConvTaps),
		"ssm.inner_size":          uint32(x.vHeads * x.state),
		"ssm.state_size":          uint32(x.state),
		"ssm.time_step_rank":      uint32(x.vHeads),
		"ssm.group_count":         uint32(x.kHeads),
	}
}

// qwen35Tensors lists a Qwen3.5 model's tensors. ssm_a holds −exp(A_log)
// for A_log spread over [0, ln 16) as the model's initialization draws it,
// and ssm_dt.bias small values around 1, so that the decays stay in (0, 1).
func qwen35Tensors(s Shape, vocab int) []TensorSpec {
	x := qwen35Extras[s.Name]
	e, v := int64(s.Embd), int64(vocab)
	q, kv, d := int64(s.Heads*s.HeadDim()), int64(s.KVHeads*s.HeadDim()), int64(s.HeadDim())
	key, val := int64(x.kHeads*x.state), int64(x.vHeads*x.state)
	nv := int64(x.vHeads)
	a, dt := make([]float32, nv), make([]float32, nv)
	for h := range a {
		a[h] = -float32(1 + 15*float64(h)/float64(nv))
		dt[h] = 1 + 0.5*float32(h%3-1)
	}
	out := []TensorSpec{{Name: "token_embd.weight", Shape: []int64{e, v}}}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		out = append(out, TensorSpec{Name: p + "attn_norm.weight", Shape: []int64{e}, Ones: true})
		if qwen35Recurrent(x, i) {
			out = append(out,
				TensorSpec{Name: p + "attn_qkv.weight", Shape: []int64{e, 2*key + val}},
				TensorSpec{Name: p + "attn_gate.weight", Shape: []int64{e, val}},
				TensorSpec{Name: p + "ssm_conv1d.weight", Shape: []int64{qwen35ConvTaps, 2*key + val}},
				TensorSpec{Name: p + "ssm_dt.bias", Shape: []int64{nv}, Values: dt},
				TensorSpec{Name: p + "ssm_a", Shape: []int64{nv}, Values: a})
			if s.Arch == "qwen3next" {
				out = append(out, TensorSpec{Name: p + "ssm_ba.weight", Shape: []int64{e, 2 * nv}})
			} else {
				out = append(out,
					TensorSpec{Name: p + "ssm_beta.weight", Shape: []int64{e, nv}},
					TensorSpec{Name: p + "ssm_alpha.weight", Shape: []int64{e, nv}})
			}
			out = append(out,
				TensorSpec{Name: p + "ssm_norm.weight", Shape: []int64{int64(x.state)}, Ones: true},
				TensorSpec{Name: p + "ssm_out.weight", Shape: []int64{val, e}})
		} else {
			out = append(out,
				TensorSpec{Name: p + "attn_q.weight", Shape: []int64{e, 2 * q}},
				TensorSpec{Name: p + "attn_k.weight", Shape: []int64{e, kv}},
				TensorSpec{Name: p + "attn_v.weight", Shape: []int64{e, kv}},
				TensorSpec{Name: p + "attn_output.weight", Shape: []int64{q, e}},
				TensorSpec{Name: p + "attn_q_norm.weight", Shape: []int64{d}, Ones: true},
				TensorSpec{Name: p + "attn_k_norm.weight", Shape: []int64{d}, Ones: true})
		}
		out = append(out, TensorSpec{Name: p + "post_attention_norm.weight", Shape: []int64{e}, Ones: true})
		out = append(out, s.ffnTensors(p)...)
	}
	return append(out, s.outputTensors(vocab)...)
}
