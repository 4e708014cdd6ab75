package vision

import (
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"saji/engine/gguf"
	"saji/engine/synth"
)

// BenchmarkEncode896 encodes one 896×896 picture with Gemma 3's encoder at
// its real size (synth.Gemma3Encoder, random weights) on 2 threads, or
// Qwen2.5-VL 7B's (synth.Qwen25Encoder) where SAJI_VISION_BENCH_SHAPE is
// qwen25vl, Mistral Small 3.1's (synth.Mistral3Encoder) where it is
// mistral3. It runs only with SAJI_VISION_BENCH set to a folder, where it
// writes (once) the projector, the tiny language model it pairs with and
// the picture, so that llama-mtmd-cli can encode the same files.
// SAJI_VISION_BENCH_LAYERS, when set, is the encoder's depth instead of
// the real one: the blocks do the same work (Qwen2.5-VL's eight at a
// time), so a shallow encoder gives the ratio of two engines' speeds in
// minutes on a loaded machine.
//
//	llama-mtmd-cli -m DIR/model.gguf --mmproj DIR/mmproj.gguf --image DIR/picture.png -t 2 -p x -n 1 --chat-template gemma
func BenchmarkEncode896(b *testing.B) {
	dir := os.Getenv("SAJI_VISION_BENCH")
	if dir == "" {
		b.Skip("SAJI_VISION_BENCH is not set")
	}
	proj := filepath.Join(dir, "mmproj.gguf")
	if _, err := os.Stat(proj); err != nil {
		writeBenchFiles(b, dir)
	}
	f, err := gguf.Open(proj)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	p, err := Load(context.Background(), f, Options{Threads: 2})
	if err != nil {
		b.Fatal(err)
	}
	img := readPNG(b, filepath.Join(dir, "picture.png"))
	b.ResetTimer()
	for b.Loop() {
		if _, err := p.Encode(context.Background(), img); err != nil {
			b.Fatal(err)
		}
	}
}

// writeBenchFiles writes BenchmarkEncode896's files into dir.
func writeBenchFiles(b *testing.B, dir string) {
	ctx := context.Background()
	vs := synth.Gemma3Encoder
	switch os.Getenv("SAJI_VISION_BENCH_SHAPE") {
	case "qwen25vl":
		vs = synth.Qwen25Encoder
	case "mistral3":
		vs = synth.Mistral3Encoder
	}
	if n, err := strconv.Atoi(os.Getenv("SAJI_VISION_BENCH_LAYERS")); err == nil && n > 0 {
		vs.Layers = n
	}
	if err := synth.WriteProjector(ctx, filepath.Join(dir, "mmproj.gguf"), vs, 1); err != nil {
		b.Fatal(err)
	}
	if err := synth.WriteVisionModel(ctx, filepath.Join(dir, "model.gguf"), vs.Name, gguf.FileTypeAllF32, 1, ""); err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(filepath.Join(dir, "picture.png"))
	if err != nil {
		b.Fatal(err)
	}
	defer out.Close()
	if err := png.Encode(out, synth.Picture(896, 896)); err != nil {
		b.Fatal(err)
	}
}

// readPNG decodes the PNG file at path.
func readPNG(b *testing.B, path string) image.Image {
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		b.Fatal(err)
	}
	return img
}
