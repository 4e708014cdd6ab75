package model

import (
	"runtime"
	"slices"
	"testing"

	"saji/kernels/cpu"
)

// TestNemotronHLayers checks Nemotron-H's layers of three kinds (and
// Nemotron 3's, experts in place of the feed-forward networks): the
// Mamba-2 layers keep states, the attention layer alone has a cache (the
// feed-forward layers have neither), Describe says so without the
// weights, and a prompt read in chunks gives the logits of single steps
// (Q8_0's products compute each row alone).
func TestNemotronHLayers(t *testing.T) {
	for _, c := range []struct {
		model                  string
		ffn, experts, sharedFF int
		tol                    float32 // 0: the very logits
	}{
		{"tiny-nemotronh-q8_0", 512, 0, 0, 0},
		// F32 products of a chunk's rows sum in another order than a
		// row's alone (1e-4 here); a state carried wrong is far off.
		{"tiny-nemotronhmoe-f32", 256, 8, 512, 1e-3},
	} {
		t.Run(c.model, func(t *testing.T) {
			if c.experts > 0 && (raceEnabled || (testing.Short() && runtime.GOARCH != "amd64")) {
				t.Skip("model: the dense model checks the layers under the race detector and emulation")
			}
			_, m, f := loadRef(t, c.model, cpu.New(2))
			sameDescription(t, m, f)
			rec := m.Recurrent()
			if len(rec) != 2 || rec[0].Layer != 0 || rec[1].Layer != 4 {
				t.Fatalf("recurrent layers %+v, want 0 and 4", rec)
			}
			if g := m.KVGroups(); len(g) != 1 || !slices.Equal(g[0].Layers, []int{2}) || g[0].KDim != 128 {
				t.Fatalf("KV groups %+v: the attention layer is 2, two KV heads of 64", g)
			}
			if cfg := m.Config(); cfg.FFN != c.ffn || cfg.Experts != c.experts || cfg.SharedFFN != c.sharedFF {
				t.Errorf("config %+v: feed-forward length %d, %d experts, a shared expert of %d", cfg, c.ffn, c.experts, c.sharedFF)
			}
			chunksAsSteps(t, m, c.tol)
		})
	}
}
