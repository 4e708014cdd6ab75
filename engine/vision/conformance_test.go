package vision

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/synth"
	"saji/internal/refdata"
	"saji/kernels/quant"
)

// reference is a figure file of testdata/ref made by internal/tools/visref
// (llama.cpp's libmtmd through testdata/visdump).
type reference struct {
	Case struct {
		Model struct {
			Shape string `json:"shape"`
			Type  string `json:"type"`
			Seed  uint64 `json:"seed"`
			Vocab string `json:"vocab"`
		} `json:"model"`
		ProjectorSeed uint64 `json:"projector_seed"`
		W             int    `json:"width"`
		H             int    `json:"height"`
		Prompt        string `json:"prompt"`
	} `json:"case"`
	ProjectorSHA string `json:"projector_sha256"`
	ModelSHA     string `json:"model_sha256"`
	Chunks       []struct {
		Type    string  `json:"type"`
		Tokens  []int32 `json:"tokens"`
		NTokens int     `json:"n_tokens"`
		NPos    int     `json:"n_pos"`
	} `json:"chunks"`
	NPast     int       `json:"n_past"`
	NEmbd     int       `json:"n_embd"`
	Embd      []float32 `json:"embd"`
	NonCausal bool      `json:"non_causal"`
	Logits    []float32 `json:"logits"`
	Greedy    []int32   `json:"greedy"`
}

// references reads the vision figures of testdata/ref.
func references(t *testing.T) map[string]reference {
	t.Helper()
	paths, err := filepath.Glob("../../testdata/ref/vision/*.json")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no vision reference figures in testdata/ref (%v)", err)
	}
	if raceEnabled && testing.Short() {
		paths = paths[:1]
	}
	refs := map[string]reference{}
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var r reference
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		refs[filepath.Base(p)] = r
	}
	return refs
}

// writeProjector rewrites a reference's projector and opens it.
func writeProjector(t *testing.T, r reference) *gguf.File {
	t.Helper()
	vs, ok := synth.LookupVisionShape(r.Case.Model.Shape)
	if !ok {
		t.Fatalf("no projector shape pairs with %s", r.Case.Model.Shape)
	}
	path := filepath.Join(t.TempDir(), "mmproj.gguf")
	if err := synth.WriteProjector(context.Background(), path, vs, r.Case.ProjectorSeed); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := sha256.Sum256(b); hex.EncodeToString(s[:]) != r.ProjectorSHA {
		t.Fatalf("the projector's sha256 is %x, the figures' %s: the synthetic writer changed, regenerate them (internal/tools/visref)", s, r.ProjectorSHA)
	}
	f, err := gguf.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

// relDiff returns the largest difference between got and want relative
// to want's largest magnitude.
func relDiff(got, want []float32) float64 {
	var worst, scale float64
	for i := range want {
		worst = max(worst, math.Abs(float64(got[i])-float64(want[i])))
		scale = max(scale, math.Abs(float64(want[i])))
	}
	return worst / scale
}

// TestEmbeddingsConformance checks the projector's embeddings of the test
// picture against libmtmd's: within 1e-3 of their largest magnitude.
func TestEmbeddingsConformance(t *testing.T) {
	for name, r := range references(t) {
		t.Run(name, func(t *testing.T) {
			p, err := Load(context.Background(), writeProjector(t, r), Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Encode(context.Background(), synth.Picture(r.Case.W, r.Case.H))
			if err != nil {
				t.Fatal(err)
			}
			// mtmd's picture is a chunk for each run of embeddings of the
			// layout: one, or one for each square of a LLaVA 1.6 or SmolVLM
			// picture.
			// A run on a grid (Qwen-VL's) takes the larger side of its grid
			// in positions (mtmd's n_pos), any other run its length.
			var runs, runPos []int
			for _, part := range p.Layout(r.Case.W, r.Case.H) {
				if part.N > 0 {
					runs = append(runs, part.N)
					runPos = append(runPos, part.N)
					if part.Cols > 0 {
						runPos[len(runPos)-1] = max(part.Rows, part.Cols)
					}
				}
			}
			var chunks, chunkPos []int
			total := 0
			for _, c := range r.Chunks {
				if c.Type != "text" {
					chunks = append(chunks, c.NTokens)
					chunkPos = append(chunkPos, c.NPos)
					total += c.NTokens
				}
			}
			if !slices.Equal(runs, chunks) || !slices.Equal(runPos, chunkPos) {
				t.Errorf("the layout's runs of embeddings are %v taking %v positions, mtmd's chunks %v taking %v", runs, runPos, chunks, chunkPos)
			}
			if p.Embd() != r.NEmbd || len(got) != len(r.Embd) || total*p.Embd() != len(got) {
				t.Fatalf("%d values of %d (chunks of %v positions), llama.cpp's %d values of %d", len(got), p.Embd(), chunks, len(r.Embd), r.NEmbd)
			}
			if p.NonCausal() != r.NonCausal {
				t.Errorf("NonCausal is %v, mtmd's %v", p.NonCausal(), r.NonCausal)
			}
			d := relDiff(got, r.Embd)
			t.Logf("embeddings differ from libmtmd's by %.2e of their largest magnitude", d)
			if d > 1e-3 {
				t.Errorf("embeddings differ by %.2e relative (tolerance 1e-3)", d)
			}
		})
	}
}

// TestGreedyConformance reads each reference's prompt with libmtmd's
// picture embeddings through the language model (the chunks' tokens,
// the picture's vectors at its positions, attention among the picture's
// tokens where mtmd decodes them so, as Gemma 3's) and checks the logits after the
// prompt and the greedy continuation against llama.cpp's.
func TestGreedyConformance(t *testing.T) {
	for name, r := range references(t) {
		t.Run(name, func(t *testing.T) {
			rc := synth.Recipe{Shape: r.Case.Model.Shape, Type: r.Case.Model.Type, Seed: r.Case.Model.Seed, Vocab: r.Case.Model.Vocab}
			path := filepath.Join(t.TempDir(), "model.gguf")
			sum, _, err := rc.Write(context.Background(), refdata.Path(t, rc.Vocab), path)
			if err != nil {
				t.Fatal(err)
			}
			if sum != r.ModelSHA {
				t.Fatalf("the model's sha256 is %s, the figures' %s: regenerate them (internal/tools/visref)", sum, r.ModelSHA)
			}
			f, err := gguf.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			m, err := model.Load(context.Background(), f, model.Options{Threads: 2})
			if err != nil {
				t.Fatal(err)
			}
			// A model with M-RoPE (Qwen-VL's) reads each picture on the grid
			// its projector's layout gives.
			var grids [][2]int
			if m.Config().MRoPE && os.Getenv("NOGRID") == "" {
				p, err := Load(context.Background(), writeProjector(t, r), Options{Threads: 2})
				if err != nil {
					t.Fatal(err)
				}
				for _, part := range p.Layout(r.Case.W, r.Case.H) {
					if part.N > 0 {
						grids = append(grids, [2]int{part.Cols, part.Rows})
					}
				}
			}
			const ctxSize = 512
			groups := m.KVGroups()
			sizes := make([]int, len(groups))
			cells := make([][]int32, len(groups))
			for g := range groups {
				sizes[g] = ctxSize
				for i := range ctxSize {
					cells[g] = append(cells[g], int32(i))
				}
			}
			cache, err := m.NewPagedCache(sizes, 1, quant.TypeF16)
			if err != nil {
				t.Fatal(err)
			}
			// Each chunk is a batch of its own, as mtmd_helper_eval_chunks
			// decodes them (the kernels of a longer batch may round
			// otherwise): the text's tokens, or the picture's vectors, read
			// with attention among all of them where mtmd decodes them so
			// (Gemma 3's: each stands at the picture's last position).
			var logits []float32
			n, embd := 0, r.Embd
			// tp is the time position of M-RoPE: a picture takes the larger
			// side of its grid.
			tp := 0
			for _, c := range r.Chunks {
				b := &model.Batch{Tokens: c.Tokens}
				if grids != nil {
					b.Rope = mropePositions(c.Type != "text", len(c.Tokens)+c.NTokens, tp, &grids)
					if c.Type != "text" {
						tp += c.NPos
					} else {
						tp += len(c.Tokens)
					}
				}
				if c.Type != "text" {
					// A picture of several squares (LLaVA 1.6) is a chunk
					// for each, their embeddings one after the other.
					b.Tokens, b.Embd, embd = make([]int32, c.NTokens), embd[:c.NTokens*r.NEmbd], embd[c.NTokens*r.NEmbd:]
					for i := range b.Tokens {
						b.Tokens[i] = -1
						if r.NonCausal {
							b.AttnPos = append(b.AttnPos, int32(n+c.NTokens-1))
						}
					}
				}
				for range b.Tokens {
					b.Pos = append(b.Pos, int32(n))
					n++
				}
				b.Seqs = []model.SeqBatch{{N: len(b.Tokens), Cells: cells, Size: ctxSize, Logits: true}}
				if logits, err = m.ForwardBatch(context.Background(), b, cache); err != nil {
					t.Fatal(err)
				}
			}
			var worst float64
			for i, v := range r.Logits {
				worst = max(worst, math.Abs(float64(logits[i])-float64(v)))
			}
			t.Logf("logits after the prompt differ from llama.cpp's by up to %.2e", worst)
			if worst > 1e-3 {
				t.Errorf("logits after the prompt differ by up to %.2e (tolerance 1e-3)", worst)
			}
			var greedy []int32
			for range r.Greedy {
				best := int32(0)
				for j, v := range logits {
					if v > logits[best] {
						best = int32(j)
					}
				}
				greedy = append(greedy, best)
				pos := int32(n + len(greedy) - 1)
				step := &model.Batch{Tokens: []int32{best}, Pos: []int32{pos},
					Seqs: []model.SeqBatch{{N: 1, Cells: cells, Size: ctxSize, Logits: true}}}
				if grids != nil {
					step.Rope = mropePositions(false, 1, tp, nil)
					tp++
				}
				if logits, err = m.ForwardBatch(context.Background(), step, cache); err != nil {
					t.Fatal(err)
				}
			}
			if !slices.Equal(greedy, r.Greedy) {
				t.Errorf("greedy tokens %v, llama.cpp's %v", greedy, r.Greedy)
			}
			if grids != nil && tp-len(r.Greedy) != r.NPast {
				t.Errorf("the prompt took %d M-RoPE positions, mtmd's %d", tp-len(r.Greedy), r.NPast)
			}
		})
	}
}

// mropePositions returns the M-RoPE positions (model.Batch.Rope) of a
// chunk of n tokens from time position tp: text's as its time, height
// and width with 0 extra (llama.cpp's), or a picture's on the next of
// grids (columns, rows), which it takes.
func mropePositions(picture bool, n, tp int, grids *[][2]int) []int32 {
	r := make([]int32, 4*n)
	var cols int
	if picture {
		cols = (*grids)[0][0]
		*grids = (*grids)[1:]
	}
	for i := range n {
		p := [4]int{tp + i, tp + i, tp + i, 0}
		if picture {
			p = [4]int{tp, tp + i/cols, tp + i%cols, 0}
		}
		for k := range 4 {
			r[k*n+i] = int32(p[k])
		}
	}
	return r
}
