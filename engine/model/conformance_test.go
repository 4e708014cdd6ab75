package model

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// refModel is the part of a ref/<model>.json file the tests use.
type refModel struct {
	Model struct {
		Path   string `json:"path"`
		Arch   string `json:"architecture"`
		NVocab int    `json:"n_vocab"`
		Type   *int   `json:"file_type"`
	} `json:"model"`
	Prompts []struct {
		ID        string        `json:"id"`
		Tokens    []int32       `json:"tokens"`
		TopLogits [][][]float64 `json:"top_logits"`
		Last      []float32     `json:"last_logits"`
		Greedy    struct {
			Tokens []int32   `json:"tokens"`
			Margin []float64 `json:"margin"`
		} `json:"greedy"`
	} `json:"prompts"`
}

// shortSet are the reference models checked under -short: one per
// architecture and weight format family.
var shortSet = map[string]bool{
	"stories260K":           true,
	"llama-2-tiny-random":   true,
	"tiny-llama-spm-q4_k_m": true,
	"tiny-llama3-bpe-q4_0":  true,
	"tiny-qwen2-f16":        true,
	"tiny-qwen3-q6_k":       true,
	"tiny-gemma3-q8_0":      true,
}

func refModels(t *testing.T) []string {
	dir := refdata.Dir(t)
	paths, err := filepath.Glob(filepath.Join(dir, "ref", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, p := range paths {
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		if strings.HasSuffix(name, ".kvf16") {
			continue
		}
		if testing.Short() && !shortSet[name] {
			continue
		}
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func loadRef(t testing.TB, name string) (*refModel, Model, *gguf.File) {
	t.Helper()
	dir := refdata.Dir(t)
	raw, err := os.ReadFile(filepath.Join(dir, "ref", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref refModel
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	f, err := gguf.Open(filepath.Join(dir, ref.Model.Path))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	m, err := Load(context.Background(), f, Options{Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	return &ref, m, f
}

// TestConformance compares logits and greedy continuations with llama.cpp's
// (F32 KV cache, one batch for the prompt, then one token at a time).
func TestConformance(t *testing.T) {
	names := refModels(t)
	var table []string
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			ref, m, _ := loadRef(t, name)
			quantized := !strings.HasSuffix(name, "-f32") && !strings.HasSuffix(name, "-f16") &&
				name != "stories260K" && name != "llama-2-tiny-random"
			tol := 1e-3
			if quantized {
				tol = 2e-3
			}
			if m.Config().Vocab != ref.Model.NVocab {
				t.Fatalf("vocab %d, want %d", m.Config().Vocab, ref.Model.NVocab)
			}
			var worstTop, worstLast float64
			matched, total := 0, 0
			for _, p := range ref.Prompts {
				top, last, greedy, n := runPrompt(t, m, p.Tokens, p.TopLogits, p.Last, p.Greedy.Tokens, p.Greedy.Margin, tol)
				worstTop, worstLast = max(worstTop, top), max(worstLast, last)
				_ = greedy
				matched += n
				total += len(p.Greedy.Tokens)
			}
			table = append(table, fmt.Sprintf("%-24s %10.2e %10.2e %5d/%d", name, worstTop, worstLast, matched, total))
		})
	}
	t.Logf("model                    worst-top  worst-last  greedy-matched\n%s", strings.Join(table, "\n"))
}

// runPrompt checks one prompt and returns the worst top-20 and last-logit
// differences and the number of greedy tokens that matched.
func runPrompt(t *testing.T, m Model, tokens []int32, topRef [][][]float64, lastRef []float32,
	greedyRef []int32, margin []float64, tol float64) (worstTop, worstLast float64, greedy []int32, matched int) {
	t.Helper()
	ctx := context.Background()
	vocab := m.Config().Vocab
	cache, err := m.NewCache(512, quant.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int32, len(tokens))
	for i := range pos {
		pos[i] = int32(i)
	}
	logits, err := m.Forward(ctx, tokens, pos, cache, true)
	if err != nil {
		t.Fatal(err)
	}
	for i, row := range topRef {
		got := logits[i*vocab : (i+1)*vocab]
		for r, pair := range row {
			id, want := int(pair[0]), pair[1]
			d := math.Abs(float64(got[id]) - want)
			worstTop = max(worstTop, d)
			if d > tol {
				t.Errorf("position %d rank %d: logit[%d] = %g, want %g (diff %.2e)", i, r, id, got[id], want, d)
			}
		}
		// The reference's top-20 ids must be our top-20 too, where the
		// gap to the 21st is wider than the tolerance.
		ours := topK(got, len(row)+1)
		for r := 0; r < len(row); r++ {
			if int(ours[r]) != int(row[r][0]) && math.Abs(float64(got[ours[r]])-row[r][1]) > 2*tol {
				t.Errorf("position %d rank %d: id %d, want %d", i, r, ours[r], int(row[r][0]))
				break
			}
		}
	}
	last := logits[(len(tokens)-1)*vocab:]
	for id, want := range lastRef {
		d := math.Abs(float64(last[id] - want))
		worstLast = max(worstLast, d)
	}
	if worstLast > tol {
		t.Errorf("last-position logits differ by up to %.2e (tolerance %.0e)", worstLast, tol)
	}
	// Greedy: one token at a time through the cache.
	cur := last
	comparable := true
	for step := range greedyRef {
		next := argmax(cur)
		greedy = append(greedy, next)
		if comparable {
			if next == greedyRef[step] {
				matched++
			} else {
				if margin[step] > 2*tol {
					t.Errorf("greedy step %d: token %d, want %d (margin %.3g)", step, next, greedyRef[step], margin[step])
				}
				comparable = false
			}
		}
		if step == len(greedyRef)-1 {
			break
		}
		p := int32(len(tokens) + step)
		cur, err = m.Forward(ctx, []int32{next}, []int32{p}, cache, false)
		if err != nil {
			t.Fatal(err)
		}
	}
	return worstTop, worstLast, greedy, matched
}

func argmax(x []float32) int32 {
	best := 0
	for i, v := range x {
		if v > x[best] {
			best = i
		}
	}
	return int32(best)
}

func topK(x []float32, k int) []int32 {
	idx := make([]int32, len(x))
	for i := range idx {
		idx[i] = int32(i)
	}
	sort.SliceStable(idx, func(a, b int) bool { return x[idx[a]] > x[idx[b]] })
	return idx[:k]
}
