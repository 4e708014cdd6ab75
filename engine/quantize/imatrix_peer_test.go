package quantize_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"saji/engine/gguf"
	"saji/engine/quantize"
	"saji/internal/refdata"
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
	gguf.FileTypeMostlyIQ3S, gguf.FileTypeMostlyIQ3M,
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
