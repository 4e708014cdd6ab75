package synth

import (
	"fmt"
	"math"
)

// Gemma 4 (llama.cpp's gemma4): sliding layers with heads of one length
// and global layers with longer heads, fewer KV heads and "proportional"
// rope (rope_freqs.weight turns three quarters of the pairs' rotation
// off), per-layer embeddings, the last layers sharing the caches of
// earlier ones, and a scalar per layer. The shape's Head is the global
// layers' head length; the rest of what Shape does not say is the
// shape's gemma4Extra.

// gemma4Extra is what a Gemma 4 shape adds to Shape.
type gemma4Extra struct {
	// headSWA is the sliding layers' head length; kvGlobal the global
	// layers' KV heads (Shape.KVHeads is the sliding layers').
	headSWA, kvGlobal int
	// period makes every period-th layer global (5 sliding, 1 global).
	period int
	// perLayer is embedding_length_per_layer_input; shared the
	// shared_kv_layers.
	perLayer, shared int
	// wideFFN doubles the feed-forward length of the shared layers
	// (use_double_wide_mlp).
	wideFFN bool
	// kEqV drops attn_v from the global layers (their keys are also their
	// values, as in the larger models).
	kEqV bool
	// softcap is final_logit_softcapping.
	softcap float32
}

// gemma4Extras holds the extras of the Gemma 4 shapes by name.
var gemma4Extras = map[string]gemma4Extra{
	// Small enough for a conformance test, with every twist: two global
	// layers of the six, the last three sharing caches (of both kinds),
	// per-layer KV heads, keys as values in the global layers, a wide
	// feed-forward network in the shared layers; windows of 16.
	"tiny-gemma4": {headSWA: 64, kvGlobal: 1, period: 3, perLayer: 64, shared: 3, wideFFN: true, kEqV: true, softcap: 10},
	// Gemma 4 E4B's text decoder: 42 layers of 2560, 8 heads, 2 KV heads
	// of 256 (sliding, windows of 512) or 512 (global), PLE of 256, the
	// last 18 layers sharing caches.
	"gemma4-e4b": {headSWA: 256, kvGlobal: 2, period: 6, perLayer: 256, shared: 18, softcap: 30},
	// The mixture-of-experts variant (26B-A4B's layer) in small: no
	// per-layer embeddings or shared caches; experts beside the dense
	// network in every layer.
	"tiny-gemma4moe": {headSWA: 64, kvGlobal: 1, period: 2, kEqV: true, softcap: 10},
}

func init() {
	registerArch("gemma4", archSpec{keys: gemma4Keys, tensors: gemma4Tensors})
	addShapes(
		Shape{Name: "tiny-gemma4", Arch: "gemma4", Embd: 256, Layers: 6, Heads: 4, KVHeads: 2, Head: 128, FFN: 512,
			Tied: true, Window: 16, RopeBase: 1000000, Context: 131072, Eps: 1e-6, Scaled: true},
		Shape{Name: "tiny-gemma4moe", Arch: "gemma4", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, Head: 128, FFN: 512,
			Experts: 4, ExpertsUsed: 2, ExpertFFN: 256,
			Tied: true, Window: 16, RopeBase: 1000000, Context: 131072, Eps: 1e-6, Scaled: true},
		Shape{Name: "gemma4-e4b", Arch: "gemma4", Embd: 2560, Layers: 42, Heads: 8, KVHeads: 2, Head: 512, FFN: 10240,
			Tied: true, Window: 512, RopeBase: 1000000, Context: 131072, Eps: 1e-6},
	)
}

// gemma4SWA returns whether each layer of s slides: all but every
// period-th.
func gemma4SWA(s Shape, x gemma4Extra) []bool {
	swa := make([]bool, s.Layers)
	for i := range swa {
		swa[i] = i%x.period != x.period-1
	}
	return swa
}

// gemma4FFN returns layer i's feed-forward length.
func gemma4FFN(s Shape, x gemma4Extra, i int) int {
	if x.wideFFN && i >= s.Layers-x.shared {
		return 2 * s.FFN
	}
	return s.FFN
}

// gemma4Keys are Gemma 4's keys beyond the common ones.
func gemma4Keys(s Shape) map[string]any {
	x := gemma4Extras[s.Name]
	swa := gemma4SWA(s, x)
	kv, ff := make([]uint32, s.Layers), make([]uint32, s.Layers)
	for i, w := range swa {
		kv[i] = uint32(x.kvGlobal)
		if w {
			kv[i] = uint32(s.KVHeads)
		}
		ff[i] = uint32(gemma4FFN(s, x, i))
	}
	return map[string]any{
		"attention.sliding_window":         uint32(s.Window),
		"attention.sliding_window_pattern": swa,
		"attention.head_count_kv":          kv,
		"attention.key_length_swa":         uint32(x.headSWA),
		"attention.value_length_swa":       uint32(x.headSWA),
		"attention.shared_kv_layers":       uint32(x.shared),
		"embedding_length_per_layer_input": uint32(x.perLayer),
		"feed_forward_length":              ff,
		"rope.dimension_count_swa":         uint32(x.headSWA),
		"rope.freq_base_swa":               float32(10000),
		"final_logit_softcapping":          x.softcap,
	}
}

// gemma4Tensors lists a Gemma 4 model's tensors in llama.cpp's convert
// order. The shared layers have no keys or values of their own.
func gemma4Tensors(s Shape, vocab int) []TensorSpec {
	x := gemma4Extras[s.Name]
	swa := gemma4SWA(s, x)
	e, v, pl := int64(s.Embd), int64(vocab), int64(x.perLayer)
	n := int64(s.Layers)
	// The global layers rotate a quarter of their pairs: the others get
	// factors of 1e30, which stop them.
	half := s.HeadDim() / 2
	factors := make([]float32, half)
	for i := range factors {
		factors[i] = 1
		if i >= half/4 {
			factors[i] = 1e30
		}
	}
	out := []TensorSpec{
		{Name: "token_embd.weight", Shape: []int64{e, v}},
		{Name: "rope_freqs.weight", Shape: []int64{int64(half)}, Values: factors},
	}
	if pl > 0 {
		out = append(out,
			TensorSpec{Name: "per_layer_token_embd.weight", Shape: []int64{pl * n, v}},
			TensorSpec{Name: "per_layer_model_proj.weight", Shape: []int64{e, pl * n}, Std: 1 / math.Sqrt(float64(e))},
			TensorSpec{Name: "per_layer_proj_norm.weight", Shape: []int64{pl}, Ones: true})
	}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		hd, kv := int64(s.HeadDim()), int64(x.kvGlobal)
		if swa[i] {
			hd, kv = int64(x.headSWA), int64(s.KVHeads)
		}
		q, ff := int64(s.Heads)*hd, int64(gemma4FFN(s, x, i))
		out = append(out,
			TensorSpec{Name: p + "attn_norm.weight", Shape: []int64{e}, Ones: true},
			TensorSpec{Name: p + "attn_q.weight", Shape: []int64{e, q}},
			TensorSpec{Name: p + "attn_q_norm.weight", Shape: []int64{hd}, Ones: true})
		if i < s.Layers-x.shared {
			out = append(out,
				TensorSpec{Name: p + "attn_k.weight", Shape: []int64{e, kv * hd}},
				TensorSpec{Name: p + "attn_k_norm.weight", Shape: []int64{hd}, Ones: true})
			if swa[i] || !x.kEqV {
				out = append(out, TensorSpec{Name: p + "attn_v.weight", Shape: []int64{e, kv * hd}})
			}
		}
		out = append(out,
			TensorSpec{Name: p + "attn_output.weight", Shape: []int64{q, e}},
			TensorSpec{Name: p + "post_attention_norm.weight", Shape: []int64{e}, Ones: true},
			TensorSpec{Name: p + "ffn_norm.weight", Shape: []int64{e}, Ones: true},
			TensorSpec{Name: p + "ffn_gate.weight", Shape: []int64{e, ff}},
			TensorSpec{Name: p + "ffn_up.weight", Shape: []int64{e, ff}},
			TensorSpec{Name: p + "ffn_down.weight", Shape: []int64{ff, e}},
			TensorSpec{Name: p + "post_ffw_norm.weight", Shape: []int64{e}, Ones: true})
		if s.Experts > 0 {
			out = append(out, gemma4Experts(s, p)...)
		}
		if pl > 0 {
			out = append(out,
				TensorSpec{Name: p + "inp_gate.weight", Shape: []int64{e, pl}},
				TensorSpec{Name: p + "proj.weight", Shape: []int64{pl, e}},
				TensorSpec{Name: p + "post_norm.weight", Shape: []int64{e}, Ones: true})
		}
		out = append(out, TensorSpec{Name: p + "layer_output_scale.weight", Shape: []int64{1}, Ones: true})
	}
	return append(out, TensorSpec{Name: "output_norm.weight", Shape: []int64{e}, Ones: true})
}

// gemma4Experts lists layer p's experts and their norms and scales, the
// gate and up matrices fused as Hugging Face's checkpoints have them. The
// router's weights have a standard deviation of 1, so that its logits
// (over an input scaled by 1/√n_embd) are about 1 apart and a last-bit
// difference does not change the experts chosen.
func gemma4Experts(s Shape, p string) []TensorSpec {
	e, n, ff := int64(s.Embd), int64(s.Experts), int64(s.ExpertFFN)
	return []TensorSpec{
		{Name: p + "ffn_gate_inp.weight", Shape: []int64{e, n}, Std: 1},
		{Name: p + "ffn_gate_inp.scale", Shape: []int64{e}, Ones: true},
		{Name: p + "pre_ffw_norm_2.weight", Shape: []int64{e}, Ones: true},
		{Name: p + "post_ffw_norm_1.weight", Shape: []int64{e}, Ones: true},
		{Name: p + "post_ffw_norm_2.weight", Shape: []int64{e}, Ones: true},
		{Name: p + "ffn_gate_up_exps.weight", Shape: []int64{e, 2 * ff, n}},
		{Name: p + "ffn_down_exps.weight", Shape: []int64{ff, e, n}},
		{Name: p + "ffn_down_exps.scale", Shape: []int64{n}, Ones: true},
	}
}
