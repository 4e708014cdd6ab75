package model

import (
	"context"
	"errors"
	"fmt"

	"saji/kernels/quant"
)

// Pooling says how Embed reduces the hidden states of a sequence's tokens
// to one vector.
type Pooling int

const (
	// PoolMean averages the hidden states of all tokens (the default).
	PoolMean Pooling = iota
	// PoolLast takes the hidden state of the last token, which has seen
	// every other token (decoder embedding models such as Qwen3-Embedding).
	PoolLast
	// PoolCLS takes the hidden state of the first token.
	PoolCLS
)

// String returns the pooling's name as llama.cpp's --pooling spells it.
func (p Pooling) String() string {
	switch p {
	case PoolMean:
		return "mean"
	case PoolLast:
		return "last"
	case PoolCLS:
		return "cls"
	}
	return fmt.Sprintf("Pooling(%d)", int(p))
}

// ParsePooling returns the pooling named s ("mean", "last" or "cls"; ""
// is mean).
func ParsePooling(s string) (Pooling, error) {
	switch s {
	case "", "mean":
		return PoolMean, nil
	case "last":
		return PoolLast, nil
	case "cls":
		return PoolCLS, nil
	}
	return 0, fmt.Errorf("model: unknown pooling %q (mean, last or cls)", s)
}

// embedCache is the type of Embed's temporary cache: F16, llama.cpp's
// default, which halves the memory of a long input.
const embedCache = quant.TypeF16

// Embed runs tokens through the model at positions 0, 1, ... over a
// temporary contiguous cache of len(tokens) cells, and returns the pooled
// hidden state of the last layer after the output norm: the vector that
// the output matrix would turn into logits (llama.cpp's result_norm), Embd
// values. The logits themselves are not computed. The result is not
// normalized; callers that want unit vectors (as the OpenAI API returns)
// normalize it.
func (r runner) Embed(ctx context.Context, tokens []int32, pool Pooling) ([]float32, error) {
	m := r.common()
	n := len(tokens)
	if n == 0 {
		return nil, errors.New("model: embedding needs at least one token")
	}
	var out []int32 // nil: every row
	switch pool {
	case PoolMean:
	case PoolLast:
		out = lastRowOnly(n)
	case PoolCLS:
		out = []int32{0}
	default:
		return nil, fmt.Errorf("model: unknown pooling %v", pool)
	}
	if err := ctx.Err(); err != nil {
		return nil, embedErr(err)
	}
	// Check the tokens before allocating a cache for them.
	if err := m.checkTokens(tokens); err != nil {
		return nil, err
	}
	cache, err := m.newCache(n, embedCache)
	if err != nil {
		return nil, err
	}
	pos := make([]int32, n)
	for i := range pos {
		pos[i] = int32(i)
	}
	st, err := m.solo(ctx, tokens, pos, cache, true)
	if err != nil {
		return nil, embedErr(err)
	}
	st.out, st.embed = out, true
	rows, err := r.forward(ctx, st)
	if err != nil {
		return nil, embedErr(err)
	}
	embd, want := m.hp.Embd, n
	if out != nil {
		want = len(out)
	}
	if len(rows) != want*embd {
		return nil, fmt.Errorf("model: embedding: %d values for %d rows of %d", len(rows), want, embd)
	}
	if out != nil {
		return rows, nil
	}
	return meanRows(rows, embd), nil
}

// meanRows returns the mean of the rows of x, cols values each, summed in
// float64.
func meanRows(x []float32, cols int) []float32 {
	sum := make([]float64, cols)
	n := len(x) / cols
	for r := range n {
		for i, v := range x[r*cols : (r+1)*cols] {
			sum[i] += float64(v)
		}
	}
	mean := make([]float32, cols)
	for i, s := range sum {
		mean[i] = float32(s / float64(n))
	}
	return mean
}

// embedErr prefixes the context's errors, which reach Embed bare; the
// others already say where they come from.
func embedErr(err error) error {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("model: embedding: %w", err)
	}
	return err
}
