package quant_test

import (
	"encoding/binary"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// TestIQ3SMatchesLlamaQuantize quantizes the F32 master of each synthetic
// model to IQ3_S with llama-quantize --pure (every matrix IQ3_S, no
// importance matrix), made on the spot by the binary that
// $SAJI_LLAMA_QUANTIZE names, and checks that Saji's IQ3_S quantizer gives
// the same bytes row by row. It is skipped when that is not set.
func TestIQ3SMatchesLlamaQuantize(t *testing.T) {
	bin := os.Getenv("SAJI_LLAMA_QUANTIZE")
	if bin == "" {
		t.Skip("set SAJI_LLAMA_QUANTIZE to a llama-quantize binary to compare IQ3_S with it")
	}
	masters, err := filepath.Glob(filepath.Join(refdata.Dir(t), "models", "*-f32.gguf"))
	if err != nil || len(masters) == 0 {
		t.Fatalf("no F32 masters (%v)", err)
	}
	masters = append(masters, edgeMaster(t, masters[0]))
	for _, in := range masters {
		t.Run(filepath.Base(in), func(t *testing.T) {
			ref := filepath.Join(t.TempDir(), "ref.gguf")
			if b, err := exec.Command(bin, "--pure", in, ref, "IQ3_S", "2").CombinedOutput(); err != nil {
				t.Fatalf("llama-quantize: %v\n%s", err, b)
			}
			master, err := readF32Tensors(in)
			if err != nil {
				t.Fatal(err)
			}
			f, err := gguf.Open(ref)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			compared := 0
			for _, ti := range f.Tensors() {
				if ti.Type != quant.TypeIQ3_S {
					continue
				}
				want, err := f.TensorData(ti.Name)
				if err != nil {
					t.Fatal(err)
				}
				diff, err := quantizeRows(ti.Type, master[ti.Name], int(ti.Shape[0]), nil, want)
				if err != nil || diff != "" {
					t.Errorf("%s: %s %v", ti.Name, diff, err)
				}
				compared++
			}
			if compared == 0 {
				t.Fatal("no IQ3_S tensor in llama-quantize's output")
			}
			t.Logf("%d IQ3_S tensors identical", compared)
		})
	}
}

// edgeMaster writes a copy of the F32 model at path whose first matrix
// starts with the cases random weights never reach: all-zero sub-blocks of
// 32 (after which ggml stores the next sub-blocks' grid indices and signs
// early), an all-zero super-block, a lone value, constant and tiny
// sub-blocks, and a sub-block whose magnitudes all round to one level.
func edgeMaster(t *testing.T, path string) string {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	var ti gguf.TensorInfo
	for _, c := range f.Tensors() {
		if c.Type == quant.TypeF32 && len(c.Shape) == 2 && c.Shape[0]%quant.QK_K == 0 && c.Elements() >= 8*quant.QK_K {
			ti = c
			break
		}
	}
	off := f.DataOffset(0) + int64(ti.Offset)
	f.Close()
	if ti.Name == "" {
		t.Fatal("no F32 matrix to edit")
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	set := func(i int, v float32) { binary.LittleEndian.PutUint32(b[off+4*int64(i):], math.Float32bits(v)) }
	for i := range 32 {
		set(32+i, 0) // super-block 0: sub-blocks 1 and 3 zero
		set(96+i, 0)
		set(256+32*7+i, 0) // super-block 1: the last sub-block zero
	}
	for i := range quant.QK_K {
		set(2*quant.QK_K+i, 0)                       // super-block 2: all zero
		set(3*quant.QK_K+i, 0)                       // super-block 3: one value
		set(4*quant.QK_K+i, float32(1-2*(i%2))*0.25) // constant magnitude
		set(5*quant.QK_K+i, float32(i%7-3)*1e-30)    // tiny
		set(6*quant.QK_K+i, float32(i%16+1)*float32(1-2*(i/3%2)))
	}
	set(3*quant.QK_K+77, -3)
	out := filepath.Join(t.TempDir(), "edge-f32.gguf")
	if err := os.WriteFile(out, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}
