package model

import (
	"context"
	"errors"
	"math"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// The reference data holds no llama.cpp embeddings, so Embed is checked
// against the model's own forward pass: the last token's embedding is the
// vector the output matrix turns into Forward's logits, and with causal
// attention position i's hidden state is the last one of the prefix of
// i+1 tokens, so the mean embedding is the mean of the prefixes' last.

// embedRefs are the reference models Embed is checked on, with the
// tolerance of the prefix identity: llama (F32), qwen2 (biases, tied
// output), gemma3 (sliding window, softcap) hold it to rounding; in a
// quantized qwen3 it holds to 5e-2 only, because quantized matrix products
// take their activations in groups of rows (as ggml's repacked kernels do),
// so a token's hidden state depends a little on the batch around it.
var embedRefs = []struct {
	name string
	tol  float64
}{
	{"stories260K", 1e-4},
	{"tiny-qwen2-f32", 1e-4},
	{"tiny-gemma3-f32", 1e-4},
	{"tiny-qwen3-q4_k_m", 5e-2},
}

// TestEmbed checks Embed on a random Phi-3, which needs no test data, and
// on the reference models.
func TestEmbed(t *testing.T) {
	t.Run("phi3", func(t *testing.T) {
		m, err := Load(context.Background(), newTinyPhi3().file(t, "phi3"), Options{Threads: 2})
		if err != nil {
			t.Fatal(err)
		}
		checkEmbed(t, m, []int32{1, 7, 3, 39, 0, 12, 5, 5, 20, 31}, 1e-4)
	})
	for _, r := range embedRefs {
		t.Run(r.name, func(t *testing.T) {
			if raceEnabled && r.name != "stories260K" {
				t.Skip("the race detector slows the forward pass tenfold")
			}
			ref, m, _ := loadRef(t, r.name)
			var tokens []int32
			for _, p := range ref.Prompts {
				if len(p.Tokens) > len(tokens) {
					tokens = p.Tokens
				}
			}
			// Longer than gemma3's window of 16, short enough to be quick.
			checkEmbed(t, m, tokens[:min(len(tokens), 24)], r.tol)
		})
	}
}

// checkEmbed checks the three poolings of Embed on tokens, the mean and
// the first token's embedding to within tol of the prefixes' last.
func checkEmbed(t *testing.T, m Model, tokens []int32, tol float64) {
	t.Helper()
	ctx := context.Background()
	cfg := m.Config()
	n := len(tokens)
	embed := func(toks []int32, pool Pooling) []float64 {
		t.Helper()
		e, err := m.Embed(ctx, toks, pool)
		if err != nil {
			t.Fatalf("Embed(%d tokens, %v): %v", len(toks), pool, err)
		}
		if len(e) != cfg.Embd {
			t.Fatalf("Embed(%d tokens, %v): %d values, want %d", len(toks), pool, len(e), cfg.Embd)
		}
		out := make([]float64, len(e))
		for i, v := range e {
			out[i] = float64(v)
		}
		return out
	}

	// The last token's embedding times the output matrix gives Forward's
	// logits (over the same cache type and size).
	cache, err := m.NewCache(n, embedCache)
	if err != nil {
		t.Fatal(err)
	}
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	logits, err := m.Forward(ctx, tokens, pos, cache, false)
	if err != nil {
		t.Fatal(err)
	}
	last := embed(tokens, PoolLast)
	dBackend := maxDiff(backendHead(t, m, last), logits)
	if dBackend > 1e-6 {
		t.Errorf("last: the output matrix on the backend gives logits %.2e from Forward's", dBackend)
	}
	d64, ok := float64Head(t, m, last, logits)
	if ok && d64 > 1e-3 {
		t.Errorf("last: the output matrix in float64 gives logits %.2e from Forward's", d64)
	}

	// The mean is the mean of the prefixes' last embeddings; the first
	// token's is the last of the prefix of one token.
	mean := make([]float64, cfg.Embd)
	var first []float64
	for i := 1; i <= n; i++ {
		e := embed(tokens[:i], PoolLast)
		if i == 1 {
			first = e
		}
		for j, v := range e {
			mean[j] += v / float64(n)
		}
	}
	dMean := maxDiff(embed(tokens, PoolMean), mean)
	if dMean > tol {
		t.Errorf("mean: %.2e from the mean of the prefixes' last embeddings", dMean)
	}
	dCLS := maxDiff(embed(tokens, PoolCLS), first)
	if dCLS > tol {
		t.Errorf("cls: %.2e from the embedding of the first token alone", dCLS)
	}
	t.Logf("%d tokens: logits from last: backend %.2e, float64 %.2e (%v); mean %.2e, cls %.2e",
		n, dBackend, d64, ok, dMean, dCLS)
}

// backendHead applies m's output matrix, bias and softcap to e with the
// model's own backend operations.
func backendHead(t *testing.T, m Model, e []float64) []float64 {
	t.Helper()
	mb := m.(runner).common()
	b := mb.backend
	x, err := b.New(quant.TypeF32, len(e), 1)
	if err != nil {
		t.Fatal(err)
	}
	host := make([]float32, len(e))
	for i, v := range e {
		host[i] = float32(v)
	}
	y, err := b.New(quant.TypeF32, kernels.Rows(mb.output), 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Write(x, host); err != nil {
		t.Fatal(err)
	}
	if err := b.MatMul(y, mb.output, x); err != nil {
		t.Fatal(err)
	}
	if mb.outBias != nil {
		if err := b.Add(y, y, mb.outBias); err != nil {
			t.Fatal(err)
		}
	}
	if mb.softcap > 0 {
		if err := b.Softcap(y, y, mb.softcap); err != nil {
			t.Fatal(err)
		}
	}
	out := make([]float32, kernels.Rows(mb.output))
	if err := b.Read(y, out); err != nil {
		t.Fatal(err)
	}
	got := make([]float64, len(out))
	for i, v := range out {
		got[i] = float64(v)
	}
	return got
}

// float64Head computes the logits of e in float64 and returns their
// largest difference from want. It reports false for a quantized output
// matrix, whose products the backend takes with quantized activations.
func float64Head(t *testing.T, m Model, e []float64, want []float32) (float64, bool) {
	t.Helper()
	mb := m.(runner).common()
	w := mb.output
	if w.Type() != quant.TypeF32 && w.Type() != quant.TypeF16 {
		return 0, false
	}
	read := func(x kernels.Tensor) []float32 {
		v := make([]float32, kernels.Cols(x)*kernels.Rows(x))
		if err := x.Backend().Read(x, v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	wv := read(w)
	var bias []float32
	if mb.outBias != nil {
		bias = read(mb.outBias)
	}
	cols := kernels.Cols(w)
	worst := 0.0
	for r := range kernels.Rows(w) {
		var y float64
		for i, v := range wv[r*cols : (r+1)*cols] {
			y += float64(v) * e[i]
		}
		if bias != nil {
			y += float64(bias[r])
		}
		if c := float64(mb.softcap); c > 0 {
			y = c * math.Tanh(y/c)
		}
		worst = max(worst, math.Abs(y-float64(want[r])))
	}
	return worst, true
}

func maxDiff[T float32 | float64](a []float64, b []T) float64 {
	if len(a) != len(b) {
		return math.Inf(1)
	}
	worst := 0.0
	for i := range a {
		worst = max(worst, math.Abs(a[i]-float64(b[i])))
	}
	return worst
}

// TestEmbedErrors checks that bad input gets an error.
func TestEmbedErrors(t *testing.T) {
	m, err := Load(context.Background(), newTinyPhi3().file(t, "phi3"), Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name   string
		ctx    context.Context
		tokens []int32
		pool   Pooling
		is     error
	}{
		{"empty", context.Background(), nil, PoolMean, nil},
		{"token range", context.Background(), []int32{1, 40}, PoolMean, nil},
		{"negative token", context.Background(), []int32{-1}, PoolLast, nil},
		{"pooling", context.Background(), []int32{1}, Pooling(7), nil},
		{"cancelled", cancelled, []int32{1, 2}, PoolMean, context.Canceled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := m.Embed(tc.ctx, tc.tokens, tc.pool)
			if err == nil {
				t.Fatalf("no error, %d values", len(e))
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v, want %v", err, tc.is)
			}
		})
	}
}

// TestPooling checks the poolings' names both ways.
func TestPooling(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Pooling
		name string
	}{
		{"", PoolMean, "mean"},
		{"mean", PoolMean, "mean"},
		{"last", PoolLast, "last"},
		{"cls", PoolCLS, "cls"},
	} {
		p, err := ParsePooling(tc.in)
		if err != nil || p != tc.want || p.String() != tc.name {
			t.Errorf("ParsePooling(%q) = %v, %v; want %v", tc.in, p, err, tc.name)
		}
	}
	if _, err := ParsePooling("rank"); err == nil {
		t.Error(`ParsePooling("rank"): no error`)
	}
	if s := Pooling(9).String(); s != "Pooling(9)" {
		t.Errorf("Pooling(9).String() = %q", s)
	}
}
