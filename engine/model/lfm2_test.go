package model

import (
	"context"
	"slices"
	"strings"
	"testing"

	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestRecurrentState checks the contract of a hybrid model's state: a
// prompt read in chunks gives the logits of single steps,
// a chunk that does not continue where the state stopped is refused (a
// state does not go back) unless it starts over at position 0 or at a
// checkpoint (a chunk's end),
// and a batch refuses two sequences on one slot or a slot out of range.
func TestRecurrentState(t *testing.T) {
	_, m, _ := loadRef(t, "tiny-lfm2-q4_k_m", cpu.New(2))
	rec := m.Recurrent()
	if len(rec) != 2 || rec[0].Layer != 0 || rec[1].Layer != 2 || StateBytes(rec) != 2*2*256*4 {
		t.Fatalf("recurrent layers %+v (%d bytes)", rec, StateBytes(rec))
	}
	if g := m.KVGroups(); len(g) != 1 || !slices.Equal(g[0].Layers, []int{1, 3}) {
		t.Fatalf("KV groups %+v: the attention layers are 1 and 3", g)
	}
	// Chunks of fewer than 4 tokens take the same products (Q4_K's
	// batches of 4 rows sum in another order), so the windows carried
	// from chunk to chunk must give the very logits of single steps.
	prompt := []int32{1024, 5, 77, 300, 12, 9, 800, 41, 42, 43, 600, 7}
	steps := generateSolo(t, m, quant.TypeF16, 64, prompt, 1, 8)
	for _, chunk := range []int{2, 3} {
		got := generateSolo(t, m, quant.TypeF16, 64, prompt, chunk, 8)
		if !slices.Equal(got.tokens, steps.tokens) || !slices.EqualFunc(got.logits, steps.logits, slices.Equal[[]float32]) {
			t.Errorf("chunks of %d: %v, single steps %v (or the logits differ)", chunk, got.tokens, steps.tokens)
		}
	}
	whole := generateSolo(t, m, quant.TypeF16, 64, prompt, len(prompt), 1)

	ctx := context.Background()
	cache, err := m.NewCache(64, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forward(ctx, prompt[:6], span(0, 6), cache, false); err != nil {
		t.Fatal(err)
	}
	cache.Truncate(4)
	if _, err := m.Forward(ctx, prompt[4:6], span(4, 6), cache, false); err == nil || !strings.Contains(err.Error(), "does not go back") {
		t.Errorf("going back to position 4: %v", err)
	}
	// A chunk's end is a checkpoint: the sequence may go back to it, as
	// saji bench does to its depth before each repetition, even after
	// single steps past it.
	cache.Reset()
	var rest, first6 []float32
	for i, ch := range [][2]int{{0, 6}, {6, 12}, {6, 12}} {
		if i == 2 {
			cache.Truncate(6)
		}
		if rest, err = m.Forward(ctx, prompt[ch[0]:ch[1]], span(ch[0], ch[1]), cache, false); err != nil {
			t.Fatalf("chunk %d: %v", i, err)
		}
		if i == 1 {
			first6 = rest
			for p := 12; p < 15; p++ {
				if _, err := m.Forward(ctx, prompt[:1], span(p, p+1), cache, false); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if !slices.Equal(rest, first6) {
		t.Error("after going back to the checkpoint at 6, the chunk's logits differ from the first time's")
	}
	cache.Reset()
	first, err := m.Forward(ctx, prompt, span(0, len(prompt)), cache, false)
	if err != nil {
		t.Fatal(err)
	}
	if argmax(first) != whole.tokens[0] {
		t.Errorf("after a reset: token %d, want %d", argmax(first), whole.tokens[0])
	}

	paged, err := m.NewPagedCache([]int{64}, 2, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.NewPagedCache([]int{64}, 0, quant.TypeF16); err == nil {
		t.Error("a paged cache without state slots was made")
	}
	cells := [][]int32{span(0, 2)}
	other := [][]int32{span(2, 4)}
	for name, b := range map[string]*Batch{
		"shared slot": {Tokens: []int32{1, 2, 3, 4}, Pos: []int32{0, 1, 0, 1},
			Seqs: []SeqBatch{{N: 2, Cells: cells, Slot: 1}, {N: 2, Cells: other, Slot: 1, Logits: true}}},
		"slot range": {Tokens: []int32{1, 2}, Pos: []int32{0, 1}, Seqs: []SeqBatch{{N: 2, Cells: cells, Slot: 2, Logits: true}}},
		"gap":        {Tokens: []int32{1, 2}, Pos: []int32{0, 2}, Seqs: []SeqBatch{{N: 2, Cells: [][]int32{span(0, 3)}, Logits: true}}},
		"no start":   {Tokens: []int32{1, 2}, Pos: []int32{1, 2}, Seqs: []SeqBatch{{N: 2, Cells: [][]int32{span(0, 3)}, Logits: true}}},
	} {
		if _, err := m.ForwardBatch(ctx, b, paged); err == nil {
			t.Errorf("%s: the batch was run", name)
		}
	}
}
