package synth

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/kernels/quant"
)

// miniVocab writes a small SentencePiece-style vocabulary (control tokens,
// the 256 byte tokens and a few words) and opens it.
func miniVocab(t *testing.T) *gguf.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "vocab.gguf")
	if err := WriteMiniVocab(context.Background(), path, "llama"); err != nil {
		t.Fatal(err)
	}
	return openFile(t, path)
}

// openFile opens the GGUF file at path for the rest of the test.
func openFile(t *testing.T, path string) *gguf.File {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// TestWriteTiny writes the tiny shape in several file types and checks
// that the file has the mix's types, the vocabulary and hyperparameters,
// loads and runs in engine/model, and does not depend on the number of
// threads.
func TestWriteTiny(t *testing.T) {
	vocab := miniVocab(t)
	shape, err := LookupShape("tiny")
	if err != nil {
		t.Fatal(err)
	}
	types := []string{"q4_k_m", "q8_0", "f16"}
	if raceEnabled {
		// The K-quant encoders take a minute under the detector; the
		// concurrent writer is the same for every type.
		types = types[1:]
	}
	if !testing.Short() && !raceEnabled {
		types = append(types, "bf16", "f32", "q4_0", "q6_k", "q5_k_m", "q3_k_m", "q2_k", "iq4_nl")
	}
	dir := t.TempDir()
	for _, name := range types {
		t.Run(name, func(t *testing.T) {
			ft, err := ParseFileType(name)
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(dir, name+".gguf")
			var calls int
			opts := Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: 7, Threads: 2,
				Progress: func(done, total int64) { calls++ }}
			if err := Write(context.Background(), path, opts); err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			specs := shape.Tensors(269)
			if calls != len(specs) {
				t.Errorf("progress called %d times for %d tensors", calls, len(specs))
			}
			if got, _ := f.FileType(); got != ft {
				t.Errorf("general.file_type = %v, want %v", got, ft)
			}
			if n, _ := f.VocabSize(); n != 269 {
				t.Errorf("vocab size %d, want 269", n)
			}
			if m, _ := f.TokenizerModel(); m != "llama" {
				t.Errorf("tokenizer model %q not copied", m)
			}
			mix := shape.Mix(ft)
			for _, spec := range specs {
				ti, ok := f.Tensor(spec.Name)
				if !ok {
					t.Fatalf("tensor %s missing", spec.Name)
				}
				want, _ := mix.Type(spec.Name, spec.Shape, quant.TypeF32)
				if ti.Type != want || fmt.Sprint(ti.Shape) != fmt.Sprint(spec.Shape) {
					t.Errorf("%s: %v %v, want %v %v", spec.Name, ti.Type, ti.Shape, want, spec.Shape)
				}
			}
			if len(f.Tensors()) != len(specs) {
				t.Errorf("%d tensors, want %d", len(f.Tensors()), len(specs))
			}
			checkWeights(t, f)

			m, err := model.Load(context.Background(), f, model.Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			cache, err := m.NewCache(8, quant.TypeF16)
			if err != nil {
				t.Fatal(err)
			}
			logits, err := m.Forward(context.Background(), []int32{1, 260, 261, 262}, []int32{0, 1, 2, 3}, cache, false)
			if err != nil {
				t.Fatal(err)
			}
			if len(logits) != 269 {
				t.Fatalf("%d logits", len(logits))
			}

			// One thread writes the same bytes.
			if name == "q4_k_m" {
				one := filepath.Join(dir, "one.gguf")
				opts.Threads, opts.Progress = 1, nil
				if err := Write(context.Background(), one, opts); err != nil {
					t.Fatal(err)
				}
				a, _ := os.ReadFile(path)
				b, _ := os.ReadFile(one)
				if !bytes.Equal(a, b) {
					t.Error("the file depends on the number of threads")
				}
			}
		})
	}
}

// checkWeights dequantizes the model's tensors and checks their values:
// norms 1, the rest with a mean near 0 and a standard deviation near
// weightStd.
func checkWeights(t *testing.T, f *gguf.File) {
	t.Helper()
	for _, ti := range f.Tensors() {
		data, err := f.Data(ti)
		if err != nil {
			t.Fatal(err)
		}
		x := make([]float32, ti.Elements())
		if err := quant.Dequantize(ti.Type, data, x); err != nil {
			t.Fatal(err)
		}
		var sum, sq float64
		for _, v := range x {
			sum += float64(v)
			sq += float64(v) * float64(v)
		}
		mean := sum / float64(len(x))
		std := sq/float64(len(x)) - mean*mean
		if bytes.Contains([]byte(ti.Name), []byte("norm")) {
			if mean != 1 || std > 1e-9 {
				t.Errorf("%s: mean %g, variance %g, want all ones", ti.Name, mean, std)
			}
			continue
		}
		if mean > 0.002 || mean < -0.002 || std < 0.015*0.015 || std > 0.025*0.025 {
			t.Errorf("%s (%v): mean %g, variance %g", ti.Name, ti.Type, mean, std)
		}
	}
}

func TestWriteErrors(t *testing.T) {
	vocab := miniVocab(t)
	tiny, _ := LookupShape("tiny")
	bad := tiny
	bad.Heads = 3
	for _, tt := range []struct {
		name string
		opts Options
	}{
		{"no vocab", Options{Shape: tiny, FileType: gguf.FileTypeMostlyQ8_0}},
		{"bad shape", Options{Shape: bad, FileType: gguf.FileTypeMostlyQ8_0, Vocab: vocab}},
		{"unsupported type", Options{Shape: tiny, FileType: gguf.FileTypeMostlyQ1_0, Vocab: vocab}},
		{"too many layers", Options{Shape: tiny, FileType: gguf.FileTypeMostlyQ8_0, Vocab: vocab, Layers: tiny.Layers + 1}},
		{"layers of a hybrid", Options{Shape: mustShape(t, "tiny-granitehybrid"), FileType: gguf.FileTypeMostlyQ8_0, Vocab: vocab, Layers: 1}},
	} {
		path := filepath.Join(t.TempDir(), "x.gguf")
		if err := Write(context.Background(), path, tt.opts); err == nil {
			t.Errorf("%s: Write succeeded", tt.name)
		}
		if _, err := os.Stat(path); err == nil {
			t.Errorf("%s: left a file behind", tt.name)
		}
	}
	// Cancelling leaves no file.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	path := filepath.Join(t.TempDir(), "x.gguf")
	if err := Write(ctx, path, Options{Shape: tiny, FileType: gguf.FileTypeMostlyQ8_0, Vocab: vocab}); err == nil {
		t.Error("cancelled Write succeeded")
	}
	if _, err := os.Stat(path); err == nil {
		t.Error("cancelled Write left a file")
	}
	if _, err := LookupShape("llama-70b"); err == nil {
		t.Error("LookupShape accepted an unknown shape")
	}
}

// TestShapeSizes checks the shapes and mixes against the model sizes
// llama-bench reports for the real models (tensor bytes, parameters).
func TestShapeSizes(t *testing.T) {
	for _, tt := range []struct {
		shape, typ string
		size       string // llama-bench's "size" column
		params     int64  // rounded to 10M as llama-bench shows them
	}{
		{"llama-1b", "q4_k_m", "762.81 MiB", 1_240_000_000},
		{"llama-1b", "q8_0", "1.22 GiB", 1_240_000_000},
		{"llama-1b", "f16", "2.30 GiB", 1_240_000_000},
		{"llama-8b", "q4_k_m", "4.58 GiB", 8_030_000_000},
		{"llama-8b", "q8_0", "7.95 GiB", 8_030_000_000},
		{"llama-8b", "f16", "14.96 GiB", 8_030_000_000},
		// Written with the 128256-token Llama 3 vocabulary (-repeat).
		{"gemma4-e4b", "q4_k_m", "3.61 GiB", 5_680_000_000},
	} {
		shape, _ := LookupShape(tt.shape)
		ft, _ := ParseFileType(tt.typ)
		mix := shape.Mix(ft)
		var bytes, params int64
		for _, spec := range shape.Tensors(128256) {
			typ, err := mix.Type(spec.Name, spec.Shape, quant.TypeF32)
			if err != nil {
				t.Fatal(err)
			}
			n := int64(1)
			for _, d := range spec.Shape {
				n *= d
			}
			params += n
			bytes += n / int64(typ.BlockSize()) * int64(typ.TypeSize())
		}
		size := fmt.Sprintf("%.2f MiB", float64(bytes)/(1<<20))
		if bytes >= 1<<30 {
			size = fmt.Sprintf("%.2f GiB", float64(bytes)/(1<<30))
		}
		if size != tt.size || (params+5e6)/1e7*1e7 != tt.params {
			t.Errorf("%s %s: %s, %d params; llama-bench says %s, %d", tt.shape, tt.typ, size, params, tt.size, tt.params)
		}
	}
}

// TestRepeat checks Options.Repeat: the file has the model's tensors,
// types and size, each tensor holds its first chunk of rows over and over,
// and it loads and runs.
func TestRepeat(t *testing.T) {
	defer func(n int64) { chunkElems = n }(chunkElems)
	chunkElems = 1 << 16 // several chunks in the experts' tensors
	vocab := miniVocab(t)
	shape, err := LookupShape("tiny-qwen3moe")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	paths := map[bool]string{}
	for _, repeat := range []bool{false, true} {
		paths[repeat] = filepath.Join(dir, fmt.Sprint(repeat)+".gguf")
		opts := Options{Shape: shape, FileType: gguf.FileTypeMostlyQ8_0, Vocab: vocab, Seed: 3, Threads: 2, Repeat: repeat}
		if err := Write(context.Background(), paths[repeat], opts); err != nil {
			t.Fatal(err)
		}
	}
	plain, err := gguf.Open(paths[false])
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	rep, err := gguf.Open(paths[true])
	if err != nil {
		t.Fatal(err)
	}
	defer rep.Close()
	if plain.FileSize() != rep.FileSize() || len(plain.Tensors()) != len(rep.Tensors()) {
		t.Fatalf("repeated file: %d bytes, %d tensors; want %d, %d", rep.FileSize(), len(rep.Tensors()), plain.FileSize(), len(plain.Tensors()))
	}
	repeated := 0
	for _, ti := range rep.Tensors() {
		want, _ := plain.Tensor(ti.Name)
		if ti.Type != want.Type || ti.Size != want.Size {
			t.Errorf("%s: %v of %d bytes, want %v of %d", ti.Name, ti.Type, ti.Size, want.Type, want.Size)
		}
		a, _ := plain.Data(want)
		b, _ := rep.Data(ti)
		chunk := int(chunkElems/int64(ti.Shape[0])) * len(a) / int(ti.Elements()/int64(ti.Shape[0]))
		if chunk >= len(b) {
			if !bytes.Equal(a, b) {
				t.Errorf("%s: a tensor of one chunk differs", ti.Name)
			}
			continue
		}
		repeated++
		next := b[chunk:min(2*chunk, len(b))]
		if !bytes.Equal(a[:chunk], b[:chunk]) || !bytes.Equal(b[:len(next)], next) {
			t.Errorf("%s: the first chunk is not the plain file's, repeated", ti.Name)
		}
	}
	if repeated == 0 {
		t.Error("no tensor was long enough to repeat")
	}
	m, err := model.Load(context.Background(), rep, model.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.NewCache(8, quant.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forward(context.Background(), []int32{1, 2}, []int32{0, 1}, c, false); err != nil {
		t.Fatal(err)
	}
}

// TestBlockScale checks that BlockScale scales the blocks' random weights
// and leaves their norms and the tensors outside the blocks as they are.
func TestBlockScale(t *testing.T) {
	opts := Options{Shape: mustShape(t, "tiny"), FileType: gguf.FileTypeAllF32, Vocab: miniVocab(t), Seed: 3, Threads: 2}
	plain := writeOpen(t, opts)
	opts.BlockScale = 0.25
	scaled := writeOpen(t, opts)
	checked := 0
	for _, ti := range plain.Tensors() {
		st, _ := scaled.Tensor(ti.Name)
		a, _ := plain.Data(ti)
		b, _ := scaled.Data(st)
		norm := strings.HasSuffix(ti.Name, "norm.weight")
		for i := 0; i+4 <= len(a); i += 4 {
			x := math.Float32frombits(binary.LittleEndian.Uint32(a[i:]))
			y := math.Float32frombits(binary.LittleEndian.Uint32(b[i:]))
			want := x
			if strings.HasPrefix(ti.Name, "blk.") && !norm {
				want = float32(float64(x) / weightStd * (weightStd * 0.25))
				checked++
			}
			if math.Abs(float64(y-want)) > 1e-6*math.Abs(float64(want))+1e-9 {
				t.Fatalf("%s[%d] = %g, want %g (unscaled %g)", ti.Name, i/4, y, want, x)
			}
		}
	}
	if checked == 0 {
		t.Fatal("no block weights")
	}
}

// mustShape returns the shape named name.
func mustShape(t *testing.T, name string) Shape {
	t.Helper()
	s, err := LookupShape(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLayers checks a truncated model (Options.Layers): its block count,
// no tensor of a dropped block, and every tensor kept byte for byte the
// whole model's.
func TestLayers(t *testing.T) {
	shape := mustShape(t, "tiny")
	opts := Options{Shape: shape, FileType: gguf.FileTypeMostlyQ8_0, Vocab: miniVocab(t), Seed: 4, Threads: 2}
	whole := writeOpen(t, opts)
	opts.Layers = 1
	cut := writeOpen(t, opts)
	if n, _ := cut.Uint(shape.Arch + ".block_count"); n != 1 {
		t.Errorf("block_count %d, want 1", n)
	}
	kept := 0
	for _, ti := range whole.Tensors() {
		ct, ok := cut.Tensor(ti.Name)
		if drop := strings.HasPrefix(ti.Name, "blk.") && !strings.HasPrefix(ti.Name, "blk.0."); drop || !ok {
			if drop == ok {
				t.Errorf("%s: in the truncated model %v, want %v", ti.Name, ok, !drop)
			}
			continue
		}
		a, _ := whole.Data(ti)
		b, _ := cut.Data(ct)
		if !bytes.Equal(a, b) {
			t.Errorf("%s differs from the whole model's", ti.Name)
		}
		kept++
	}
	if kept == 0 || kept == len(whole.Tensors()) {
		t.Errorf("%d of %d tensors kept", kept, len(whole.Tensors()))
	}
}

// writeOpen writes the synthetic model of opts to a temporary file and
// opens it for the rest of the test.
func writeOpen(t *testing.T, opts Options) *gguf.File {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := Write(context.Background(), path, opts); err != nil {
		t.Fatal(err)
	}
	return openFile(t, path)
}
