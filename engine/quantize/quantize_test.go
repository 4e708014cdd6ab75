package quantize_test

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/quantize"
	"saji/engine/synth"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// tinyF32 writes synth's tiny F32 model (4 layers, 256 wide) into a
// temporary directory and returns its path.
func tinyF32(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tiny-f32.gguf")
	if err := synth.WriteTiny(context.Background(), p, "f32", 7); err != nil {
		t.Fatal(err)
	}
	return p
}

// openT opens a GGUF file, closing it when the test ends.
func openT(t testing.TB, path string) *gguf.File {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// sameTensors fails t unless got and want hold the same tensors (names,
// types, shapes and bytes), whatever their order.
func sameTensors(t *testing.T, got, want *gguf.File) {
	t.Helper()
	if g, w := len(got.Tensors()), len(want.Tensors()); g != w {
		t.Fatalf("%d tensors, want %d", g, w)
	}
	for _, wt := range want.Tensors() {
		gt, ok := got.Tensor(wt.Name)
		if !ok {
			t.Errorf("tensor %s missing", wt.Name)
			continue
		}
		if gt.Type != wt.Type || !reflect.DeepEqual(gt.Shape, wt.Shape) {
			t.Errorf("tensor %s: %s %v, want %s %v", wt.Name, gt.Type, gt.Shape, wt.Type, wt.Shape)
			continue
		}
		gd, err := got.Data(gt)
		if err != nil {
			t.Fatal(err)
		}
		wd, err := want.Data(wt)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(gd, wd) {
			i := 0
			for i < len(gd) && gd[i] == wd[i] {
				i++
			}
			t.Errorf("tensor %s (%s): data differs from byte %d of %d", wt.Name, wt.Type, i, len(wd))
		}
	}
}

// TestMatchesLlamaQuantize quantizes each F32 (and F16) master of the
// reference models to every type llama-quantize made of it and checks
// that every tensor (type, shape and bytes) and every metadata value is
// the same as in llama-quantize's file.
func TestMatchesLlamaQuantize(t *testing.T) {
	dir := filepath.Join(refdata.Dir(t), "models")
	masters, err := filepath.Glob(filepath.Join(dir, "*-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	pairs := 0
	for _, master := range masters {
		base := strings.TrimSuffix(filepath.Base(master), "-f32.gguf")
		if reduced() && base != "tiny-llama-spm" && base != "tiny-qwen2" {
			continue // a separate output and a tied one are enough under -race and -short
		}
		refs, err := filepath.Glob(filepath.Join(dir, base+"-*.gguf"))
		if err != nil {
			t.Fatal(err)
		}
		for _, ref := range refs {
			name := strings.TrimSuffix(strings.TrimPrefix(filepath.Base(ref), base+"-"), ".gguf")
			if name == "f32" || name == "f16" {
				continue
			}
			ft, err := quantize.ParseFileType(name)
			if err != nil {
				t.Errorf("%s: %v", ref, err)
				continue
			}
			pairs++
			srcs := []string{"f32", "f16"}
			if reduced() {
				srcs = srcs[:1]
			}
			for _, src := range srcs {
				in := filepath.Join(dir, base+"-"+src+".gguf")
				if _, err := os.Stat(in); err != nil {
					continue
				}
				t.Run(base+"/"+src+"-to-"+name, func(t *testing.T) {
					out := filepath.Join(t.TempDir(), "out.gguf")
					res, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: ft, Threads: 2})
					if err != nil {
						t.Fatal(err)
					}
					got, want := openT(t, out), openT(t, ref)
					sameTensors(t, got, want)
					if res.Tensors != len(want.Tensors()) {
						t.Errorf("Result.Tensors = %d, want %d", res.Tensors, len(want.Tensors()))
					}
					if st, err := os.Stat(out); err != nil || st.Size() != res.OutBytes {
						t.Errorf("Result.OutBytes = %d, file has %v (%v)", res.OutBytes, st.Size(), err)
					}
					// Same keys and values; llama-quantize moves
					// general.file_type to the end, Saji keeps its place.
					if g, w := len(got.KVs()), len(want.KVs()); g != w {
						t.Errorf("%d metadata keys, want %d", g, w)
					}
					for _, kv := range want.KVs() {
						v, ok := got.Value(kv.Key)
						if !ok || !reflect.DeepEqual(v, kv.Value) {
							t.Errorf("key %s = %v, want %v", kv.Key, v, kv.Value)
						}
					}
				})
			}
		}
	}
	if pairs == 0 {
		t.Fatalf("no llama-quantize outputs beside the F32 masters in %s", dir)
	}
	t.Logf("%d master/type pairs", pairs)
}

// TestMatchesLlamaQuantizeBinary is TestMatchesLlamaQuantize for every
// supported type and every model of the reference data (stories260K too),
// against outputs made on the spot by the llama-quantize binary named by
// $SAJI_LLAMA_QUANTIZE. It is skipped when that is not set.
func TestMatchesLlamaQuantizeBinary(t *testing.T) {
	bin := os.Getenv("SAJI_LLAMA_QUANTIZE")
	if bin == "" {
		t.Skip("set SAJI_LLAMA_QUANTIZE to a llama-quantize binary to compare with it on every type")
	}
	dir := filepath.Join(refdata.Dir(t), "models")
	masters, err := filepath.Glob(filepath.Join(dir, "*-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	masters = append(masters, filepath.Join(dir, "stories260K.gguf"))
	for _, in := range masters {
		for _, ft := range quantize.FileTypes() {
			if ft == gguf.FileTypeAllF32 {
				continue
			}
			t.Run(filepath.Base(in)+"/"+ft.String(), func(t *testing.T) {
				tmp := t.TempDir()
				ref := filepath.Join(tmp, "ref.gguf")
				cmd := exec.Command(bin, in, ref, ft.String(), "2")
				if b, err := cmd.CombinedOutput(); err != nil {
					// llama-quantize has no fallback for the 32-blocks (it
					// gives up where Saji keeps the tensor F16).
					if bytes.Contains(b, []byte("no tensor type fallback")) {
						t.Skipf("llama-quantize refuses: %s", lineWith(b, "no tensor type fallback"))
					}
					t.Fatalf("llama-quantize: %v\n%s", err, b)
				}
				out := filepath.Join(tmp, "out.gguf")
				if _, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: ft}); err != nil {
					t.Fatal(err)
				}
				sameTensors(t, openT(t, out), openT(t, ref))
			})
		}
	}
}

// lineWith returns the part of b from sub to the end of its line.
func lineWith(b []byte, sub string) string {
	_, after, _ := strings.Cut(string(b), sub)
	line, _, _ := strings.Cut(after, "\n")
	return sub + line
}

// TestTypes quantizes a synthetic F32 model to every supported type and
// checks the output's metadata, its tensor types (those quantize.Mix picks)
// and that the data decodes close to the source.
func TestTypes(t *testing.T) {
	in := tinyF32(t)
	src := openT(t, in)
	arch, _ := src.Architecture()
	mix := quantize.Mix{Arch: arch, Layers: 4, GQA: 2}
	types := quantize.FileTypes()
	if reduced() {
		types = []gguf.FileType{gguf.FileTypeMostlyF16, gguf.FileTypeMostlyQ8_0, gguf.FileTypeMostlyQ4_K_M,
			gguf.FileTypeMostlyIQ4NL, gguf.FileTypeMostlyQ2_K}
	}
	for _, ft := range types {
		t.Run(ft.String(), func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "out.gguf")
			res, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: ft, Threads: 3})
			if err != nil {
				t.Fatal(err)
			}
			f := openT(t, out)
			if got, err := f.FileType(); err != nil || got != ft {
				t.Errorf("general.file_type = %v (%v), want %v", got, err, ft)
			}
			if v, err := f.Uint(gguf.KeyQuantizationVersion); err != nil || v != 2 {
				t.Errorf("general.quantization_version = %d (%v), want 2", v, err)
			}
			for i, kv := range src.KVs() { // the source's keys keep their order
				if got := f.KVs()[i].Key; got != kv.Key {
					t.Fatalf("key %d is %s, want %s", i, got, kv.Key)
				}
			}
			m := mix
			m.FileType = ft
			counts := map[quant.Type]int{}
			for _, st := range src.Tensors() {
				want, err := m.Type(st.Name, st.Shape, st.Type)
				if err != nil {
					t.Fatal(err)
				}
				counts[want]++
				gt, ok := f.Tensor(st.Name)
				if !ok || gt.Type != want {
					t.Errorf("%s is %v, want %v", st.Name, gt.Type, want)
					continue
				}
				checkClose(t, src, f, st, gt)
			}
			if !reflect.DeepEqual(res.TypeCounts, counts) {
				t.Errorf("TypeCounts = %v, want %v", res.TypeCounts, counts)
			}
			if res.InBytes != src.FileSize() || res.OutBytes != f.FileSize() || res.Tensors != len(src.Tensors()) {
				t.Errorf("Result = %+v; source %d bytes, output %d, %d tensors", res, src.FileSize(), f.FileSize(), len(src.Tensors()))
			}
		})
	}
}

// checkClose fails t when the converted tensor's values are further from
// the source's than any of the formats allows.
func checkClose(t *testing.T, src, dst *gguf.File, st, dt gguf.TensorInfo) {
	t.Helper()
	a := decode(t, src, st)
	b := decode(t, dst, dt)
	var num, den float64
	for i := range a {
		d := float64(a[i] - b[i])
		num += d * d
		den += float64(a[i]) * float64(a[i])
	}
	bound := 0.35 // Q2_K is about 0.3 on normal data
	if dt.Type == quant.TypeTQ1_0 || dt.Type == quant.TypeTQ2_0 {
		bound = 0.85 // ternary: most normal values round to 0 (0.81)
	}
	if den > 0 && math.Sqrt(num/den) > bound {
		t.Errorf("%s (%s): relative RMS error %.3g", st.Name, dt.Type, math.Sqrt(num/den))
	}
}

func decode(t *testing.T, f *gguf.File, ti gguf.TensorInfo) []float32 {
	t.Helper()
	data, err := f.Data(ti)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]float32, ti.Elements())
	if err := quant.Dequantize(ti.Type, data, out); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestThreadsGiveSameBytes checks that the number of threads changes
// nothing in the output.
func TestThreadsGiveSameBytes(t *testing.T) {
	in := tinyF32(t)
	dir := t.TempDir()
	var files [][]byte
	for _, threads := range []int{1, 2, 5} {
		out := filepath.Join(dir, "out.gguf")
		if _, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: gguf.FileTypeMostlyQ4_K_M, Threads: threads}); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, b)
	}
	for i := 1; i < len(files); i++ {
		if !bytes.Equal(files[0], files[i]) {
			t.Errorf("output %d differs from output 0", i)
		}
	}
}

// TestErrors checks the refusals: unsupported targets, quantized sources,
// missing files, writing over the input.
func TestErrors(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := tinyF32(t)
	q := filepath.Join(dir, "tiny-q4_k_m.gguf")
	if err := synth.WriteTiny(ctx, q, "q4_k_m", 1); err != nil {
		t.Fatal(err)
	}
	notGGUF := filepath.Join(dir, "text.gguf")
	if err := os.WriteFile(notGGUF, []byte("not a model"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, out string
		opts          quantize.Options
		want          string
	}{
		{"Q2_K_S needs an imatrix", in, "o.gguf", quantize.Options{FileType: gguf.FileTypeMostlyQ2_K_S}, "target type Q2_K_S needs an importance matrix"},
		{"IQ2_XS", in, "o.gguf", quantize.Options{FileType: gguf.FileTypeMostlyIQ2XS}, "target type IQ2_XS needs an importance matrix"},
		{"IQ3_XXS", in, "o.gguf", quantize.Options{FileType: gguf.FileTypeMostlyIQ3XXS}, "needs an importance matrix"},
		{"unknown file type", in, "o.gguf", quantize.Options{FileType: gguf.FileType(1000)}, "unsupported target type"},
		{"quantized source", q, "o.gguf", quantize.Options{FileType: gguf.FileTypeMostlyQ4_0}, "already quantized (tensor \"token_embd.weight\" is Q4_K)"},
		{"missing source", filepath.Join(dir, "none.gguf"), "o.gguf", quantize.Options{FileType: gguf.FileTypeMostlyQ8_0}, "no such file"},
		{"not a GGUF file", notGGUF, "o.gguf", quantize.Options{FileType: gguf.FileTypeMostlyQ8_0}, "quantize: gguf:"},
		{"output is the input", in, in, quantize.Options{FileType: gguf.FileTypeMostlyQ8_0}, "is the input file"},
		{"output directory missing", in, filepath.Join(dir, "no", "o.gguf"), quantize.Options{FileType: gguf.FileTypeMostlyQ8_0}, "no such file"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out := tc.out
			if !filepath.IsAbs(out) {
				out = filepath.Join(t.TempDir(), out)
			}
			_, err := quantize.Quantize(ctx, tc.in, out, tc.opts)
			if tc.in == q && !errors.Is(err, quantize.ErrQuantized) {
				t.Errorf("error %v does not wrap ErrQuantized", err)
			}
			if err == nil || !strings.HasPrefix(err.Error(), "quantize: ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one starting quantize: and containing %q", err, tc.want)
			}
			if out != tc.in {
				if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("output exists after a failure (%v)", err)
				}
			}
		})
	}
	// Q2_K_S parses (Quantize then asks for an importance matrix).
	if ft, err := quantize.ParseFileType("q2_k_s"); err != nil || ft != gguf.FileTypeMostlyQ2_K_S {
		t.Errorf("ParseFileType(q2_k_s) = %v, %v", ft, err)
	}
	if ft, err := quantize.ParseFileType("iq1_m"); err != nil || ft != gguf.FileTypeMostlyIQ1M {
		t.Errorf("ParseFileType(iq1_m) = %v, %v", ft, err)
	}
	if ft, err := quantize.ParseFileType("q4_k_m"); err != nil || ft != gguf.FileTypeMostlyQ4_K_M {
		t.Errorf("ParseFileType(q4_k_m) = %v, %v", ft, err)
	}
}

// TestRequantize checks that AllowRequantize accepts a quantized source,
// dequantizing it, and that a tensor already of its target type is copied.
func TestRequantize(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	in := filepath.Join(dir, "tiny-q8_0.gguf")
	if err := synth.WriteTiny(ctx, in, "q8_0", 3); err != nil {
		t.Fatal(err)
	}
	for _, ft := range []gguf.FileType{gguf.FileTypeMostlyQ4_K_M, gguf.FileTypeMostlyQ8_0, gguf.FileTypeMostlyF16} {
		out := filepath.Join(dir, ft.String()+".gguf")
		if _, err := quantize.Quantize(ctx, in, out, quantize.Options{FileType: ft, AllowRequantize: true}); err != nil {
			t.Fatalf("%v: %v", ft, err)
		}
		src, f := openT(t, in), openT(t, out)
		for _, st := range src.Tensors() {
			gt, _ := f.Tensor(st.Name)
			if ft == gguf.FileTypeMostlyQ8_0 {
				a, _ := src.Data(st)
				b, _ := f.Data(gt)
				if gt.Type != st.Type || !bytes.Equal(a, b) {
					t.Errorf("Q8_0 to Q8_0: %s changed (%v to %v)", st.Name, st.Type, gt.Type)
				}
				continue
			}
			checkClose(t, src, f, st, gt)
		}
	}
}

// TestNonFinite checks that a NaN in a weight is an error naming the
// tensor, as llama-quantize's validation of its output is.
func TestNonFinite(t *testing.T) {
	in := tinyF32(t)
	src := openT(t, in)
	w := gguf.NewWriter()
	for _, kv := range src.KVs() {
		if err := w.Set(kv.Key, kv.Value); err != nil {
			t.Fatal(err)
		}
	}
	for _, ti := range src.Tensors() {
		data, err := src.Data(ti)
		if err != nil {
			t.Fatal(err)
		}
		data = bytes.Clone(data)
		if ti.Name == "blk.2.ffn_up.weight" {
			copy(data[4*1000:], []byte{0, 0, 0xc0, 0x7f}) // a quiet NaN in row 3
		}
		if err := w.AddTensor(ti.Name, ti.Type, ti.Shape, data); err != nil {
			t.Fatal(err)
		}
	}
	bad := filepath.Join(t.TempDir(), "nan.gguf")
	if err := w.WriteFile(context.Background(), bad); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.gguf")
	_, err := quantize.Quantize(context.Background(), bad, out, quantize.Options{FileType: gguf.FileTypeMostlyQ4_0})
	if err == nil || !strings.Contains(err.Error(), "blk.2.ffn_up.weight") || !strings.Contains(err.Error(), "row 3") {
		t.Fatalf("error %v, want one naming blk.2.ffn_up.weight row 3", err)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("output exists after a failure (%v)", err)
	}
}

// TestProgressAndCancel checks that progress rises to the total, and that
// cancelling midway stops with context.Canceled and leaves no file.
func TestProgressAndCancel(t *testing.T) {
	in := tinyF32(t)
	src := openT(t, in)
	var total int64
	for _, ti := range src.Tensors() {
		total += ti.Size
	}

	dir := t.TempDir()
	var last, calls int64
	_, err := quantize.Quantize(context.Background(), in, filepath.Join(dir, "a.gguf"), quantize.Options{
		FileType: gguf.FileTypeMostlyQ6_K,
		Progress: func(done, tot int64) {
			if tot != total || done < last || done > tot {
				t.Errorf("progress %d of %d after %d (total %d)", done, tot, last, total)
			}
			last = done
			calls++
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if last != total || calls < int64(len(src.Tensors())) {
		t.Errorf("progress ended at %d of %d after %d calls", last, total, calls)
	}

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	_, err = quantize.Quantize(ctx, in, filepath.Join(dir, "b.gguf"), quantize.Options{
		FileType: gguf.FileTypeMostlyQ4_K_M,
		Threads:  2,
		Progress: func(done, tot int64) {
			if done > tot/3 {
				cancel()
			}
		},
	})
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "quantize: cancelled") {
		t.Fatalf("error %v, want quantize: cancelled ... context.Canceled", err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != "a.gguf" {
			t.Errorf("%s left in the directory after a cancelled run", e.Name())
		}
	}
}

// BenchmarkQuantize measures the conversion of a synthetic F32 model (2
// layers 1024 wide, about 60 MB) to Q4_K_M and Q8_0 with 1 and all
// threads. The bytes per second are of F32 source data.
func BenchmarkQuantize(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	vp := filepath.Join(dir, "vocab.gguf")
	if err := synth.WriteMiniVocab(ctx, vp, "llama"); err != nil {
		b.Fatal(err)
	}
	vocab, err := gguf.Open(vp)
	if err != nil {
		b.Fatal(err)
	}
	defer vocab.Close()
	shape := synth.Shape{Name: "bench", Arch: "llama", Embd: 1024, Layers: 2, Heads: 16, KVHeads: 4,
		FFN: 4096, RopeBase: 10000, Context: 2048, Eps: 1e-5}
	in := filepath.Join(dir, "bench-f32.gguf")
	if err := synth.Write(ctx, in, synth.Options{Shape: shape, FileType: gguf.FileTypeAllF32, Vocab: vocab, Seed: 1}); err != nil {
		b.Fatal(err)
	}
	f := openT(b, in)
	var size int64
	for _, t := range f.Tensors() {
		size += t.Size
	}
	out := filepath.Join(dir, "out.gguf")
	for _, ft := range []gguf.FileType{gguf.FileTypeMostlyQ4_K_M, gguf.FileTypeMostlyQ8_0} {
		for _, threads := range []int{1, 0} {
			name := ft.String() + "/threads=all"
			if threads == 1 {
				name = ft.String() + "/threads=1"
			}
			b.Run(name, func(b *testing.B) {
				b.SetBytes(size)
				for b.Loop() {
					if _, err := quantize.Quantize(ctx, in, out, quantize.Options{FileType: ft, Threads: threads}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// reduced reports whether to run a smaller set of cases: under the race
// detector and with -short (the arm64 tests run under qemu), the whole set
// takes minutes.
func reduced() bool { return raceEnabled || testing.Short() }
