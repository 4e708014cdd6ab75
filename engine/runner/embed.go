package runner

import (
	"context"
	"fmt"
	"math"

	"saji/engine/model"
	"saji/engine/scheduler"
)

// Embeddings: a text's embedding is the model's last hidden state after
// the output norm, mean-pooled over its tokens and scaled to unit length,
// as OpenAI's are and as llama-server's are by default. They run outside
// the scheduler, holding the model's weights in place while they read
// them.

// Embed tokenizes texts and embeds them, then the token lists tokens, one
// after the other, and returns the embeddings in that order with the
// number of tokens read. With truncate, an input longer than the context
// is cut to it; without, it is an error.
func (m *Model) Embed(ctx context.Context, texts []string, tokens [][]int32, truncate bool) ([][]float32, int, error) {
	if len(texts)+len(tokens) == 0 {
		return nil, 0, fmt.Errorf("%w: input is empty", ErrBadRequest)
	}
	var seqs [][]int32
	for _, t := range texts {
		seqs = append(seqs, m.tok.Encode(t, true, true))
	}
	seqs = append(seqs, tokens...)
	ctx, release, err := m.hold(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer release()
	var out [][]float32
	total := 0
	for i, toks := range seqs {
		if len(toks) == 0 {
			return nil, 0, fmt.Errorf("%w: input %d is empty", ErrBadRequest, i)
		}
		if len(toks) > m.Info.Context {
			if !truncate {
				return nil, 0, fmt.Errorf("%w: input %d has %d tokens and the model's context is %d", ErrContextLength, i, len(toks), m.Info.Context)
			}
			toks = toks[:m.Info.Context]
		}
		for _, id := range toks {
			if id < 0 || int(id) >= m.tok.NumTokens() {
				return nil, 0, fmt.Errorf("%w: token %d is outside the vocabulary", ErrBadRequest, id)
			}
		}
		v, err := m.pooled(ctx, toks, model.PoolMean)
		if err != nil {
			return nil, 0, err
		}
		normalize(v)
		out = append(out, v)
		total += len(toks)
	}
	m.touch()
	return out, total, nil
}

// pooled runs toks through the model outside the scheduler (see hold, which
// ctx comes from) and returns their hidden states pooled as pool says. A
// failure of the model's GPU is reported, and a model closed meanwhile
// says so.
func (m *Model) pooled(ctx context.Context, toks []int32, pool model.Pooling) ([]float32, error) {
	v, err := m.lm.Embed(ctx, toks, pool)
	if err != nil {
		m.checkGPU(err)
		if m.closing() {
			return nil, fmt.Errorf("runner: %q was unloaded: %w", m.Name, scheduler.ErrClosed)
		}
		return nil, err
	}
	return v, nil
}

// normalize scales v to unit length (a zero vector stays zero).
func normalize(v []float32) {
	var ss float64
	for _, x := range v {
		ss += float64(x) * float64(x)
	}
	if ss == 0 {
		return
	}
	inv := 1 / math.Sqrt(ss)
	for i, x := range v {
		v[i] = float32(float64(x) * inv)
	}
}
