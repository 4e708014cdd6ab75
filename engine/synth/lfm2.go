package synth

import (
	"fmt"
	"slices"

	"saji/engine/gguf"
)

// LFM2 (llama.cpp's lfm2): gated short-convolution layers interleaved with
// attention layers with q/k norms; attention.head_count_kv is a per-layer
// array whose zeros mark the convolutions, shortconv.l_cache their kernel
// size, and the output norm is called token_embd_norm.

func init() {
	registerArch("lfm2", archSpec{keys: lfm2Keys, tensors: lfm2Tensors})
	addShapes(
		// LFM2-1.2B: 16 layers of 2048, attention (32 heads, 8 KV heads)
		// at layers 2, 5, 8, 10, 12 and 14, the rest convolutions of 3
		// taps, tied embeddings.
		Shape{Name: "lfm2-1.2b", Arch: "lfm2", Embd: 2048, Layers: 16, Heads: 32, KVHeads: 8, FFN: 8192,
			Tied: true, RopeBase: 1000000, Context: 128000, Eps: 1e-5},
		// A small model for conformance tests: a convolution first, so
		// that the state meets the embeddings, then attention, a
		// convolution and attention.
		Shape{Name: "tiny-lfm2", Arch: "lfm2", Embd: 256, Layers: 4, Heads: 4, KVHeads: 2, FFN: 512,
			Tied: true, RopeBase: 1000000, Context: 128000, Eps: 1e-5, Scaled: true},
	)
}

// lfm2Taps is the kernel size of the convolutions (shortconv.l_cache), as
// in every released LFM2.
const lfm2Taps = 3

// lfm2Attention reports whether layer i of an LFM2 shape is attention:
// LFM2-1.2B's layout for 16 layers, every other layer from 1 otherwise.
func lfm2Attention(s Shape, i int) bool {
	if s.Layers == 16 {
		return slices.Contains([]int{2, 5, 8, 10, 12, 14}, i)
	}
	return i%2 == 1
}

// lfm2Keys are LFM2's keys beyond the common ones: the kernel size and
// the per-layer KV head counts (0 for a convolution), as an array of
// int32 as the converter writes it.
func lfm2Keys(s Shape) map[string]any {
	kv := make([]int32, s.Layers)
	for i := range kv {
		if lfm2Attention(s, i) {
			kv[i] = int32(s.KVHeads)
		}
	}
	arr, _ := gguf.NewArray(kv) // []int32 is an array type
	return map[string]any{
		"shortconv.l_cache":       uint32(lfm2Taps),
		"attention.head_count_kv": arr,
	}
}

// lfm2Tensors lists an LFM2 model's tensors.
func lfm2Tensors(s Shape, vocab int) []TensorSpec {
	e, v := int64(s.Embd), int64(vocab)
	q, kv := int64(s.Heads*s.HeadDim()), int64(s.KVHeads*s.HeadDim())
	d, ff := int64(s.HeadDim()), int64(s.FFN)
	out := []TensorSpec{{Name: "token_embd.weight", Shape: []int64{e, v}}}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		out = append(out, TensorSpec{Name: p + "attn_norm.weight", Shape: []int64{e}, Ones: true})
		if lfm2Attention(s, i) {
			out = append(out,
				TensorSpec{Name: p + "attn_q.weight", Shape: []int64{e, q}},
				TensorSpec{Name: p + "attn_k.weight", Shape: []int64{e, kv}},
				TensorSpec{Name: p + "attn_v.weight", Shape: []int64{e, kv}},
				TensorSpec{Name: p + "attn_q_norm.weight", Shape: []int64{d}, Ones: true},
				TensorSpec{Name: p + "attn_k_norm.weight", Shape: []int64{d}, Ones: true},
				TensorSpec{Name: p + "attn_output.weight", Shape: []int64{q, e}})
		} else {
			out = append(out,
				TensorSpec{Name: p + "shortconv.conv.weight", Shape: []int64{lfm2Taps, e}},
				TensorSpec{Name: p + "shortconv.in_proj.weight", Shape: []int64{e, 3 * e}},
				TensorSpec{Name: p + "shortconv.out_proj.weight", Shape: []int64{e, e}})
		}
		out = append(out,
			TensorSpec{Name: p + "ffn_norm.weight", Shape: []int64{e}, Ones: true},
			TensorSpec{Name: p + "ffn_gate.weight", Shape: []int64{e, ff}},
			TensorSpec{Name: p + "ffn_up.weight", Shape: []int64{e, ff}},
			TensorSpec{Name: p + "ffn_down.weight", Shape: []int64{ff, e}})
	}
	out = append(out, TensorSpec{Name: "token_embd_norm.weight", Shape: []int64{e}, Ones: true})
	if !s.Tied {
		out = append(out, TensorSpec{Name: "output.weight", Shape: []int64{e, v}})
	}
	return out
}
