package model

import (
	"context"
	"strings"
	"testing"

	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestBatchInputVectors checks that a batch's input vectors stand for its
// negative tokens (a vector equal to a token's scaled embedding row gives
// that token's logits, in Gemma 3 and in Llama), and that ForwardBatch refuses vectors the
// architecture does not read, vectors of the wrong count, and attention
// positions past the sequence's.
func TestBatchInputVectors(t *testing.T) {
	_, m, _ := loadRef(t, "tiny-gemma3-f32", cpu.New(2))
	_, llama, _ := loadRef(t, "tiny-llama-spm-f32", cpu.New(2))
	_, gemma2, _ := loadRef(t, "tiny-gemma2-f32", cpu.New(2))
	if !m.Config().Vectors || !llama.Config().Vectors || gemma2.Config().Vectors {
		t.Errorf("Config().Vectors: Gemma 3 %v, Llama %v, Gemma 2 %v", m.Config().Vectors, llama.Config().Vectors, gemma2.Config().Vectors)
	}
	embd := m.Config().Embd
	run := func(m Model, b *Batch) ([]float32, error) {
		groups := m.KVGroups()
		sizes := make([]int, len(groups))
		cells := make([][]int32, len(groups))
		for g := range groups {
			sizes[g] = 64
			cells[g] = span(0, 64)
		}
		cache, err := m.NewPagedCache(sizes, 1, quant.TypeF32)
		if err != nil {
			t.Fatal(err)
		}
		b.Seqs = []SeqBatch{{N: len(b.Tokens), Cells: cells, Logits: true}}
		return m.ForwardBatch(context.Background(), b, cache)
	}
	want, err := run(m, &Batch{Tokens: []int32{1, 20, 30}, Pos: span(0, 3)})
	if err != nil {
		t.Fatal(err)
	}
	// Token 20's row, scaled as Gemma 3 scales token embeddings: the
	// vector read in its place must give the same logits.
	g := m.(runner).common()
	row := make([]float32, embd)
	tmp, _ := g.backend.New(quant.TypeF32, embd, 1)
	if err := g.backend.GetRows(tmp, g.tokEmbd, []int32{20}); err != nil {
		t.Fatal(err)
	}
	if err := g.backend.Read(tmp, row); err != nil {
		t.Fatal(err)
	}
	gm := m.(runner).arch.(*gemma)
	for i := range row {
		row[i] *= gm.embedScale
	}
	got, err := run(m, &Batch{Tokens: []int32{1, -1, 30}, Pos: span(0, 3), Embd: row})
	if err != nil {
		t.Fatal(err)
	}
	for i := range want {
		if d := got[i] - want[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("logit %d: %g with the vector, %g with the token", i, got[i], want[i])
		}
	}
	// Llama (LLaVA's language model) reads the vector as it is.
	lg := llama.(runner).common()
	lrow := make([]float32, llama.Config().Embd)
	ltmp, _ := lg.backend.New(quant.TypeF32, len(lrow), 1)
	if err := lg.backend.GetRows(ltmp, lg.tokEmbd, []int32{20}); err != nil {
		t.Fatal(err)
	}
	if err := lg.backend.Read(ltmp, lrow); err != nil {
		t.Fatal(err)
	}
	lwant, err := run(llama, &Batch{Tokens: []int32{1, 20, 30}, Pos: span(0, 3)})
	if err != nil {
		t.Fatal(err)
	}
	lgot, err := run(llama, &Batch{Tokens: []int32{1, -1, 30}, Pos: span(0, 3), Embd: lrow})
	if err != nil {
		t.Fatal(err)
	}
	for i := range lwant {
		if d := lgot[i] - lwant[i]; d > 1e-5 || d < -1e-5 {
			t.Fatalf("llama's logit %d: %g with the vector, %g with the token", i, lgot[i], lwant[i])
		}
	}
	refusals := []struct {
		name string
		m    Model
		b    *Batch
		want string
	}{
		{"an architecture without vectors", gemma2, &Batch{Tokens: []int32{1, -1}, Pos: span(0, 2), Embd: make([]float32, gemma2.Config().Embd)}, "reads tokens only"},
		{"too few values", m, &Batch{Tokens: []int32{1, -1, -1}, Pos: span(0, 3), Embd: row}, "input values for 2 vectors"},
		{"attention past the batch", m, &Batch{Tokens: []int32{1, 2}, Pos: span(0, 2), AttnPos: []int32{5, 1}}, "attention position 5"},
		{"attention positions short", m, &Batch{Tokens: []int32{1, 2}, Pos: span(0, 2), AttnPos: []int32{1}}, "attention positions for 2 tokens"},
	}
	for _, r := range refusals {
		if _, err := run(r.m, r.b); err == nil || !strings.Contains(err.Error(), r.want) {
			t.Errorf("%s: %v, want an error saying %q", r.name, err, r.want)
		}
	}
}
