package synth

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"math"
	"math/rand/v2"
	"slices"
	"strings"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// Vision models: a tiny Gemma 3 language model and its projector, an
// mmproj file in llama.cpp's clip layout (SigLIP blocks and Gemma 3's
// pooling projector), for conformance tests of engine/vision against
// llama.cpp's mtmd.

func init() {
	registerArch("gemma3", archSpec{
		keys: func(s Shape) map[string]any {
			return map[string]any{
				"attention.sliding_window":         uint32(s.Window),
				"attention.sliding_window_pattern": uint32(2),
				"rope.freq_base_swa":               float32(10000),
			}
		},
		tensors: func(s Shape, vocab int) []TensorSpec {
			head := int64(s.HeadDim())
			return edit(s.llamaTensors(vocab), nil, map[string][]TensorSpec{
				"attn_v.weight": {
					{Name: "attn_q_norm.weight", Shape: []int64{head}, Ones: true},
					{Name: "attn_k_norm.weight", Shape: []int64{head}, Ones: true},
				},
				"attn_output.weight": {{Name: "post_attention_norm.weight", Shape: []int64{int64(s.Embd)}, Ones: true}},
				"ffn_down.weight":    {{Name: "post_ffw_norm.weight", Shape: []int64{int64(s.Embd)}, Ones: true}},
			})
		},
	})
	addShapes(Shape{Name: "tiny-gemma3-vision", Arch: "gemma3", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		Window: 512, RopeBase: 1000000, Context: 8192, Eps: 1e-6, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-gemma3-vision", Type: "gemma3",
		ImageSize: 64, PatchSize: 8, Embd: 64, FFN: 128, Layers: 2, Heads: 4, Merge: 2, LMEmbd: 256})
	// LLaVA 1.5's kind: a tiny Llama and a CLIP encoder with its class
	// embedding and pre-layernorm, quick GELU, three blocks of which
	// llama.cpp runs two (no feature layer named: all but the last), the
	// first feed-forward layer named ffn_down as the older converters
	// name it, and the two-layer MLP projector.
	addShapes(Shape{Name: "tiny-llava-vision", Arch: "llama", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		RopeBase: 10000, Context: 4096, Eps: 1e-5, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-llava-vision", Type: "mlp",
		ImageSize: 64, PatchSize: 8, Embd: 64, FFN: 128, Layers: 3, Heads: 4, Merge: 1, LMEmbd: 256})
	// LLaVA 1.6's kind: the same with image-grid pinpoints (anyres) of
	// two squares side by side, two stacked and four, the merge type and
	// the newline embedding its files carry (which llama.cpp reads and
	// does not use).
	addShapes(Shape{Name: "tiny-llava16-vision", Arch: "llama", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		RopeBase: 10000, Context: 4096, Eps: 1e-5, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-llava16-vision", Type: "mlp",
		ImageSize: 64, PatchSize: 8, Embd: 64, FFN: 128, Layers: 3, Heads: 4, Merge: 1, LMEmbd: 256,
		Pinpoints: []int32{128, 64, 64, 128, 128, 128}})
	// SmolVLM's kind (idefics3): a tiny Llama (SmolLM2's architecture)
	// over the mini vocabulary with SmolVLM's markers, and a SigLIP
	// encoder with the pixel shuffle (2 × 2) and one linear layer; a
	// picture is scaled to a longest edge of 128 pixels and cut into
	// squares of 64, then an overview.
	addShapes(Shape{Name: "tiny-smolvlm-vision", Arch: "llama", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		RopeBase: 10000, Context: 4096, Eps: 1e-5, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-smolvlm-vision", Type: "idefics3",
		ImageSize: 64, PatchSize: 8, Embd: 64, FFN: 128, Layers: 2, Heads: 4, Merge: 2, LMEmbd: 256, LongestEdge: 128})
	// Mistral Small 3.1's kind (pixtral): a tiny Mistral 3 over the mini
	// vocabulary with Mistral's picture markers, and a Pixtral encoder
	// (RMSNorm, 2-D rope, SwiGLU feed-forward layers, no biases) with the
	// 2 × 2 patch merger and the two-layer projector; a picture keeps its
	// aspect, rounded to whole 16-pixel merges, and each row of its
	// embeddings but the last ends with the [IMG_BREAK] embedding.
	addShapes(Shape{Name: "tiny-mistral3-vision", Arch: "mistral3", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		RopeBase: 1000000, Context: 32768, Eps: 1e-5, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-mistral3-vision", Type: "pixtral",
		ImageSize: 128, PatchSize: 8, Embd: 64, FFN: 128, Layers: 2, Heads: 4, Merge: 2, LMEmbd: 256})
	// Pixtral 12B's kind: the same encoder without the patch merger
	// (merge 1, no spatial_merge_size), over a tiny Llama (Mistral
	// Nemo's architecture).
	addShapes(Shape{Name: "tiny-pixtral-vision", Arch: "llama", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		RopeBase: 1000000, Context: 32768, Eps: 1e-5, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-pixtral-vision", Type: "pixtral",
		ImageSize: 128, PatchSize: 8, Embd: 64, FFN: 128, Layers: 2, Heads: 4, Merge: 1, LMEmbd: 256})
	// Qwen2.5-VL's kind: a tiny Qwen2-VL language model (Qwen2 with
	// M-RoPE over sections of 8, 12 and 12 pairs, the real 16, 24, 24
	// halved) over the mini vocabulary with Qwen's picture markers, and
	// an encoder of RMSNorms, SwiGLU layers and the vision M-RoPE whose
	// blocks 0 and 2 attend within windows of 112 pixels (14 patches of
	// 8) and 1 and 3 over the whole picture, then the 2 × 2 merger.
	// The RMSNorm epsilon is 0: llama.cpp 3f545bec's qwen2vl loader does
	// not read attention.layer_norm_rms_epsilon and runs with 0 (real
	// files say 1e-6, which Saji reads), so only a file that says 0 gives
	// figures both engines compute alike.
	addShapes(Shape{Name: "tiny-qwen25vl", Arch: "qwen2vl", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		QKVBias: true, RopeBase: 1000000, Context: 32768, Eps: 0, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-qwen25vl", Type: "qwen2.5vl_merger",
		ImageSize: 64, PatchSize: 8, Embd: 64, FFN: 128, Layers: 4, Heads: 4, Merge: 2, LMEmbd: 256, WindowPattern: 2})
	// Qwen2-VL's kind: the same language model, and an encoder of
	// LayerNorms and quick GELU layers attending over the whole picture.
	addShapes(Shape{Name: "tiny-qwen2vl", Arch: "qwen2vl", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
		QKVBias: true, RopeBase: 1000000, Context: 32768, Eps: 0, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-qwen2vl", Type: "qwen2vl_merger",
		ImageSize: 64, PatchSize: 8, Embd: 64, FFN: 128, Layers: 2, Heads: 4, Merge: 2, LMEmbd: 256})
	// Qwen3-VL's kind: a tiny Qwen3-VL language model (Qwen3 with IMRoPE,
	// three layers, the first two deepstack layers: llama.cpp's graph
	// cannot add deepstack after the last layer, whose rows it has cut to
	// the outputs) and an encoder with a patch bias, a grid
	// of 8 × 8 learned positions (resized to a picture's patches), one
	// projection for q, k and v, LayerNorms and GELU layers, and deepstack
	// mergers after blocks 0 and 1 of 3.
	addShapes(Shape{Name: "tiny-qwen3vl", Arch: "qwen3vl", Embd: 256, Layers: 3, Heads: 4, KVHeads: 2, FFN: 512,
		HeadNorm: true, Deepstack: 2, RopeBase: 5000000, Context: 32768, Eps: 1e-6, Scaled: true})
	visionShapes = append(visionShapes, VisionShape{Name: "tiny-qwen3vl", Type: "qwen3vl_merger",
		ImageSize: 64, PatchSize: 8, Embd: 64, FFN: 128, Layers: 3, Heads: 4, Merge: 2, LMEmbd: 256, Deepstack: []int{0, 1}})
	// Gemma 3's SigLIP encoder at its real size (896×896 pictures, 4096
	// patches, 27 blocks), projecting to the tiny language model's width
	// (the real 2560 adds 0.02% of the work): for speed tests.
	Gemma3Encoder = VisionShape{Name: "tiny-gemma3-vision", Type: "gemma3",
		ImageSize: 896, PatchSize: 14, Embd: 1152, FFN: 4304, Layers: 27, Heads: 16, Merge: 4, LMEmbd: 256}
	// Qwen2.5-VL 7B's encoder at its real size (32 blocks of 1280, heads
	// of 80, windows of 112 pixels, every eighth block over the whole
	// picture), projecting to the tiny language model's width: for speed
	// tests.
	Qwen25Encoder = VisionShape{Name: "tiny-qwen25vl", Type: "qwen2.5vl_merger",
		ImageSize: 560, PatchSize: 14, Embd: 1280, FFN: 3420, Layers: 32, Heads: 16, Merge: 2, LMEmbd: 256, WindowPattern: 8}
	// Mistral Small 3.1's Pixtral encoder at its real size (24 blocks of
	// 1024, heads of 64, 2-D RoPE over the whole picture, the 2 × 2 patch
	// merger), projecting to the tiny language model's width: for speed
	// tests.
	Mistral3Encoder = VisionShape{Name: "tiny-mistral3-vision", Type: "pixtral",
		ImageSize: 1540, PatchSize: 14, Embd: 1024, FFN: 4096, Layers: 24, Heads: 16, Merge: 2, LMEmbd: 256}
}

// VisionMarkers are the tokens a vision shape's vocabulary adds (Gemma
// 3's image and turn markers), so that they tokenize whole.
var VisionMarkers = []string{"<start_of_image>", "<end_of_image>", "<start_of_turn>", "<end_of_turn>"}

// SmolVLMMarkers are the tokens SmolVLM's vocabulary adds for its
// pictures (mtmd looks the first three up whole; the squares' row and
// column markers of a 2 × 2 grid).
var SmolVLMMarkers = []string{"\n\n", "<fake_token_around_image>", "<global-img>",
	"<row_1_col_1>", "<row_1_col_2>", "<row_2_col_1>", "<row_2_col_2>"}

// PixtralMarkers are the tokens Mistral's vocabulary has for pictures
// (mtmd writes [IMG_END] after a picture's embeddings).
var PixtralMarkers = []string{"[IMG]", "[IMG_BREAK]", "[IMG_END]"}

// QwenVLMarkers are the tokens Qwen's vocabulary has around pictures.
var QwenVLMarkers = []string{"<|vision_start|>", "<|vision_end|>", "<|image_pad|>"}

// VisionShape is the shape of a synthetic vision projector.
type VisionShape struct {
	// Name is the language model's shape it pairs with.
	Name string
	// Type is clip.projector_type.
	Type string
	// ImageSize and PatchSize are the sides of the encoder's square input
	// and of a patch, in pixels.
	ImageSize, PatchSize int
	// Embd, FFN, Layers and Heads are the encoder's width, feed-forward
	// length, blocks and attention heads.
	Embd, FFN, Layers, Heads int
	// Merge is the side of Gemma 3's pooling window, of SmolVLM's pixel
	// shuffle or of Pixtral's patch merger (1 for mlp).
	Merge int
	// LMEmbd is the language model's width.
	LMEmbd int
	// Pinpoints are LLaVA 1.6's image-grid resolutions, width and height
	// pairs (clip.vision.image_grid_pinpoints); none for a fixed size.
	Pinpoints []int32
	// LongestEdge is SmolVLM's preprocessing size
	// (clip.vision.preproc_image_size).
	LongestEdge int
	// WindowPattern is Qwen2.5-VL's clip.vision.n_wa_pattern: every
	// WindowPattern-th block attends over the whole picture, the others
	// within windows.
	WindowPattern int
	// Deepstack lists the blocks followed by one of Qwen3-VL's deepstack
	// mergers.
	Deepstack []int
}

// visionShapes holds the projector shapes, by the name of the language
// model shape they pair with.
var visionShapes []VisionShape

// Gemma3Encoder, Qwen25Encoder and Mistral3Encoder are projectors of
// Gemma 3's, Qwen2.5-VL's and Mistral Small 3.1's real encoders for the
// tiny vision models (set in init).
var Gemma3Encoder, Qwen25Encoder, Mistral3Encoder VisionShape

// VisionShapeNames returns the names of the language model shapes that
// a projector pairs with.
func VisionShapeNames() []string {
	names := make([]string, len(visionShapes))
	for i, s := range visionShapes {
		names[i] = s.Name
	}
	return names
}

// LookupVisionShape returns the projector that pairs with the language
// model shape called name, and whether there is one.
func LookupVisionShape(name string) (VisionShape, bool) {
	i := slices.IndexFunc(visionShapes, func(s VisionShape) bool { return strings.EqualFold(s.Name, name) })
	if i < 0 {
		return VisionShape{}, false
	}
	return visionShapes[i], true
}

// WriteProjector writes a projector of shape s with random weights chosen
// by seed to path (atomically). Matrices are F16, as convert_hf_to_gguf's
// mmproj files hold them; norms, biases and Gemma 3's position embeddings
// F32 (LLaVA's F16, as its converter writes every two-dimensional
// weight). Weights have a standard deviation of 1/√fan-in and norms of
// 1+0.1·N(0,1), like the Scaled language models.
func WriteProjector(ctx context.Context, path string, s VisionShape, seed uint64) error {
	if !slices.Contains([]string{"gemma3", "mlp", "idefics3", "pixtral", "qwen2vl_merger", "qwen2.5vl_merger", "qwen3vl_merger"}, s.Type) || s.PatchSize <= 0 || s.ImageSize%s.PatchSize != 0 || s.Heads <= 0 || s.Embd%s.Heads != 0 ||
		s.Merge <= 0 || (s.ImageSize/s.PatchSize)%s.Merge != 0 {
		return fmt.Errorf("synth: projector shape %q is inconsistent", s.Name)
	}
	w := gguf.NewWriter()
	for _, kv := range projectorKeys(s) {
		if err := w.Set(kv.k, kv.v); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	for i, t := range projectorTensors(s) {
		n := int64(1)
		for _, d := range t.shape {
			n *= d
		}
		r := rand.New(rand.NewPCG(seed, uint64(i)))
		vals := make([]float32, n)
		mean, std := 0.0, 0.1
		switch {
		case t.norm:
			mean = 1
		case t.fanIn > 0:
			std = 1 / math.Sqrt(float64(t.fanIn))
		}
		for j := range vals {
			vals[j] = float32(mean + r.NormFloat64()*std)
		}
		typ := quant.TypeF32
		if t.f16 {
			typ = quant.TypeF16
		}
		size, err := typ.RowSize(n)
		if err != nil {
			return fmt.Errorf("synth: %w", err)
		}
		data := make([]byte, size)
		if err := quant.Quantize(typ, vals, data); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
		if err := w.AddTensor(t.name, typ, t.shape, data); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	if err := w.WriteFile(ctx, path); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	return nil
}

// keyValue is one metadata key of a projector file.
type keyValue struct {
	k string
	v any
}

// projectorKeys returns the metadata of a projector of shape s, in the
// order the file holds it.
func projectorKeys(s VisionShape) []keyValue {
	kvs := []keyValue{
		{gguf.KeyArchitecture, "clip"},
		{gguf.KeyName, "Saji synthetic " + s.Name + " projector"},
		{gguf.KeyFileType, uint32(gguf.FileTypeMostlyF16)},
		{"clip.has_vision_encoder", true},
	}
	// CLIP's (LLaVA's) activation, epsilon and normalization; SigLIP's
	// (Gemma 3's).
	gelu, eps := true, float32(1e-6)
	mean, std := []float32{0.5, 0.5, 0.5}, []float32{0.5, 0.5, 0.5}
	clipMean, clipStd := []float32{0.48145466, 0.4578275, 0.40821073}, []float32{0.26862954, 0.26130258, 0.27577711}
	switch s.Type {
	case "mlp":
		kvs = append(kvs, keyValue{"clip.has_llava_projector", true})
		gelu, eps = false, 1e-5
		mean, std = clipMean, clipStd
	case "pixtral":
		// Pixtral's SwiGLU (use_silu), as convert_hf_to_gguf writes it.
		gelu, eps = false, 1e-5
		mean, std = clipMean, clipStd
	case "qwen2vl_merger", "qwen2.5vl_merger":
		// Qwen2-VL's quick GELU (neither key), Qwen2.5-VL's SwiGLU.
		gelu = false
		mean, std = clipMean, clipStd
	}
	// Qwen3-VL's GELU (use_gelu) and SigLIP 2's normalization are the
	// defaults above.
	kvs = append(kvs, keyValue{"clip.projector_type", s.Type})
	if s.Type != "qwen2vl_merger" {
		kvs = append(kvs, keyValue{"clip.use_gelu", gelu})
	}
	if s.Type == "pixtral" || s.Type == "qwen2.5vl_merger" {
		kvs = append(kvs, keyValue{"clip.use_silu", true})
	}
	kvs = append(kvs,
		keyValue{"clip.vision.image_size", uint32(s.ImageSize)},
		keyValue{"clip.vision.patch_size", uint32(s.PatchSize)},
		keyValue{"clip.vision.embedding_length", uint32(s.Embd)},
		keyValue{"clip.vision.feed_forward_length", uint32(s.FFN)},
		keyValue{"clip.vision.projection_dim", uint32(s.LMEmbd)},
		keyValue{"clip.vision.block_count", uint32(s.Layers)},
		keyValue{"clip.vision.attention.head_count", uint32(s.Heads)},
		keyValue{"clip.vision.attention.layer_norm_epsilon", eps},
		keyValue{"clip.vision.image_mean", mean},
		keyValue{"clip.vision.image_std", std},
	)
	if s.Type == "gemma3" || s.Type == "idefics3" {
		kvs = append(kvs, keyValue{"clip.vision.projector.scale_factor", uint32(s.Merge)})
	}
	if s.Type == "pixtral" && s.Merge > 1 {
		kvs = append(kvs, keyValue{"clip.vision.spatial_merge_size", uint32(s.Merge)})
	}
	if s.WindowPattern > 0 {
		kvs = append(kvs, keyValue{"clip.vision.n_wa_pattern", uint32(s.WindowPattern)})
	}
	if s.Type == "qwen3vl_merger" {
		deep := make([]bool, s.Layers)
		for _, i := range s.Deepstack {
			deep[i] = true
		}
		kvs = append(kvs, keyValue{"clip.vision.spatial_merge_size", uint32(s.Merge)},
			keyValue{"clip.vision.is_deepstack_layers", deep})
	}
	if s.LongestEdge > 0 {
		kvs = append(kvs, keyValue{"clip.vision.preproc_image_size", uint32(s.LongestEdge)})
	}
	if s.Pinpoints != nil {
		kvs = append(kvs, keyValue{"clip.vision.image_grid_pinpoints", s.Pinpoints},
			keyValue{"clip.vision.mm_patch_merge_type", "spatial_unpad"})
	}
	return kvs
}

// tensorSpec is one tensor of a projector file: its name and shape, and
// how WriteProjector draws its values.
type tensorSpec struct {
	name  string
	shape []int64
	// norm draws 1+0.1·N(0,1), fanIn > 0 draws N(0,1)/√fanIn, the rest
	// 0.1·N(0,1).
	norm  bool
	fanIn int64
	// f16 stores the tensor as F16 (F32 otherwise).
	f16 bool
}

// matrix is a tensorSpec of an F16 weight matrix whose inputs are all its
// dimensions but the last.
func matrix(name string, shape ...int64) tensorSpec {
	fan := int64(1)
	for _, d := range shape[:len(shape)-1] {
		fan *= d
	}
	return tensorSpec{name: name, shape: shape, fanIn: fan, f16: true}
}

// projectorTensors returns the tensors of a projector of shape s, in the
// order the file holds them (each one's index seeds its values).
func projectorTensors(s VisionShape) []tensorSpec {
	e, p := int64(s.Embd), int64(s.PatchSize)
	side := int64(s.ImageSize / s.PatchSize)
	vec := func(name string, n int64) tensorSpec { return tensorSpec{name: name, shape: []int64{n}} }
	norm := func(name string, n int64) tensorSpec { return tensorSpec{name: name, shape: []int64{n}, norm: true} }
	var specs []tensorSpec
	switch s.Type {
	case "pixtral":
		return pixtralTensors(s)
	case "qwen2vl_merger", "qwen2.5vl_merger", "qwen3vl_merger":
		return qwenVLTensors(s)
	}
	if s.Type == "mlp" {
		lm := int64(s.LMEmbd)
		specs = []tensorSpec{
			matrix("mm.0.weight", e, lm), vec("mm.0.bias", lm),
			matrix("mm.2.weight", lm, lm), vec("mm.2.bias", lm),
			vec("v.class_embd", e),
			matrix("v.patch_embd.weight", p, p, 3, e),
			{name: "v.position_embd.weight", shape: []int64{e, side*side + 1}, f16: true},
			norm("v.pre_ln.weight", e), vec("v.pre_ln.bias", e),
		}
	} else if s.Type == "idefics3" {
		// convert_hf_to_gguf keeps SmolVLM's embeddings (the patch
		// kernel, the positions) F32.
		patch := matrix("v.patch_embd.weight", p, p, 3, e)
		patch.f16 = false
		specs = []tensorSpec{
			matrix("mm.model.fc.weight", e*int64(s.Merge*s.Merge), int64(s.LMEmbd)),
			patch,
			vec("v.patch_embd.bias", e),
			{name: "v.position_embd.weight", shape: []int64{e, side * side}},
		}
	} else {
		in := matrix("mm.input_projection.weight", int64(s.LMEmbd), e)
		in.fanIn = e
		specs = []tensorSpec{
			in,
			norm("mm.soft_emb_norm.weight", e),
			matrix("v.patch_embd.weight", p, p, 3, e),
			vec("v.patch_embd.bias", e),
			{name: "v.position_embd.weight", shape: []int64{e, side * side}},
		}
	}
	// The feed-forward layers' names: LLaVA's older converters call the
	// first layer (fc1) ffn_down and the second ffn_up.
	first, second := "ffn_up", "ffn_down"
	if s.Type == "mlp" {
		first, second = "ffn_down", "ffn_up"
	}
	for i := range s.Layers {
		b := func(n string) string { return fmt.Sprintf("v.blk.%d.%s", i, n) }
		for _, n := range []string{"attn_q", "attn_k", "attn_v", "attn_out"} {
			specs = append(specs, matrix(b(n+".weight"), e, e), vec(b(n+".bias"), e))
		}
		specs = append(specs,
			norm(b("ln1.weight"), e), vec(b("ln1.bias"), e),
			norm(b("ln2.weight"), e), vec(b("ln2.bias"), e),
			matrix(b(first+".weight"), e, int64(s.FFN)), vec(b(first+".bias"), int64(s.FFN)),
			matrix(b(second+".weight"), int64(s.FFN), e), vec(b(second+".bias"), e),
		)
	}
	if s.Type != "mlp" {
		specs = append(specs, norm("v.post_ln.weight", e), vec("v.post_ln.bias", e))
	}
	if s.Pinpoints != nil {
		specs = append(specs, vec("model.image_newline", int64(s.LMEmbd)))
	}
	return specs
}

// pixtralTensors returns the tensors of a Pixtral projector of shape s
// (with Mistral Small 3.1's patch merger where s.Merge is more than 1),
// as convert_hf_to_gguf names them: no biases, RMSNorm weights, gated
// feed-forward layers, and the [IMG_BREAK] token's embedding.
func pixtralTensors(s VisionShape) []tensorSpec {
	e, p, lm := int64(s.Embd), int64(s.PatchSize), int64(s.LMEmbd)
	norm := func(name string, n int64) tensorSpec { return tensorSpec{name: name, shape: []int64{n}, norm: true} }
	var specs []tensorSpec
	if s.Merge > 1 {
		specs = []tensorSpec{norm("mm.input_norm.weight", e), matrix("mm.patch_merger.weight", e*int64(s.Merge*s.Merge), e)}
	}
	specs = append(specs,
		matrix("mm.1.weight", e, lm),
		matrix("mm.2.weight", lm, lm),
		tensorSpec{name: "v.token_embd.img_break", shape: []int64{lm}},
		matrix("v.patch_embd.weight", p, p, 3, e),
		norm("v.pre_ln.weight", e),
	)
	for i := range s.Layers {
		b := func(n string) string { return fmt.Sprintf("v.blk.%d.%s", i, n) }
		for _, n := range []string{"attn_q", "attn_k", "attn_v", "attn_out"} {
			specs = append(specs, matrix(b(n+".weight"), e, e))
		}
		specs = append(specs, norm(b("ln1.weight"), e), norm(b("ln2.weight"), e),
			matrix(b("ffn_gate.weight"), e, int64(s.FFN)), matrix(b("ffn_up.weight"), e, int64(s.FFN)),
			matrix(b("ffn_down.weight"), int64(s.FFN), e))
	}
	return specs
}

// qwenVLTensors returns the tensors of a Qwen-VL projector of shape s,
// as convert_hf_to_gguf names them: the two frames' patch embeddings,
// biased projections, LayerNorms (Qwen2-VL) or RMSNorms and gated
// feed-forward layers (Qwen2.5-VL), and the merger's two layers over
// four patches; Qwen3-VL's patch bias, learned positions, one q, k and v
// projection, and deepstack mergers.
func qwenVLTensors(s VisionShape) []tensorSpec {
	e, p, lm, f := int64(s.Embd), int64(s.PatchSize), int64(s.LMEmbd), int64(s.FFN)
	side := int64(s.ImageSize / s.PatchSize)
	qwen3 := s.Type == "qwen3vl_merger"
	vec := func(name string, n int64) tensorSpec { return tensorSpec{name: name, shape: []int64{n}} }
	norm := func(name string, n int64) tensorSpec { return tensorSpec{name: name, shape: []int64{n}, norm: true} }
	rms := s.Type == "qwen2.5vl_merger"
	normSpecs := func(name string) []tensorSpec {
		if rms {
			return []tensorSpec{norm(name+".weight", e)}
		}
		return []tensorSpec{norm(name+".weight", e), vec(name+".bias", e)}
	}
	specs := []tensorSpec{
		matrix("mm.0.weight", 4*e, 4*e), vec("mm.0.bias", 4*e),
		matrix("mm.2.weight", 4*e, lm), vec("mm.2.bias", lm),
		matrix("v.patch_embd.weight", p, p, 3, e),
		matrix("v.patch_embd.weight.1", p, p, 3, e),
	}
	if qwen3 {
		specs = append(specs, vec("v.patch_embd.bias", e), tensorSpec{name: "v.position_embd.weight", shape: []int64{e, side * side}})
		for _, i := range s.Deepstack {
			d := func(n string) string { return fmt.Sprintf("v.deepstack.%d.%s", i, n) }
			specs = append(specs, norm(d("norm.weight"), 4*e), vec(d("norm.bias"), 4*e),
				matrix(d("fc1.weight"), 4*e, 4*e), vec(d("fc1.bias"), 4*e),
				matrix(d("fc2.weight"), 4*e, lm), vec(d("fc2.bias"), lm))
		}
	}
	for i := range s.Layers {
		b := func(n string) string { return fmt.Sprintf("v.blk.%d.%s", i, n) }
		names := []string{"attn_q", "attn_k", "attn_v", "attn_out"}
		if qwen3 {
			specs = append(specs, matrix(b("attn_qkv.weight"), e, 3*e), vec(b("attn_qkv.bias"), 3*e))
			names = names[3:]
		}
		for _, n := range names {
			specs = append(specs, matrix(b(n+".weight"), e, e), vec(b(n+".bias"), e))
		}
		specs = append(specs, normSpecs(b("ln1"))...)
		specs = append(specs, normSpecs(b("ln2"))...)
		if rms {
			specs = append(specs, matrix(b("ffn_gate.weight"), e, f), vec(b("ffn_gate.bias"), f))
		}
		specs = append(specs,
			matrix(b("ffn_up.weight"), e, f), vec(b("ffn_up.bias"), f),
			matrix(b("ffn_down.weight"), f, e), vec(b("ffn_down.bias"), e))
	}
	return append(specs, normSpecs("v.post_ln")...)
}

// Picture returns a w × h test picture, the same on every call: colour
// gradients crossed by a diagonal band and a grid of dots, so that every
// channel and region of an encoder's input differs.
func Picture(w, h int) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			r := uint8(255 * x / max(w-1, 1))
			g := uint8(255 * y / max(h-1, 1))
			b := uint8((x*7 + y*13) % 256)
			if d := x - y; d > -w/8 && d < w/8 {
				r, g, b = 255-r, 255-g, 40
			}
			if x%9 == 4 && y%7 == 3 {
				r, g, b = 250, 250, 250
			}
			img.SetNRGBA(x, y, color.NRGBA{R: r, G: g, B: b, A: 255})
		}
	}
	return img
}

// WriteVisionModel writes the language model of shape name (one that a
// projector pairs with) to path, of file type ft with weights seeded by
// seed, over MiniVocab's vocabulary with VisionMarkers kept whole, and
// template as its chat template when not "" (the default ChatML
// otherwise).
func WriteVisionModel(ctx context.Context, path, name string, ft gguf.FileType, seed uint64, template string) error {
	shape, err := LookupShape(name)
	if err != nil {
		return err
	}
	vocab, err := visionVocab(ctx, name, template)
	if err != nil {
		return err
	}
	defer vocab.Close()
	return Write(ctx, path, Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: seed})
}

// visionVocab returns MiniVocab's vocabulary with VisionMarkers kept
// whole (and SmolVLMMarkers or PixtralMarkers, for a shape whose
// projector is idefics3 or pixtral),
// with template as its chat template when not "".
func visionVocab(ctx context.Context, name, template string) (*gguf.File, error) {
	markers := VisionMarkers
	if vs, ok := LookupVisionShape(name); ok && vs.Type == "idefics3" {
		markers = append(slices.Clone(markers), SmolVLMMarkers...)
	} else if ok && vs.Type == "pixtral" {
		markers = append(slices.Clone(markers), PixtralMarkers...)
	} else if ok && strings.HasPrefix(vs.Type, "qwen") {
		markers = append(slices.Clone(markers), QwenVLMarkers...)
	}
	w, err := MiniVocab("llama", markers...)
	if err != nil {
		return nil, err
	}
	if template != "" {
		if err := w.Set("tokenizer.chat_template", template); err != nil {
			return nil, fmt.Errorf("synth: %w", err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Encode(ctx, &buf); err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	vocab, err := gguf.OpenBytes(buf.Bytes())
	if err != nil {
		return nil, fmt.Errorf("synth: %w", err)
	}
	return vocab, nil
}

// WriteVisionPair writes the language model of shape name (WriteVisionModel,
// without a chat template of its own) to path and the projector that
// pairs with it to proj, both seeded by seed.
func WriteVisionPair(ctx context.Context, path, proj, name string, ft gguf.FileType, seed uint64) error {
	vs, ok := LookupVisionShape(name)
	if !ok {
		return fmt.Errorf("synth: shape %s has no vision projector", name)
	}
	if err := WriteVisionModel(ctx, path, name, ft, seed, ""); err != nil {
		return err
	}
	return WriteProjector(ctx, proj, vs, seed)
}
