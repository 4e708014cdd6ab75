package quantize_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/quantize"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// imatrixFileTypes are the targets Saji writes byte for byte as
// llama-quantize --imatrix does.
var imatrixFileTypes = []gguf.FileType{
	gguf.FileTypeMostlyQ4_K_M, gguf.FileTypeMostlyQ4_K_S,
	gguf.FileTypeMostlyQ5_K_M, gguf.FileTypeMostlyQ5_K_S, gguf.FileTypeMostlyQ6_K,
	gguf.FileTypeMostlyQ3_K_L, gguf.FileTypeMostlyQ3_K_M, gguf.FileTypeMostlyQ3_K_S,
	gguf.FileTypeMostlyQ2_K,
	gguf.FileTypeMostlyQ4_0, gguf.FileTypeMostlyQ4_1, gguf.FileTypeMostlyQ5_0, gguf.FileTypeMostlyQ5_1,
	gguf.FileTypeMostlyQ8_0, gguf.FileTypeMostlyIQ4NL, gguf.FileTypeMostlyIQ4XS,
	gguf.FileTypeMostlyIQ3S, gguf.FileTypeMostlyIQ3M, gguf.FileTypeMostlyQ2_K_S,
	gguf.FileTypeMostlyIQ3XS, gguf.FileTypeMostlyIQ3XXS, gguf.FileTypeMostlyIQ2M,
	gguf.FileTypeMostlyIQ2S, gguf.FileTypeMostlyIQ2XS, gguf.FileTypeMostlyIQ2XXS,
	gguf.FileTypeMostlyIQ1M, gguf.FileTypeMostlyIQ1S,
}

// TestMatchesLlamaQuantizeImatrix makes an importance matrix for each
// reference model with the llama-imatrix binary named by
// $SAJI_LLAMA_IMATRIX, quantizes the model with it to each of
// imatrixFileTypes with Saji and with the llama-quantize binary named by
// $SAJI_LLAMA_QUANTIZE, and checks that every tensor has the same bytes.
func TestMatchesLlamaQuantizeImatrix(t *testing.T) {
	bin, imbin := os.Getenv("SAJI_LLAMA_QUANTIZE"), os.Getenv("SAJI_LLAMA_IMATRIX")
	if bin == "" || imbin == "" {
		t.Skip("set SAJI_LLAMA_QUANTIZE and SAJI_LLAMA_IMATRIX to llama.cpp's binaries to compare with them")
	}
	dir := refdata.Dir(t)
	text := filepath.Join(dir, "ppl", "story.txt")
	masters, err := filepath.Glob(filepath.Join(dir, "models", "*-f32.gguf"))
	if err != nil {
		t.Fatal(err)
	}
	for _, in := range masters {
		t.Run(filepath.Base(in), func(t *testing.T) {
			tmp := t.TempDir()
			im := filepath.Join(tmp, "imatrix.gguf")
			cmd := exec.Command(imbin, "-m", in, "-f", text, "-c", "64", "-t", "2", "--no-ppl", "-o", im)
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("llama-imatrix: %v\n%s", err, b)
			}
			m, err := quantize.ReadImatrix(im)
			if err != nil {
				t.Fatal(err)
			}
			for _, ft := range imatrixFileTypes {
				t.Run(ft.String(), func(t *testing.T) {
					ref := filepath.Join(tmp, "ref.gguf")
					cmd := exec.Command(bin, "--imatrix", im, in, ref, ft.String(), "2")
					if b, err := cmd.CombinedOutput(); err != nil {
						t.Fatalf("llama-quantize: %v\n%s", err, b)
					}
					out := filepath.Join(tmp, "out.gguf")
					if _, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: ft, Imatrix: m}); err != nil {
						t.Fatal(err)
					}
					got, want := openT(t, out), openT(t, ref)
					sameTensors(t, got, want)
					for _, k := range []string{"quantize.imatrix.file", "quantize.imatrix.dataset",
						"quantize.imatrix.entries_count", "quantize.imatrix.chunks_count"} {
						g, _ := got.Value(k)
						w, ok := want.Value(k)
						if !ok || fmt.Sprint(g) != fmt.Sprint(w) {
							t.Errorf("%s = %v, want %v", k, g, w)
						}
					}
				})
			}
		})
	}
}

// writeImatrix writes a GGUF importance matrix with weights for every
// matrix of the model at in but those skip names, weight i of a row being
// 1 + (i mod 7), or with one weight too few for the tensor called short.
func writeImatrix(t *testing.T, in, short string, skip ...string) string {
	t.Helper()
	w := gguf.NewWriter()
	for k, v := range map[string]any{"imatrix.datasets": []string{"t"}, "imatrix.chunk_count": uint32(1), "imatrix.chunk_size": uint32(1)} {
		if err := w.Set(k, v); err != nil {
			t.Fatal(err)
		}
	}
	for _, ti := range openT(t, in).Tensors() {
		if len(ti.Shape) < 2 || slices.Contains(skip, ti.Name) {
			continue
		}
		n, experts := ti.Shape[0], int64(1)
		if len(ti.Shape) > 2 {
			experts = ti.Shape[2]
		}
		if ti.Name == short {
			n--
		}
		sums := make([]byte, 4*n*experts)
		for i := range n * experts {
			binary.LittleEndian.PutUint32(sums[4*i:], math.Float32bits(float32(1+i%7)))
		}
		// Expert e saw e%3 activations (none: weights 1).
		var counts []byte
		for e := range experts {
			c := float32(1)
			if experts > 1 {
				c = float32(e % 3)
			}
			counts = binary.LittleEndian.AppendUint32(counts, math.Float32bits(c))
		}
		if err := w.AddTensor(ti.Name+".in_sum2", quant.TypeF32, []int64{n, experts}, sums); err != nil {
			t.Fatal(err)
		}
		if err := w.AddTensor(ti.Name+".counts", quant.TypeF32, []int64{1, experts}, counts); err != nil {
			t.Fatal(err)
		}
	}
	p := filepath.Join(t.TempDir(), "imatrix.gguf")
	if err := w.WriteFile(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestQuantizeImatrix quantizes a synthetic model with an importance
// matrix: the matrices it has weights for change, the others do not, all
// decode close to the source, and the quantize.imatrix.* keys are set; a
// Q2_K_S target needs the matrix and weights for its Q2_K matrices, and
// weights of the wrong size are refused.
func TestQuantizeImatrix(t *testing.T) {
	in := tinyF32(t)
	src := openT(t, in)
	ctx := context.Background()
	im, err := quantize.ReadImatrix(writeImatrix(t, in, "", "blk.0.attn_q.weight"))
	if err != nil {
		t.Fatal(err)
	}
	full, err := quantize.ReadImatrix(writeImatrix(t, in, ""))
	if err != nil {
		t.Fatal(err)
	}
	for _, ft := range []gguf.FileType{gguf.FileTypeMostlyQ4_K_M, gguf.FileTypeMostlyQ2_K_S} {
		t.Run(ft.String(), func(t *testing.T) {
			im := im
			if ft == gguf.FileTypeMostlyQ2_K_S {
				im = full
			}
			dir := t.TempDir()
			with, plain := filepath.Join(dir, "with.gguf"), filepath.Join(dir, "plain.gguf")
			if _, err := quantize.Quantize(ctx, in, with, quantize.Options{FileType: ft, Imatrix: im}); err != nil {
				t.Fatal(err)
			}
			pft := ft
			if ft == gguf.FileTypeMostlyQ2_K_S {
				pft = gguf.FileTypeMostlyQ2_K
			}
			if _, err := quantize.Quantize(ctx, in, plain, quantize.Options{FileType: pft}); err != nil {
				t.Fatal(err)
			}
			a, b := openT(t, with), openT(t, plain)
			for _, st := range src.Tensors() {
				at, _ := a.Tensor(st.Name)
				bt, _ := b.Tensor(st.Name)
				checkClose(t, src, a, st, at)
				if at.Type != bt.Type || at.Type == st.Type || ft != pft {
					continue
				}
				ad, _ := a.Data(at)
				bd, _ := b.Data(bt)
				_, weighted := im.Weights[st.Name]
				if weighted == bytes.Equal(ad, bd) {
					t.Errorf("%s (%s, weights: %v): the data is the same with and without the imatrix: %v", st.Name, at.Type, weighted, !weighted)
				}
			}
			if v, err := a.Uint("quantize.imatrix.entries_count"); err != nil || v != uint64(len(im.Weights)) {
				t.Errorf("quantize.imatrix.entries_count = %d (%v), want %d", v, err, len(im.Weights))
			}
			if v, err := a.String("quantize.imatrix.file"); err != nil || v != im.File {
				t.Errorf("quantize.imatrix.file = %q (%v), want %q", v, err, im.File)
			}
		})
	}

	short, err := quantize.ReadImatrix(writeImatrix(t, in, "blk.1.ffn_up.weight"))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "o.gguf")
	for _, tt := range []struct {
		name string
		opts quantize.Options
		want string
	}{
		{"Q2_K_S without", quantize.Options{FileType: gguf.FileTypeMostlyQ2_K_S}, "Q2_K_S needs an importance matrix (llama-imatrix's output, --imatrix FILE)"},
		{"Q2_K_S missing weights", quantize.Options{FileType: gguf.FileTypeMostlyQ2_K_S, Imatrix: im}, `no weights for tensor "blk.0.attn_q.weight"`},
		{"wrong size", quantize.Options{FileType: gguf.FileTypeMostlyQ4_K_M, Imatrix: short}, `has 255 weights for tensor "blk.1.ffn_up.weight", which needs 256`},
		{"IQ1_M missing weights", quantize.Options{FileType: gguf.FileTypeMostlyIQ1M, Imatrix: im}, `no weights for tensor "blk.0.attn_q.weight", which IQ1_M needs for IQ1_M`},
	} {
		if _, err := quantize.Quantize(ctx, in, out, tt.opts); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: error %v, want one containing %q", tt.name, err, tt.want)
		}
	}
}

// TestMoEImatrixMatchesLlamaQuantizeBinary quantizes moeF32 with an
// importance matrix holding per-expert weights (one expert with no
// activations) with Saji and with the llama-quantize binary named by
// $SAJI_LLAMA_QUANTIZE, and checks that every tensor is the same.
func TestMoEImatrixMatchesLlamaQuantizeBinary(t *testing.T) {
	bin := os.Getenv("SAJI_LLAMA_QUANTIZE")
	if bin == "" {
		t.Skip("set SAJI_LLAMA_QUANTIZE to a llama-quantize binary to compare with it")
	}
	in := moeF32(t)
	imf := writeImatrix(t, in, "")
	im, err := quantize.ReadImatrix(imf)
	if err != nil {
		t.Fatal(err)
	}
	for _, ft := range []gguf.FileType{gguf.FileTypeMostlyQ4_K_M, gguf.FileTypeMostlyIQ2XS} {
		t.Run(ft.String(), func(t *testing.T) {
			tmp := t.TempDir()
			ref := filepath.Join(tmp, "ref.gguf")
			if b, err := exec.Command(bin, "--imatrix", imf, in, ref, ft.String(), "2").CombinedOutput(); err != nil {
				t.Fatalf("llama-quantize: %v\n%s", err, b)
			}
			out := filepath.Join(tmp, "out.gguf")
			if _, err := quantize.Quantize(context.Background(), in, out, quantize.Options{FileType: ft, Imatrix: im}); err != nil {
				t.Fatal(err)
			}
			sameTensors(t, openT(t, out), openT(t, ref))
		})
	}
}
