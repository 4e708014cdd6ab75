package fit

import (
	"context"
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"testing"

	"saji/engine/model"
	"saji/engine/synth"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestLevelRunnable checks the type a level's name implies and the
// verdict on it, which follows the CPU backend's registry (cpu.CanMatMul),
// so that a level whose type gains a kernel runs with no edit here.
func TestLevelRunnable(t *testing.T) {
	tests := []struct {
		level string
		typ   quant.Type
		known bool
	}{
		{"Q4_K_M", quant.TypeQ4_K, true},
		{"q4_k_s", quant.TypeQ4_K, true},
		{"Q8_0", quant.TypeQ8_0, true},
		{"F16", quant.TypeF16, true},
		{"IQ4_XS", quant.TypeIQ4_XS, true},
		{"IQ2_XXS", quant.TypeIQ2_XXS, true},
		{"UD-IQ1_S", quant.TypeIQ1_S, true},
		{"IQ3_M", quant.TypeIQ3_S, true},
		{"IQ3_XS", quant.TypeIQ3_S, true},
		{"IQ2_M", quant.TypeIQ2_S, true},
		{"TQ1_0", quant.TypeTQ1_0, true},
		{"MXFP4", quant.TypeMXFP4, true},
		{"Q1_0", quant.TypeQ1_0, true},
		{"NVFP4", quant.TypeNVFP4, true},
		{"UD-Q4_K_XL", 0, false},
		{"Q8_K_XL", 0, false},
		{"Tiny-Model", 0, false},
	}
	for _, tc := range tests {
		t.Run(tc.level, func(t *testing.T) {
			typ, known := levelType(tc.level)
			if typ != tc.typ || known != tc.known {
				t.Fatalf("levelType = %v, %v; want %v, %v", typ, known, tc.typ, tc.known)
			}
			err := LevelRunnable(tc.level)
			if runs := !known || cpu.CanMatMul(typ); runs != (err == nil) {
				t.Fatalf("LevelRunnable: %v; the CPU backend multiplies with it: %v", err, runs)
			}
			var re *model.RunError
			if err != nil && (!errors.As(err, &re) || !errors.Is(err, model.ErrUnsupportedType) ||
				re.Reason != tc.level+" files are mostly "+typ.String()+", a type Saji cannot compute with yet") {
				t.Errorf("LevelRunnable: %v", err)
			}
		})
	}
}

// TestDescribeURLUnrunnable reads the header of a model Saji cannot run
// over HTTP Range, as saji fit --model, saji pull and Discover do before
// a download: the error names the tensor, and the weights are not fetched.
func TestDescribeURLUnrunnable(t *testing.T) {
	p := filepath.Join(t.TempDir(), "q1.gguf")
	if err := synth.WriteUnrunnable(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	srv, sent := rangeServer(t, b)
	_, err = DescribeSplitURL(context.Background(), srv.Client(), srv.URL+"/m.gguf", http.Header{"Authorization": {"Bearer tok"}}, int64(len(b)))
	var re *model.RunError
	if !errors.As(err, &re) || re.Reason != "blk.0.ffn_up.weight is Q1_0, a type Saji cannot compute with yet" {
		t.Fatalf("DescribeSplitURL: %v", err)
	}
	if n := sent.Load(); n >= int64(len(b)) {
		t.Errorf("fetched %d bytes of a %d-byte file", n, len(b))
	}
}
