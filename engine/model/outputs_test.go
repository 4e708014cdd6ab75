package model

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// lastOnlyRef is a figure file of testdata/lastonly (recorded by
// testdata/refdump/lastdump.cpp): llama.cpp's logits for the last token of
// a prompt read in one batch that asks for that token's logits only.
type lastOnlyRef struct {
	Model  string    `json:"model"` // relative to the shared testdata
	Tokens []int32   `json:"tokens"`
	Last   []float32 `json:"last_logits"`
}

// TestLastOnlyLogits checks that a prompt whose last token alone gets
// logits gives llama.cpp's logits bit for bit, on the oracle and the SIMD
// kernels. llama.cpp runs the last layer's feed-forward block on that one
// row, whose float matrix products then take the one-row order, not
// tinyBLAS's: a pass that kept every row there was 7e-4 away on an F16
// model, within the conformance tolerance but not the same bits.
func TestLastOnlyLogits(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(filepath.Dir(projectRefDir(t)), "lastonly", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no figures in testdata/lastonly (%v)", err)
	}
	data := refdata.Dir(t)
	for _, file := range files {
		raw, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		var ref lastOnlyRef
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		for _, simd := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/simd=%v", filepath.Base(ref.Model), simd), func(t *testing.T) {
				var b kernels.Backend = cpu.NewReference(1)
				if simd {
					b = cpu.New(1)
				}
				m := openModel(t, filepath.Join(data, filepath.FromSlash(ref.Model)), b)
				got := promptLogits(t, m, ref.Tokens, false)
				if len(got) != len(ref.Last) {
					t.Fatalf("%d logits, want %d", len(got), len(ref.Last))
				}
				diff, worst := 0, 0.0
				for i, w := range ref.Last {
					if got[i] != w {
						diff++
						worst = max(worst, math.Abs(float64(got[i]-w)))
					}
				}
				if diff > 0 {
					t.Errorf("%d of %d logits differ from llama.cpp's, by up to %.3g", diff, len(got), worst)
				}
			})
		}
	}
}

// openModel loads the model file at path on b.
func openModel(t *testing.T, path string, b kernels.Backend) Model {
	t.Helper()
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := Load(context.Background(), f, Options{Backend: b})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// promptLogits returns the logits of every one of tokens (all) or of the
// last, read as one prompt into a fresh F32 cache.
func promptLogits(t *testing.T, m Model, tokens []int32, all bool) []float32 {
	t.Helper()
	cache, err := m.NewCache(512, quant.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Forward(context.Background(), tokens, span(0, len(tokens)), cache, all)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

// rowCounter is a backend that records the activation rows of each matrix
// product it runs.
type rowCounter struct {
	kernels.Backend
	mu   sync.Mutex
	rows []int
}

// MatMul records x's rows and runs the product.
func (c *rowCounter) MatMul(dst, w, x kernels.Tensor) error {
	c.mu.Lock()
	c.rows = append(c.rows, kernels.Rows(x))
	c.mu.Unlock()
	return c.Backend.MatMul(dst, w, x)
}

// TestOutputsOnly checks where each architecture cuts the hidden states to
// the rows whose logits a step returns, as llama.cpp's graph of it does:
// after the last layer's attention (or recurrent block) for those whose
// graphs cut there, so the last feed-forward block's products run on the
// one row a prompt returns; nowhere before the head for those whose graphs
// keep every row (gpt-oss, Gemma 4, Qwen3.5, Nemotron-H: llama.cpp cuts
// them only for masked next-token embeddings), nor when every row is
// wanted.
func TestOutputsOnly(t *testing.T) {
	cases := []struct {
		model string
		cuts  bool
	}{
		{"tiny-llama3-bpe-q4_k_m", true},
		{"tiny-gemma3-q8_0", true},
		{"tiny-gemma2-q8_0", true},
		{"tiny-olmo2-q4_k_m", true},
		{"tiny-lfm2-q4_k_m", true},
		{"tiny-granitehybrid-q4_k_m", true},
		{"tiny-qwen3moe-q4_k_m", true},
		{"tiny-gpt-oss-q8_0", false},
		{"tiny-gemma4-q8_0", false},
		{"tiny-qwen35-q4_k_m", false},
		{"tiny-nemotronh-q8_0", false},
	}
	tokens := []int32{1, 40, 77, 12, 300, 9, 41, 5, 18, 250}
	for _, c := range cases {
		t.Run(c.model, func(t *testing.T) {
			rc := &rowCounter{Backend: cpu.New(1)}
			_, m, _ := loadRef(t, c.model, rc)
			last := promptLogits(t, m, tokens, false)
			// The products after the last one over every row: with the
			// cut, the last feed-forward block's (dense or its experts')
			// and the head's, each on the one row; without, the head's
			// alone, or the experts' over the rows routed to them first.
			tail := rc.rows
			for i, r := range rc.rows {
				if r == len(tokens) {
					tail = rc.rows[i+1:]
				}
			}
			single := true
			for _, r := range tail {
				single = single && r == 1
			}
			if cut := single && len(tail) >= 2; cut != c.cuts {
				t.Errorf("cut %v, want %v: products after the last over every row: %v", cut, c.cuts, tail)
			}
			// Every row wanted: nothing is cut, and the last row's logits
			// are close to those of the pass that cut.
			rc.rows = rc.rows[:0]
			all := promptLogits(t, m, tokens, true)
			if n := len(rc.rows); n == 0 || rc.rows[n-1] != len(tokens) {
				t.Fatalf("every row wanted: the head's product is not over every row (%v)", rc.rows)
			}
			nAll := len(rc.rows)
			// No row wanted (a prompt's chunk before its last): the cut
			// architectures stop after the last layer's attention, the
			// others after its feed-forward block, and none runs the head.
			rc.rows = rc.rows[:0]
			noLogits(t, m, tokens)
			headless := nAll - 1 // every product but the head's
			if n := len(rc.rows); n > headless || (n < headless) != c.cuts {
				t.Errorf("no logits wanted: %d products, %d with every row and the head (cut %v)", n, nAll, c.cuts)
			}
			vocab := m.Config().Vocab
			row := all[(len(tokens)-1)*vocab:]
			for i, v := range last {
				if d := math.Abs(float64(v - row[i])); d > 0.05 {
					t.Fatalf("logit %d: %g with the cut, %g without", i, v, row[i])
				}
			}
		})
	}
}

// noLogits reads tokens as one sequence's prompt chunk that asks for no
// logits, through ForwardBatch over a fresh paged cache.
func noLogits(t *testing.T, m Model, tokens []int32) {
	t.Helper()
	groups := len(m.KVGroups())
	cells, maps := make([]int, groups), make([][]int32, groups)
	for g := range cells {
		cells[g], maps[g] = 64, span(0, len(tokens))
	}
	cache, err := m.NewPagedCache(cells, 1, quant.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	b := &Batch{Tokens: tokens, Pos: span(0, len(tokens)), Seqs: []SeqBatch{{N: len(tokens), Cells: maps, Size: 64}}}
	got, err := m.ForwardBatch(context.Background(), b, cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 {
		t.Fatalf("%d logits, want none", len(got))
	}
}
