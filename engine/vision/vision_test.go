package vision

import (
	"bytes"
	"context"
	"errors"
	"image"
	"maps"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
	"saji/kernels/quant"
)

// tinyProjector writes and loads the projector of a tiny vision shape.
func tinyProjector(t testing.TB, shape string) *Projector {
	t.Helper()
	vs, _ := synth.LookupVisionShape(shape)
	path := filepath.Join(t.TempDir(), "mmproj.gguf")
	if err := synth.WriteProjector(context.Background(), path, vs, 1); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	p, err := Load(context.Background(), f, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadRefuses checks that files Saji cannot run fail at Load with the
// reason.
func TestLoadRefuses(t *testing.T) {
	// llava holds the keys of a LLaVA (mlp) projector with added keys.
	llava := func(more map[string]any) map[string]any {
		keys := map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "mlp",
			"clip.vision.image_size": uint32(64), "clip.vision.patch_size": uint32(8), "clip.vision.embedding_length": uint32(64),
			"clip.vision.feed_forward_length": uint32(128), "clip.vision.block_count": uint32(2), "clip.vision.attention.head_count": uint32(4)}
		maps.Copy(keys, more)
		return keys
	}
	// smolvlm holds the keys of a SmolVLM (idefics3) projector with added
	// keys.
	smolvlm := func(more map[string]any) map[string]any {
		keys := llava(map[string]any{"clip.projector_type": "idefics3", "clip.vision.projector.scale_factor": uint32(2)})
		maps.Copy(keys, more)
		return keys
	}
	// pixtral holds the keys of a Pixtral projector with added keys.
	pixtral := func(more map[string]any) map[string]any {
		keys := llava(map[string]any{"clip.projector_type": "pixtral", "clip.use_silu": true, "clip.vision.spatial_merge_size": uint32(2)})
		maps.Copy(keys, more)
		return keys
	}
	// qwen holds the keys of a Qwen2.5-VL projector with added keys.
	qwen := func(more map[string]any) map[string]any {
		keys := llava(map[string]any{"clip.projector_type": "qwen2.5vl_merger", "clip.use_silu": true, "clip.vision.n_wa_pattern": uint32(2)})
		maps.Copy(keys, more)
		return keys
	}
	tests := []struct {
		name    string
		keys    map[string]any
		tensors []string
		want    string
	}{
		{"a language model", map[string]any{"general.architecture": "llama"}, nil, `architecture is "llama"`},
		{"no vision encoder", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": false}, nil, "no vision encoder"},
		{"another projector", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "internvl"}, nil, `"internvl" is not implemented`},
		{"InternVL's projector", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.vision.projector_type": "internvl"}, nil, `"internvl" is not implemented`},
		{"Qwen2.5-VL without its window pattern", func() map[string]any {
			k := qwen(nil)
			delete(k, "clip.vision.n_wa_pattern")
			return k
		}(), nil, "reading clip.vision.n_wa_pattern"},
		{"Qwen-VL with heads of 2 values", qwen(map[string]any{"clip.vision.attention.head_count": uint32(32)}), nil, "heads of a multiple of 4"},
		{"Qwen-VL merging 4 × 4", qwen(map[string]any{"clip.vision.spatial_merge_size": uint32(4)}), nil, "not a spatial merge size of 4"},
		{"Qwen-VL with wide patches", qwen(map[string]any{"clip.vision.patch_size": uint32(64), "clip.vision.image_size": uint32(128)}), nil, "wider than 64 pixels"},
		{"Qwen2.5-VL's windows past its blocks", qwen(map[string]any{"clip.vision.n_wa_pattern": uint32(3)}), nil, "window attention pattern of 3 over 2 blocks"},
		{"Qwen2-VL with gated quick GELU", qwen(map[string]any{"clip.projector_type": "qwen2vl_merger", "clip.use_silu": false}), []string{"v.blk.0.ffn_gate.weight"}, "gated quick GELU"},
		{"Qwen2.5-VL without gates", qwen(nil), nil, "SiLU feed-forward layers without a gate"},
		{"Qwen-VL with a patch bias", qwen(nil), []string{"v.blk.0.ffn_gate.weight", "v.patch_embd.bias"}, "patch embedding bias"},
		{"Qwen2.5-VL without tensors", qwen(nil), []string{"v.blk.0.ffn_gate.weight"}, "v.patch_embd.weight is missing"},
		{"SmolVLM without a pixel shuffle", smolvlm(map[string]any{"clip.vision.projector.scale_factor": uint32(1)}), nil, "scale factor is 1, not a pixel shuffle"},
		{"SmolVLM with too long an edge", smolvlm(map[string]any{"clip.vision.preproc_image_size": uint32(64 * 9)}), nil, "makes 82 squares of 64 (at most 65)"},
		{"odd pinpoints", llava(map[string]any{"clip.vision.image_grid_pinpoints": []int32{128, 64, 64}}), nil, "pinpoints must be width, height pairs"},
		{"a pinpoint off the squares", llava(map[string]any{"clip.vision.image_grid_pinpoints": []int32{128, 64, 100, 64}}), nil, "the pinpoint 100×64 is not a grid"},
		{"a pinpoint of too many squares", llava(map[string]any{"clip.vision.image_grid_pinpoints": []int32{64 * 5, 64 * 4}}), nil, "the pinpoint 320×256 is not a grid of at most 16"},
		{"Yi-VL's normalized MLP", llava(nil), []string{"mm.3.weight"}, "mm.3 (Yi-VL"},
		{"no pinpoints in the list", llava(map[string]any{"clip.vision.image_grid_pinpoints": []int32{}}), nil, "v.patch_embd.weight is missing"},
		{"stacked feature layers", llava(map[string]any{"clip.vision.feature_layer": []int32{1, 2}}), nil, "several layers"},
		{"a feature layer past the blocks", llava(map[string]any{"clip.vision.feature_layer": []int32{3}}), nil, "feature_layer must be one layer of 0..2"},
		{"SiLU blocks", llava(map[string]any{"clip.use_silu": true}), nil, "clip.use_silu"},
		{"LLaVA without its projector", llava(nil), nil, "v.patch_embd.weight is missing"},
		{"Pixtral with heads of 2 values", pixtral(map[string]any{"clip.vision.attention.head_count": uint32(32)}), nil, "heads of a multiple of 4"},
		{"Pixtral with quick GELU", pixtral(map[string]any{"clip.use_silu": false}), nil, "gated quick GELU"},
		{"Pixtral with too large a merge", pixtral(map[string]any{"clip.vision.spatial_merge_size": uint32(16), "clip.vision.image_size": uint32(1024)}), nil, "spatial merge size is 16"},
		{"Pixtral without tensors", pixtral(nil), nil, "v.patch_embd.weight is missing"},
		{"Pixtral with wide patches", pixtral(map[string]any{"clip.vision.patch_size": uint32(64), "clip.vision.image_size": uint32(128)}), nil, "wider than 64 pixels"},
		{"no tensors", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "gemma3",
			"clip.vision.image_size": uint32(64), "clip.vision.patch_size": uint32(8), "clip.vision.embedding_length": uint32(64),
			"clip.vision.feed_forward_length": uint32(128), "clip.vision.block_count": uint32(1), "clip.vision.attention.head_count": uint32(4)},
			nil, "v.patch_embd.weight is missing"},
		{"a bad patch size", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "gemma3",
			"clip.vision.image_size": uint32(64), "clip.vision.patch_size": uint32(7), "clip.vision.embedding_length": uint32(64),
			"clip.vision.feed_forward_length": uint32(128), "clip.vision.block_count": uint32(1), "clip.vision.attention.head_count": uint32(4)},
			nil, "not a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := gguf.NewWriter()
			for k, v := range tt.keys {
				if err := w.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			for _, name := range tt.tensors {
				if err := w.AddTensor(name, quant.TypeF32, []int64{1}, make([]byte, 4)); err != nil {
					t.Fatal(err)
				}
			}
			path := filepath.Join(t.TempDir(), "p.gguf")
			if err := w.WriteFile(context.Background(), path); err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			_, err = Load(context.Background(), f, Options{Threads: 1})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Load: %v, want an error saying %q", err, tt.want)
			}
			// A broken file is an error of its own; a file Saji cannot run
			// wraps ErrUnsupported.
			broken := strings.Contains(tt.want, "is missing") || strings.Contains(tt.want, "must be") || strings.Contains(tt.want, "pinpoint") ||
				strings.HasPrefix(tt.want, "reading")
			if !broken && !errors.Is(err, ErrUnsupported) {
				t.Errorf("the error %v does not wrap ErrUnsupported", err)
			}
		})
	}
}

// TestEncode checks each projector's shape and markers, the size of a
// picture's embeddings, and that Encode counts its runs (one a picture)
// and refuses empty pictures.
func TestEncode(t *testing.T) {
	tests := []struct {
		shape, typ string
		tokens     int
		// picture is the number of embeddings of a 3×200 picture: LLaVA
		// 1.6 and SmolVLM cut it into two stacked squares and add the
		// overview; Pixtral scales it to 16×208, a column of 13 merges
		// with 12 [IMG_BREAK]s (without a merger, to 8×200: 25 patches);
		// Qwen-VL to 16×208 too, 13 merges on their grid.
		picture    int
		begin, end string
		nonCausal  bool
	}{
		{"tiny-gemma3-vision", "gemma3", 16, 16, "<start_of_image>", "<end_of_image>", true},
		{"tiny-llava-vision", "mlp", 64, 64, "", "", false},
		{"tiny-llava16-vision", "mlp", 64, 3 * 64, "", "", false},
		{"tiny-smolvlm-vision", "idefics3", 16, 3 * 16, "", "", false},
		{"tiny-mistral3-vision", "pixtral", 8*8 + 7, 13 + 12, "", "[IMG_END]", false},
		{"tiny-pixtral-vision", "pixtral", 16*16 + 15, 25 + 24, "", "[IMG_END]", false},
		{"tiny-qwen25vl", "qwen2.5vl_merger", 16, 13, "<|vision_start|>", "<|vision_end|>", false},
		{"tiny-qwen2vl", "qwen2vl_merger", 16, 13, "<|vision_start|>", "<|vision_end|>", false},
		{"tiny-qwen3vl", "qwen3vl_merger", 16, 13, "<|vision_start|>", "<|vision_end|>", false},
	}
	for _, tt := range tests {
		t.Run(tt.shape, func(t *testing.T) {
			p := tinyProjector(t, tt.shape)
			// Qwen3-VL's vectors hold its two deepstack mergers' embeddings
			// after the main one.
			if p.Type() != tt.typ || p.Tokens() != tt.tokens || p.Embd() != 256*(1+p.deepstack) || p.NonCausal() != tt.nonCausal {
				t.Fatalf("type %s, %d tokens of %d, non-causal %v", p.Type(), p.Tokens(), p.Embd(), p.NonCausal())
			}
			if b, e := p.Markers(); b != tt.begin || e != tt.end {
				t.Errorf("markers %q %q", b, e)
			}
			if _, err := p.Encode(context.Background(), image.NewNRGBA(image.Rect(0, 0, 0, 0))); err == nil {
				t.Error("an empty picture was encoded")
			}
			emb, err := p.Encode(context.Background(), synth.Picture(3, 200))
			if err != nil || len(emb) != tt.picture*p.Embd() {
				t.Fatalf("Encode: %d values, %v", len(emb), err)
			}
			if p.Runs() != 1 {
				t.Errorf("Runs is %d after one encoding", p.Runs())
			}
			ctx, cancel := context.WithCancel(context.Background())
			cancel()
			if _, err := p.Encode(ctx, synth.Picture(8, 8)); !errors.Is(err, context.Canceled) {
				t.Errorf("a cancelled Encode: %v", err)
			}
		})
	}
}

// TestResizeBicubic checks mtmd's bicubic resize on pictures whose
// result is known: the same size gives the picture back, a flat colour
// stays flat, and a horizontal ramp stays a ramp (every row the same,
// the values never falling).
func TestResizeBicubic(t *testing.T) {
	ramp := RGB{W: 40, H: 10, Pix: make([]uint8, 3*40*10)}
	for i := range ramp.Pix {
		ramp.Pix[i] = uint8(6 * (i / 3 % 40))
	}
	flat := RGB{W: 30, H: 20, Pix: make([]uint8, 3*30*20)}
	for i := range flat.Pix {
		flat.Pix[i] = 77
	}
	pic := ToRGB(synth.Picture(23, 17))
	if got := pic.resizeBicubic(23, 17); !slices.Equal(got.Pix, pic.Pix) {
		t.Error("resizing to the same size changed the picture")
	}
	for _, sz := range [][2]int{{13, 9}, {64, 36}, {1, 1}} {
		if got := flat.resizeBicubic(sz[0], sz[1]); slices.ContainsFunc(got.Pix, func(v uint8) bool { return v != 77 }) {
			t.Errorf("a flat picture resized to %v is not flat", sz)
		}
	}
	got := ramp.resizeBicubic(25, 7)
	for y := range got.H {
		for x := range got.W {
			if !slices.Equal(got.at(x, y), got.at(x, 0)) {
				t.Fatalf("row %d differs from row 0 at %d", y, x)
			}
			if x > 0 && got.at(x, y)[0] < got.at(x-1, y)[0] {
				t.Fatalf("the ramp falls at %d: %d after %d", x, got.at(x, y)[0], got.at(x-1, y)[0])
			}
		}
	}
}

// TestFitBilinear checks the resize-and-pad geometry against mtmd's rule:
// the scaled sides rounded up, the picture centred, black around it.
func TestFitBilinear(t *testing.T) {
	tests := []struct {
		w, h, size int
		nw, nh     int
	}{
		{90, 50, 64, 64, 36},
		{50, 90, 64, 36, 64},
		{64, 64, 64, 64, 64},
		{3, 200, 64, 1, 64},
		{1000, 1000, 64, 64, 64},
	}
	for _, tt := range tests {
		src := RGB{W: tt.w, H: tt.h, Pix: make([]uint8, 3*tt.w*tt.h)}
		for i := range src.Pix {
			src.Pix[i] = 200
		}
		got := src.fitBilinear(tt.size, [3]uint8{})
		ox, oy := (tt.size-tt.nw)/2, (tt.size-tt.nh)/2
		lit := 0
		for i := 0; i < len(got.Pix); i += 3 {
			if got.Pix[i] == 200 {
				lit++
				x, y := i/3%tt.size, i/3/tt.size
				if x < ox || x >= ox+tt.nw || y < oy || y >= oy+tt.nh {
					t.Errorf("%dx%d: pixel (%d,%d) outside the picture is lit", tt.w, tt.h, x, y)
					break
				}
			}
		}
		if lit != tt.nw*tt.nh {
			t.Errorf("%dx%d into %d: %d pixels lit, want %d×%d", tt.w, tt.h, tt.size, lit, tt.nw, tt.nh)
		}
	}
}

// TestFeatureLayer checks how many blocks LLaVA's encoder runs, as
// llama.cpp's graph takes them: all but the last where the file names no
// feature layer, up to the one it names otherwise.
func TestFeatureLayer(t *testing.T) {
	tests := []struct {
		name string
		keys map[string]any
		want int
		err  bool
	}{
		{"none named", nil, 2, false},
		{"an empty list", map[string]any{"clip.vision.feature_layer": []int32{}}, 2, false},
		{"the last block's output", map[string]any{"clip.vision.feature_layer": []int32{3}}, 3, false},
		{"the input", map[string]any{"clip.vision.feature_layer": []int32{0}}, 0, false},
		{"past the blocks", map[string]any{"clip.vision.feature_layer": []int32{4}}, 0, true},
		{"negative", map[string]any{"clip.vision.feature_layer": []int32{-1}}, 0, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := gguf.NewWriter()
			for k, v := range tt.keys {
				if err := w.Set(k, v); err != nil {
					t.Fatal(err)
				}
			}
			var buf bytes.Buffer
			if _, err := w.Encode(context.Background(), &buf); err != nil {
				t.Fatal(err)
			}
			f, err := gguf.OpenBytes(buf.Bytes())
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			ld := &loader{f: f}
			if got := ld.featureLayer(3); got != tt.want || (ld.err != nil) != tt.err {
				t.Errorf("%d blocks, error %v; want %d, an error %v", got, ld.err, tt.want, tt.err)
			}
		})
	}
}

// TestAnyres checks LLaVA 1.6's squares for pictures of several shapes,
// as mtmd picks the pinpoint: the one that keeps most of the picture,
// then the one that wastes least.
func TestAnyres(t *testing.T) {
	pinpoints := [][2]int{{128, 64}, {64, 128}, {128, 128}}
	tests := []struct {
		w, h    int
		best    [2]int
		squares int
	}{
		{50, 40, [2]int{}, 1}, // within the square: the overview only
		{64, 64, [2]int{}, 1}, // the square itself
		{90, 50, [2]int{128, 64}, 3},
		{70, 150, [2]int{64, 128}, 3},
		{200, 190, [2]int{128, 128}, 5},
		{3, 200, [2]int{64, 128}, 3}, // 64×128 and 128×128 keep as much: the smaller wastes less
	}
	for _, tt := range tests {
		if tt.best != [2]int{} {
			if got := bestResolution(tt.w, tt.h, pinpoints); got != tt.best {
				t.Errorf("%dx%d: pinpoint %v, want %v", tt.w, tt.h, got, tt.best)
			}
		}
		sq := ToRGB(synth.Picture(tt.w, tt.h)).anyres(64, pinpoints)
		if len(sq) != tt.squares {
			t.Errorf("%dx%d: %d squares, want %d", tt.w, tt.h, len(sq), tt.squares)
		}
		for _, s := range sq {
			if s.W != 64 || s.H != 64 || len(s.Pix) != 3*64*64 {
				t.Errorf("%dx%d: a square of %dx%d", tt.w, tt.h, s.W, s.H)
			}
		}
	}
}

// TestPixelShuffle checks SmolVLM's pixel shuffle on a 4 × 4 grid of
// one-value patches numbered row after row: each 2 × 2 window becomes a
// row of its upper patches then its lower ones, the windows row after
// row.
func TestPixelShuffle(t *testing.T) {
	h := make([]float32, 16)
	for i := range h {
		h[i] = float32(i)
	}
	want := []float32{0, 1, 4, 5, 2, 3, 6, 7, 8, 9, 12, 13, 10, 11, 14, 15}
	if got := pixelShuffle(h, 1, 4, 2); !slices.Equal(got, want) {
		t.Errorf("pixelShuffle: %v, want %v", got, want)
	}
}

// TestLayout checks a picture's place in the prompt for each projector:
// its embeddings' runs and SmolVLM's markers around its squares.
func TestLayout(t *testing.T) {
	g := tinyProjector(t, "tiny-gemma3-vision")
	if got := g.Layout(300, 20); !slices.Equal(got, []Part{{Text: "<start_of_image>"}, {N: 16}, {Text: "<end_of_image>"}}) {
		t.Errorf("Gemma 3: %v", got)
	}
	l := tinyProjector(t, "tiny-llava16-vision")
	if got := l.Layout(90, 50); !slices.Equal(got, []Part{{N: 64}, {N: 64}, {N: 64}}) {
		t.Errorf("LLaVA 1.6, 90×50: %v", got)
	}
	s := tinyProjector(t, "tiny-smolvlm-vision")
	want := []Part{
		{Text: "<fake_token_around_image><row_1_col_1>"}, {N: 16}, {Token: "\n"},
		{Text: "<fake_token_around_image><row_2_col_1>"}, {N: 16},
		{Token: "\n\n"}, {Token: "<fake_token_around_image>"}, {Token: "<global-img>"}, {N: 16}, {Token: "<fake_token_around_image>"},
	}
	if got := s.Layout(40, 100); !slices.Equal(got, want) {
		t.Errorf("SmolVLM, 40×100: %v, want %v", got, want)
	}
	if got := s.WholeTokens(); len(got) != 4 {
		t.Errorf("SmolVLM's whole tokens: %q", got)
	}
	px := tinyProjector(t, "tiny-mistral3-vision")
	if got := px.Layout(90, 50); !slices.Equal(got, []Part{{N: 6*3 + 2}, {Text: "[IMG_END]"}}) {
		t.Errorf("Pixtral, 90×50: %v", got)
	}
	q := tinyProjector(t, "tiny-qwen25vl")
	if got := q.Layout(160, 128); !slices.Equal(got, []Part{{Text: "<|vision_start|>"}, {N: 80, Rows: 8, Cols: 10}, {Text: "<|vision_end|>"}}) {
		t.Errorf("Qwen2.5-VL, 160×128: %v", got)
	}
}

// TestQwenOrder checks the order in which Qwen-VL's encoder reads an
// 8 × 4 grid of patches: 2 × 2 blocks row after row, and with windows of
// 2 × 2 blocks the blocks window by window.
func TestQwenOrder(t *testing.T) {
	tests := []struct {
		win            int
		units, order15 []int
		windows        [][2]int
	}{
		{0, []int{0, 1, 2, 3, 4, 5, 6, 7}, []int{0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 6, 7, 14}, [][2]int{{0, 32}}},
		{2, []int{0, 1, 4, 5, 2, 3, 6, 7}, []int{0, 1, 8, 9, 2, 3, 10, 11, 16, 17, 24, 25, 18, 19, 26}, [][2]int{{0, 16}, {16, 32}}},
		{3, []int{0, 1, 2, 4, 5, 6, 3, 7}, []int{0, 1, 8, 9, 2, 3, 10, 11, 4, 5, 12, 13, 16, 17, 24}, [][2]int{{0, 24}, {24, 32}}},
	}
	for _, tt := range tests {
		l := qwenOrder(8, 4, tt.win)
		if !slices.Equal(l.units, tt.units) || !slices.Equal(l.order[:15], tt.order15) || !slices.Equal(l.windows, tt.windows) || len(l.order) != 32 {
			t.Errorf("windows of %d: units %v, order %v, windows %v", tt.win, l.units, l.order, l.windows)
		}
	}
}

// TestPixtralSize checks the size Pixtral's pictures are scaled to, as
// mtmd's calc_size_preserved_ratio gives it for the tiny projector
// (merges of 16 pixels, 8 to 1024 of them): kept where whole, rounded to
// the nearest merges, scaled up below 2048 pixels and down above 262144,
// and a side rounded to nothing kept at one merge.
func TestPixtralSize(t *testing.T) {
	p := tinyProjector(t, "tiny-mistral3-vision")
	tests := []struct{ w, h, wantW, wantH int }{
		{64, 32, 64, 32},
		{90, 50, 96, 48},
		{20, 12, 64, 48},
		{3, 200, 16, 208},
		{600, 560, 528, 480},
		{20000, 20000, 512, 512},
		{5000, 10, 5008, 16},
	}
	for _, tt := range tests {
		w, h := p.hp.dynSize(tt.w, tt.h)
		if w != tt.wantW || h != tt.wantH {
			t.Errorf("%d×%d scales to %d×%d, want %d×%d", tt.w, tt.h, w, h, tt.wantW, tt.wantH)
		}
		if tokens := (w / 16) * (h / 16); tokens > pixtralMaxTokens {
			t.Errorf("%d×%d takes %d merges", tt.w, tt.h, tokens)
		}
	}
}

// TestUnfold checks the patch merger's unfolding on a 4 × 2 grid of
// two-value patches merged 2 × 2: each window's first channel, its four
// patches row after row, then its second.
func TestUnfold(t *testing.T) {
	var h []float32
	for i := range 8 {
		h = append(h, float32(i), float32(100+i))
	}
	got := unfold(h, 2, 4, 2, 2)
	want := []float32{0, 1, 4, 5, 100, 101, 104, 105, 2, 3, 6, 7, 102, 103, 106, 107}
	if !slices.Equal(got, want) {
		t.Errorf("unfold: %v, want %v", got, want)
	}
}

// TestResizeAlignCorners checks the resize of Qwen3-VL's learned
// positions: the corners kept, a plane (a value linear in the row and
// column) kept a plane, and the grid given back at its own size.
func TestResizeAlignCorners(t *testing.T) {
	const side, embd = 4, 2
	src := make([]float32, side*side*embd)
	for y := range side {
		for x := range side {
			src[(y*side+x)*embd] = float32(3*x + 5*y)
			src[(y*side+x)*embd+1] = float32(x * y) // not linear: corners only
		}
	}
	if got := resizeAlignCorners(src, embd, side, side, side); !slices.Equal(got, src) {
		t.Errorf("resized to its own size: %v", got)
	}
	for _, sz := range [][2]int{{7, 3}, {2, 9}, {4, 1}} {
		w, h := sz[0], sz[1]
		got := resizeAlignCorners(src, embd, side, w, h)
		for y := range h {
			for x := range w {
				fx, fy := float64(x)*3/float64(max(w-1, 1)), float64(y)*3/float64(max(h-1, 1))
				if h == 1 {
					fy = 0
				}
				want := 3*fx + 5*fy
				if v := float64(got[(y*w+x)*embd]); math.Abs(v-want) > 1e-4 {
					t.Errorf("%dx%d at (%d,%d): %g, want %g", w, h, x, y, v, want)
				}
			}
		}
		last := (h*w - 1) * embd
		if h > 1 && (got[1] != src[1] || got[last+1] != src[len(src)-1]) {
			t.Errorf("%dx%d: corners %g %g, want %g %g", w, h, got[1], got[last+1], src[1], src[len(src)-1])
		}
	}
}
