package model

import (
	"reflect"
	"slices"
	"testing"

	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestNemotronHLayers checks a Nemotron-H's layers of three kinds: the
// Mamba-2 layers keep states, the attention layer alone has a cache (the
// feed-forward layers have neither), and a prompt read in chunks gives
// the logits of single steps.
func TestNemotronHLayers(t *testing.T) {
	_, m, f := loadRef(t, "tiny-nemotronh-q8_0", cpu.New(2))
	// Describe, which reads no weights (engine/fit's plans), says the same.
	d, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Recurrent, m.Recurrent()) || !reflect.DeepEqual(d.KVGroups, m.KVGroups()) {
		t.Errorf("Describe: recurrent layers %+v and KV groups %+v, the loaded model %+v and %+v", d.Recurrent, d.KVGroups, m.Recurrent(), m.KVGroups())
	}
	rec := m.Recurrent()
	if len(rec) != 2 || rec[0].Layer != 0 || rec[1].Layer != 4 {
		t.Fatalf("recurrent layers %+v, want 0 and 4", rec)
	}
	if g := m.KVGroups(); len(g) != 1 || !slices.Equal(g[0].Layers, []int{2}) || g[0].KDim != 128 {
		t.Fatalf("KV groups %+v: the attention layer is 2, two KV heads of 64", g)
	}
	if c := m.Config(); c.FFN != 512 || c.Experts != 0 {
		t.Errorf("config %+v: dense feed-forward layers of 512", c)
	}
	prompt := []int32{1, 5, 77, 300, 12, 9, 200, 41, 42, 43, 400, 7}
	steps := generateSolo(t, m, quant.TypeF16, 64, prompt, 1, 6)
	for _, chunk := range []int{2, 5} {
		got := generateSolo(t, m, quant.TypeF16, 64, prompt, chunk, 6)
		if !slices.Equal(got.tokens, steps.tokens) || !slices.EqualFunc(got.logits, steps.logits, slices.Equal[[]float32]) {
			t.Errorf("chunks of %d: %v, single steps %v (or the logits differ)", chunk, got.tokens, steps.tokens)
		}
	}
}
