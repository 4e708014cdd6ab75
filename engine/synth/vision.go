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
	// Gemma 3's SigLIP encoder at its real size (896×896 pictures, 4096
	// patches, 27 blocks), projecting to the tiny language model's width
	// (the real 2560 adds 0.02% of the work): for speed tests.
	Gemma3Encoder = VisionShape{Name: "tiny-gemma3-vision", Type: "gemma3",
		ImageSize: 896, PatchSize: 14, Embd: 1152, FFN: 4304, Layers: 27, Heads: 16, Merge: 4, LMEmbd: 256}
}

// VisionMarkers are the tokens a vision shape's vocabulary adds (Gemma
// 3's image and turn markers), so that they tokenize whole.
var VisionMarkers = []string{"<start_of_image>", "<end_of_image>", "<start_of_turn>", "<end_of_turn>"}

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
	// Merge is the side of Gemma 3's pooling window.
	Merge int
	// LMEmbd is the language model's width.
	LMEmbd int
}

// visionShapes holds the projector shapes, by the name of the language
// model shape they pair with.
var visionShapes []VisionShape

// Gemma3Encoder is a projector of Gemma 3's real encoder for the tiny
// Gemma 3 vision model (set in init).
var Gemma3Encoder VisionShape

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
// mmproj files hold them; norms, biases and the position embeddings F32.
// Weights have a standard deviation of 1/√fan-in and norms of
// 1+0.1·N(0,1), like the Scaled language models.
func WriteProjector(ctx context.Context, path string, s VisionShape, seed uint64) error {
	if s.Type != "gemma3" || s.PatchSize <= 0 || s.ImageSize%s.PatchSize != 0 || s.Heads <= 0 || s.Embd%s.Heads != 0 ||
		s.Merge <= 0 || (s.ImageSize/s.PatchSize)%s.Merge != 0 {
		return fmt.Errorf("synth: projector shape %q is inconsistent", s.Name)
	}
	w := gguf.NewWriter()
	set := []struct {
		k string
		v any
	}{
		{gguf.KeyArchitecture, "clip"},
		{gguf.KeyName, "Saji synthetic " + s.Name + " projector"},
		{gguf.KeyFileType, uint32(gguf.FileTypeMostlyF16)},
		{"clip.has_vision_encoder", true},
		{"clip.projector_type", s.Type},
		{"clip.use_gelu", true},
		{"clip.vision.image_size", uint32(s.ImageSize)},
		{"clip.vision.patch_size", uint32(s.PatchSize)},
		{"clip.vision.embedding_length", uint32(s.Embd)},
		{"clip.vision.feed_forward_length", uint32(s.FFN)},
		{"clip.vision.projection_dim", uint32(s.LMEmbd)},
		{"clip.vision.block_count", uint32(s.Layers)},
		{"clip.vision.attention.head_count", uint32(s.Heads)},
		{"clip.vision.attention.layer_norm_epsilon", float32(1e-6)},
		{"clip.vision.image_mean", []float32{0.5, 0.5, 0.5}},
		{"clip.vision.image_std", []float32{0.5, 0.5, 0.5}},
		{"clip.vision.projector.scale_factor", uint32(s.Merge)},
	}
	for _, kv := range set {
		if err := w.Set(kv.k, kv.v); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	e, p := int64(s.Embd), int64(s.PatchSize)
	side := int64(s.ImageSize / s.PatchSize)
	type spec struct {
		name  string
		shape []int64
		norm  bool
	}
	specs := []spec{
		{"mm.input_projection.weight", []int64{int64(s.LMEmbd), e}, false},
		{"mm.soft_emb_norm.weight", []int64{e}, true},
		{"v.patch_embd.weight", []int64{p, p, 3, e}, false},
		{"v.patch_embd.bias", []int64{e}, false},
		{"v.position_embd.weight", []int64{e, side * side}, false},
	}
	for i := range s.Layers {
		b := func(n string) string { return fmt.Sprintf("v.blk.%d.%s", i, n) }
		for _, n := range []string{"attn_q", "attn_k", "attn_v", "attn_out"} {
			specs = append(specs, spec{b(n + ".weight"), []int64{e, e}, false}, spec{b(n + ".bias"), []int64{e}, false})
		}
		specs = append(specs,
			spec{b("ln1.weight"), []int64{e}, true}, spec{b("ln1.bias"), []int64{e}, false},
			spec{b("ln2.weight"), []int64{e}, true}, spec{b("ln2.bias"), []int64{e}, false},
			spec{b("ffn_up.weight"), []int64{e, int64(s.FFN)}, false}, spec{b("ffn_up.bias"), []int64{int64(s.FFN)}, false},
			spec{b("ffn_down.weight"), []int64{int64(s.FFN), e}, false}, spec{b("ffn_down.bias"), []int64{e}, false},
		)
	}
	specs = append(specs, spec{"v.post_ln.weight", []int64{e}, true}, spec{"v.post_ln.bias", []int64{e}, false})
	for i, t := range specs {
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
		case len(t.shape) > 1 && t.name == "mm.input_projection.weight":
			std = 1 / math.Sqrt(float64(t.shape[1]))
		case len(t.shape) > 1 && t.name != "v.position_embd.weight":
			std = 1 / math.Sqrt(float64(n/t.shape[len(t.shape)-1]))
		}
		for j := range vals {
			vals[j] = float32(mean + r.NormFloat64()*std)
		}
		typ := quant.TypeF32
		if len(t.shape) > 1 && t.name != "v.position_embd.weight" {
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
	w, err := MiniVocab("llama", VisionMarkers...)
	if err != nil {
		return err
	}
	if template != "" {
		if err := w.Set("tokenizer.chat_template", template); err != nil {
			return fmt.Errorf("synth: %w", err)
		}
	}
	var buf bytes.Buffer
	if _, err := w.Encode(ctx, &buf); err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	vocab, err := gguf.OpenBytes(buf.Bytes())
	if err != nil {
		return fmt.Errorf("synth: %w", err)
	}
	defer vocab.Close()
	return Write(ctx, path, Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: seed})
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
