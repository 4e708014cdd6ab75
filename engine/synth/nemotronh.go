package synth

import (
	"fmt"
	"slices"

	"saji/engine/gguf"
)

// Nemotron-H (llama.cpp's nemotron_h): layers of one kind each, Mamba-2
// mixers, attention without rotation, or feed-forward networks of
// squared ReLU without a gate. attention.head_count_kv and
// feed_forward_length are per-layer arrays (a Mamba-2 layer has zeros in
// both, attention a zero length); the mixers' sizes and the layers' kinds
// are the shape's mamba2Extra (its attn, and ffn below). nemotron_h_moe
// has mixtures of experts in place of the feed-forward networks.

// nemotronHFFN lists the feed-forward layers of the Nemotron-H shapes by
// name.
var nemotronHFFN = map[string][]int{"tiny-nemotronh": {1, 3, 5}, "tiny-nemotronhmoe": {1, 3, 5}}

func init() {
	registerArch("nemotron_h", archSpec{keys: nemotronHKeys, tensors: nemotronHTensors})
	registerArch("nemotron_h_moe", archSpec{keys: nemotronHKeys, tensors: nemotronHTensors})
	// Mamba-2, feed-forward, attention, feed-forward, Mamba-2,
	// feed-forward ("M-*-M-" in the config's pattern): a mixer first, so
	// that its states meet the embeddings; heads and states of 64, two
	// groups.
	mamba2Extras["tiny-nemotronh"] = mamba2Extra{inner: 512, heads: 8, state: 64, groups: 2, taps: 4, attn: []int{2}}
	mamba2Extras["tiny-nemotronhmoe"] = mamba2Extras["tiny-nemotronh"]
	addShapes(
		Shape{Name: "tiny-nemotronh", Arch: "nemotron_h", Embd: 256, Layers: 6, Heads: 4, KVHeads: 2, Head: 64, FFN: 512,
			RopeBase: 10000, Context: 8192, Eps: 1e-5, Scaled: true},
		// Nemotron 3's layers in small: experts of squared ReLU (8 of 256,
		// 2 a token, chosen by sigmoid scores with a selection bias, the
		// weights normalized and scaled by 2.5) and a shared expert.
		Shape{Name: "tiny-nemotronhmoe", Arch: "nemotron_h_moe", Embd: 256, Layers: 6, Heads: 4, KVHeads: 2, Head: 64, FFN: 256,
			Experts: 8, ExpertsUsed: 2, ExpertFFN: 256, SharedFFN: 512,
			RopeBase: 10000, Context: 8192, Eps: 1e-5, Scaled: true},
	)
}

// nemotronHKeys are the keys beyond the common ones: the Mamba-2 sizes,
// the per-layer KV head counts and feed-forward lengths, and the layer
// norm epsilon llama.cpp requires beside the RMS one.
func nemotronHKeys(s Shape) map[string]any {
	keys := mamba2Keys(s, mamba2Extras[s.Name])
	ff := make([]int32, s.Layers)
	for _, i := range nemotronHFFN[s.Name] {
		ff[i] = int32(s.FFN)
	}
	arr, _ := gguf.NewArray(ff) // []int32 is an array type
	keys["feed_forward_length"] = arr
	keys["attention.layer_norm_epsilon"] = s.Eps
	if s.Experts > 0 {
		keys["expert_weights_norm"] = true
		keys["expert_weights_scale"] = float32(2.5)
	}
	return keys
}

// nemotronHTensors lists a Nemotron-H model's tensors.
func nemotronHTensors(s Shape, vocab int) []TensorSpec {
	x := mamba2Extras[s.Name]
	e, v := int64(s.Embd), int64(vocab)
	q, kv, ff := int64(s.Heads*s.HeadDim()), int64(s.KVHeads*s.HeadDim()), int64(s.FFN)
	out := []TensorSpec{{Name: "token_embd.weight", Shape: []int64{e, v}}}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		out = append(out, TensorSpec{Name: p + "attn_norm.weight", Shape: []int64{e}, Ones: true})
		switch {
		case slices.Contains(nemotronHFFN[s.Name], i) && s.Experts > 0:
			n, sh := int64(s.Experts), int64(s.SharedFFN)
			out = append(out,
				TensorSpec{Name: p + "ffn_gate_inp.weight", Shape: []int64{e, n}},
				TensorSpec{Name: p + "exp_probs_b.bias", Shape: []int64{n}},
				TensorSpec{Name: p + "ffn_up_exps.weight", Shape: []int64{e, ff, n}},
				TensorSpec{Name: p + "ffn_down_exps.weight", Shape: []int64{ff, e, n}},
				TensorSpec{Name: p + "ffn_up_shexp.weight", Shape: []int64{e, sh}},
				TensorSpec{Name: p + "ffn_down_shexp.weight", Shape: []int64{sh, e}})
		case slices.Contains(nemotronHFFN[s.Name], i):
			out = append(out,
				TensorSpec{Name: p + "ffn_up.weight", Shape: []int64{e, ff}},
				TensorSpec{Name: p + "ffn_down.weight", Shape: []int64{ff, e}})
		case slices.Contains(x.attn, i):
			out = append(out,
				TensorSpec{Name: p + "attn_q.weight", Shape: []int64{e, q}},
				TensorSpec{Name: p + "attn_k.weight", Shape: []int64{e, kv}},
				TensorSpec{Name: p + "attn_v.weight", Shape: []int64{e, kv}},
				TensorSpec{Name: p + "attn_output.weight", Shape: []int64{q, e}})
		default:
			out = append(out, mamba2Tensors(p, e, x)...)
		}
	}
	out = append(out, TensorSpec{Name: "output_norm.weight", Shape: []int64{e}, Ones: true})
	if !s.Tied {
		out = append(out, TensorSpec{Name: "output.weight", Shape: []int64{e, v}})
	}
	return out
}
