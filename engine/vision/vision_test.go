package vision

import (
	"context"
	"errors"
	"image"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
)

// tinyProjector writes and loads the tiny Gemma 3 projector.
func tinyProjector(t testing.TB) *Projector {
	t.Helper()
	vs, _ := synth.LookupVisionShape("tiny-gemma3-vision")
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
	tests := []struct {
		name string
		keys map[string]any
		want string
	}{
		{"a language model", map[string]any{"general.architecture": "llama"}, `architecture is "llama"`},
		{"no vision encoder", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": false}, "no vision encoder"},
		{"another projector", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "qwen2vl_merger"}, `"qwen2vl_merger" is not implemented`},
		{"LLaVA's projector", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "mlp"}, `"mlp" is not implemented`},
		{"SmolVLM's projector", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.vision.projector_type": "idefics3"}, `"idefics3" is not implemented`},
		{"no tensors", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "gemma3",
			"clip.vision.image_size": uint32(64), "clip.vision.patch_size": uint32(8), "clip.vision.embedding_length": uint32(64),
			"clip.vision.feed_forward_length": uint32(128), "clip.vision.block_count": uint32(1), "clip.vision.attention.head_count": uint32(4)},
			"v.patch_embd.weight is missing"},
		{"a bad patch size", map[string]any{"general.architecture": "clip", "clip.has_vision_encoder": true, "clip.projector_type": "gemma3",
			"clip.vision.image_size": uint32(64), "clip.vision.patch_size": uint32(7), "clip.vision.embedding_length": uint32(64),
			"clip.vision.feed_forward_length": uint32(128), "clip.vision.block_count": uint32(1), "clip.vision.attention.head_count": uint32(4)},
			"not a whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := gguf.NewWriter()
			for k, v := range tt.keys {
				if err := w.Set(k, v); err != nil {
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
			if tt.name != "no tensors" && !errors.Is(err, ErrUnsupported) {
				t.Errorf("the error %v does not wrap ErrUnsupported", err)
			}
		})
	}
}

// TestEncode checks the projector's shape and that Encode counts its runs
// and refuses empty pictures.
func TestEncode(t *testing.T) {
	p := tinyProjector(t)
	if p.Type() != "gemma3" || p.Tokens() != 16 || p.Embd() != 256 {
		t.Fatalf("type %s, %d tokens of %d", p.Type(), p.Tokens(), p.Embd())
	}
	if b, e := p.Markers(); b != "<start_of_image>" || e != "<end_of_image>" {
		t.Errorf("markers %q %q", b, e)
	}
	if _, err := p.Encode(context.Background(), image.NewNRGBA(image.Rect(0, 0, 0, 0))); err == nil {
		t.Error("an empty picture was encoded")
	}
	emb, err := p.Encode(context.Background(), synth.Picture(3, 200))
	if err != nil || len(emb) != 16*256 {
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
