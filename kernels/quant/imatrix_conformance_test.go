package quant_test

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// imatrixOnlyTypes are the types ggml quantizes only with importance
// weights that Saji writes.
var imatrixOnlyTypes = []quant.Type{quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ3_XXS, quant.TypeIQ2_S, quant.TypeIQ1_S, quant.TypeIQ1_M}

// TestImatrixTypesMatchLlamaQuantize makes an importance matrix for the F32
// master of each synthetic model with the llama-imatrix binary that
// $SAJI_LLAMA_IMATRIX names, quantizes the master with it to each of
// imatrixOnlyTypes with llama-quantize --pure ($SAJI_LLAMA_QUANTIZE; the
// output and embeddings, which have no weights, Q8_0), and checks that
// Saji's weighted quantizer gives the same bytes row by row.
func TestImatrixTypesMatchLlamaQuantize(t *testing.T) {
	bin, imbin := os.Getenv("SAJI_LLAMA_QUANTIZE"), os.Getenv("SAJI_LLAMA_IMATRIX")
	if bin == "" || imbin == "" {
		t.Skip("set SAJI_LLAMA_QUANTIZE and SAJI_LLAMA_IMATRIX to llama.cpp's binaries to compare with them")
	}
	dir := refdata.Dir(t)
	masters, err := filepath.Glob(filepath.Join(dir, "models", "*-f32.gguf"))
	if err != nil || len(masters) == 0 {
		t.Fatalf("no F32 masters (%v)", err)
	}
	for _, in := range masters {
		t.Run(filepath.Base(in), func(t *testing.T) {
			tmp := t.TempDir()
			imf := filepath.Join(tmp, "imatrix.gguf")
			cmd := exec.Command(imbin, "-m", in, "-f", filepath.Join(dir, "ppl", "story.txt"), "-c", "64", "-t", "2", "--no-ppl", "-o", imf)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("llama-imatrix: %v\n%s", err, b)
			}
			weights, err := readImatrix(imf)
			if err != nil {
				t.Fatal(err)
			}
			master, err := readF32Tensors(in)
			if err != nil {
				t.Fatal(err)
			}
			for _, typ := range imatrixOnlyTypes {
				t.Run(typ.String(), func(t *testing.T) {
					ref := filepath.Join(tmp, "ref.gguf")
					ftName := typ.String()
					if typ == quant.TypeIQ2_S {
						ftName = "IQ2_M" // the IQ2_S file type's matrices are IQ2_XS
					}
					cmd := exec.Command(bin, "--pure", "--imatrix", imf, "--output-tensor-type", "q8_0",
						"--token-embedding-type", "q8_0", in, ref, ftName, "2")
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("llama-quantize: %v\n%s", err, b)
					}
					f, err := gguf.Open(ref)
					if err != nil {
						t.Fatal(err)
					}
					defer f.Close()
					compared := 0
					for _, ti := range f.Tensors() {
						if ti.Type != typ {
							continue
						}
						want, err := f.TensorData(ti.Name)
						if err != nil {
							t.Fatal(err)
						}
						diff, err := quantizeRows(typ, master[ti.Name], int(ti.Shape[0]), weights[ti.Name], want)
						if err != nil || diff != "" {
							t.Errorf("%s: %s %v", ti.Name, diff, err)
						}
						compared++
					}
					if compared == 0 {
						t.Fatalf("no %v tensor in llama-quantize's output", typ)
					}
					t.Logf("%d %v tensors identical", compared, typ)
				})
			}
		})
	}
}

// readImatrix returns the importance weights of a dense model's matrices
// from llama-imatrix's GGUF output: each tensor's sums of squares divided
// by its count, as llama-quantize averages them. (engine/quantize reads
// the format in full; this test, which runs on arm64 under qemu too, does
// not link the engine.)
func readImatrix(path string) (map[string][]float32, error) {
	ts, err := readF32Tensors(path)
	if err != nil {
		return nil, err
	}
	out := map[string][]float32{}
	for name, sums := range ts {
		base, ok := strings.CutSuffix(name, ".in_sum2")
		if !ok {
			continue
		}
		counts := ts[base+".counts"]
		if len(counts) != 1 {
			return nil, fmt.Errorf("%s: counts %v", base, counts)
		}
		c := float32(math.Round(float64(counts[0])))
		for i := range sums {
			if c > 0 {
				sums[i] /= c
			} else {
				sums[i] = 1
			}
		}
		out[base] = sums
	}
	return out, nil
}
