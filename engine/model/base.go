package model

import (
	"context"
	"fmt"

	"saji/kernels"
	"saji/kernels/quant"
)

// base holds what every architecture has: hyperparameters, the per-layer
// backends, the token embeddings and the output head.
type base struct {
	hp       hparams
	backend  kernels.Backend   // embeddings and output head
	backends []kernels.Backend // per layer
	tokEmbd  kernels.Tensor
	outNorm  kernels.Tensor
	output   kernels.Tensor // token_embd when the embeddings are tied
	outBias  kernels.Tensor // optional
	softcap  float32        // final logit softcap, 0 for none
}

// loadBase reads the hyperparameters, embeddings and output head.
func (ld *loader) loadBase() base {
	hp := ld.commonHParams()
	m := base{hp: hp, backend: ld.backend}
	if ld.err != nil {
		return m
	}
	for i := range hp.Layers {
		m.backends = append(m.backends, ld.layerBackend(i))
	}
	m.tokEmbd = ld.tensor(ld.backend, "token_embd.weight", hp.Embd, hp.Vocab)
	m.outNorm = ld.tensor(ld.backend, "output_norm.weight", hp.Embd)
	m.output = ld.optional(ld.backend, "output.weight", hp.Embd, hp.Vocab)
	if m.output == nil {
		m.output = m.tokEmbd
	}
	return m
}

// Config describes the model.
func (m *base) Config() Config { return m.hp.Config }

// NewCache returns an empty cache for n positions.
func (m *base) NewCache(n int, kv quant.Type) (*Cache, error) {
	k := make([]int, m.hp.Layers)
	v := make([]int, m.hp.Layers)
	for i := range k {
		k[i], v[i] = m.hp.KVHeads*m.hp.HeadDim, m.hp.KVHeads*m.hp.ValueDim
	}
	return newCache(m.backends, k, v, n, kv)
}

// begin checks a Forward call's arguments and returns the number of cache
// cells filled once the batch is in, and a graph on the input backend.
func (m *base) begin(ctx context.Context, tokens, positions []int32, cache *Cache) (int, *graph, error) {
	if err := ctx.Err(); err != nil {
		return 0, nil, err
	}
	n, err := cache.admit(tokens, positions, m.hp.Layers)
	if err != nil {
		return 0, nil, err
	}
	for _, t := range tokens {
		if t < 0 || int(t) >= m.hp.Vocab {
			return 0, nil, fmt.Errorf("model: token %d outside the vocabulary of %d", t, m.hp.Vocab)
		}
	}
	return n, &graph{b: m.backend}, nil
}

// head applies the output norm and matrix (and softcap) to the last row of
// x, or to every row when all is set, and returns the logits.
func (m *base) head(g *graph, x kernels.Tensor, all bool, eps float32) ([]float32, error) {
	x = g.on(m.backend, x)
	if !all && g.err == nil && kernels.Rows(x) > 1 {
		x = g.rows(x, lastRowOnly(kernels.Rows(x)))
	}
	x = g.norm(x, m.outNorm, eps)
	x = g.linear(x, m.output, m.outBias)
	if m.softcap > 0 {
		x = g.softcap(x, m.softcap)
	}
	return g.logits(x)
}

// finish records the batch in the cache once the forward pass succeeded.
func (c *Cache) finish(n int, err error) {
	if err == nil {
		c.used = n
	}
}
