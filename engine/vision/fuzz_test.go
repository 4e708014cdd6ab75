package vision

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
)

// FuzzLoad checks that a hostile projector file fails with an error, never
// a panic, at Load or at its first picture.
func FuzzLoad(f *testing.F) {
	for _, shape := range []string{"tiny-gemma3-vision", "tiny-llava-vision", "tiny-llava16-vision", "tiny-smolvlm-vision", "tiny-mistral3-vision", "tiny-qwen25vl", "tiny-qwen2vl", "tiny-qwen3vl"} {
		vs, _ := synth.LookupVisionShape(shape)
		vs.ImageSize, vs.Layers = 16, 2
		if vs.Pinpoints != nil {
			vs.Pinpoints = []int32{32, 16, 16, 32}
		}
		if vs.LongestEdge > 0 {
			vs.LongestEdge = 32
		}
		path := filepath.Join(f.TempDir(), "mmproj.gguf")
		if err := synth.WriteProjector(context.Background(), path, vs, 1); err != nil {
			f.Fatal(err)
		}
		seed, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(seed)
		f.Add(seed[:len(seed)/2])
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		gf, err := gguf.OpenBytes(b)
		if err != nil {
			return
		}
		defer gf.Close()
		p, err := Load(context.Background(), gf, Options{Threads: 1})
		if err != nil || p.hp.imageSize > 256 {
			return
		}
		_, _ = p.Encode(context.Background(), synth.Picture(5, 7))
	})
}
