package model

import (
	"fmt"
	"math"
	"slices"

	"saji/kernels"
	"saji/kernels/quant"
)

// graph runs a forward pass as a sequence of backend operations. Each method
// allocates its result on the current backend; the first error is kept and
// turns every later call into a no-op, so an architecture's forward pass
// reads as straight-line code with one error check at the end.
//
// The graph tracks the activations it allocates. At a layer boundary (on)
// only the residual stream carries over, so everything else allocated
// since the previous boundary goes back to its backend (when it is a
// kernels.Recycler) for the next layer to reuse; after the logits are read,
// everything does. Tensors a pass needs in several layers (Gemma 4's
// per-layer inputs) are held: they survive the boundaries and go back with
// the rest at the end.
type graph struct {
	b       kernels.Backend
	err     error
	allocs  []kernels.Tensor // allocated since the last boundary
	held    []kernels.Tensor // kept until the end of the pass
	scratch []float32        // host values for Write, which copies them
}

// hold keeps t, allocated since the last boundary, until the end of the
// pass, and returns it.
func (g *graph) hold(t kernels.Tensor) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	if i := slices.Index(g.allocs, t); i >= 0 {
		g.allocs = slices.Delete(g.allocs, i, i+1)
		g.held = append(g.held, t)
	}
	return t
}

// release recycles the tensors allocated since the last boundary, except
// keep, which stays tracked for the next one. At the end of the pass (keep
// nil) the held tensors go back too.
func (g *graph) release(keep kernels.Tensor) {
	if keep == nil {
		g.allocs, g.held = append(g.allocs, g.held...), g.held[:0]
	}
	kept := false
	for _, t := range g.allocs {
		if t == keep {
			kept = true
			continue
		}
		if r, ok := t.Backend().(kernels.Recycler); ok {
			r.Recycle(t)
		}
	}
	g.allocs = g.allocs[:0]
	if kept {
		g.allocs = append(g.allocs, keep)
	}
}

func (g *graph) fail(err error) {
	if g.err == nil {
		g.err = err
	}
}

// on switches to backend b and moves x there (a layer boundary).
func (g *graph) on(b kernels.Backend, x kernels.Tensor) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	g.b = b
	y, err := kernels.Move(b, x)
	g.fail(err)
	if g.err == nil {
		g.release(y)
	}
	return y
}

// new allocates an F32 activation of rows rows of cols values.
func (g *graph) new(cols, rows int) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	t, err := g.b.New(quant.TypeF32, cols, rows)
	g.fail(err)
	if err == nil {
		g.allocs = append(g.allocs, t)
	}
	return t
}

// embed looks up the rows of table for tokens.
func (g *graph) embed(table kernels.Tensor, tokens []int32) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	x := g.new(kernels.Cols(table), len(tokens))
	if g.err == nil {
		g.fail(g.b.GetRows(x, table, tokens))
	}
	return x
}

// rows keeps the rows ids of x.
func (g *graph) rows(x kernels.Tensor, ids []int32) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Cols(x), len(ids))
	if g.err == nil {
		g.fail(g.b.GetRows(y, x, ids))
	}
	return y
}

// linear returns x·wᵀ (+ bias when bias is not nil).
func (g *graph) linear(x, w, bias kernels.Tensor) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Rows(w), kernels.Rows(x))
	if g.err == nil {
		g.fail(g.b.MatMul(y, w, x))
	}
	if bias != nil && g.err == nil {
		g.fail(g.b.Add(y, y, bias))
	}
	return y
}

// norm is RMSNorm with weight w (per head when w is a head long).
func (g *graph) norm(x, w kernels.Tensor, eps float32) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Cols(x), kernels.Rows(x))
	if g.err == nil {
		g.fail(g.b.RMSNorm(y, x, w, eps))
	}
	return y
}

// add returns a + b.
func (g *graph) add(a, b kernels.Tensor) kernels.Tensor { return g.binary(g.b.Add, a, b) }

// mul returns a ⊙ b (b of a's shape, or a single row: a weight per
// column).
func (g *graph) mul(a, b kernels.Tensor) kernels.Tensor { return g.binary(g.b.Mul, a, b) }

// binary returns op of a and b in a new tensor of a's shape.
func (g *graph) binary(op func(dst, a, b kernels.Tensor) error, a, b kernels.Tensor) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Cols(a), kernels.Rows(a))
	if g.err == nil {
		g.fail(op(y, a, b))
	}
	return y
}

// here returns t on the current backend: t itself, or a copy tracked as
// the layer's.
func (g *graph) here(t kernels.Tensor) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y, err := kernels.Move(g.b, t)
	g.fail(err)
	if err == nil && y != t {
		g.allocs = append(g.allocs, y)
	}
	return y
}

// scale multiplies x by s in place and returns it.
func (g *graph) scale(x kernels.Tensor, s float32) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	g.fail(g.b.Scale(x, x, s))
	return x
}

// scaleRows multiplies row j of x by s[j] in place and returns it (ggml's
// multiplication by a broadcast column).
func (g *graph) scaleRows(x kernels.Tensor, s []float32) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	cols := kernels.Cols(x)
	g.scratch = slices.Grow(g.scratch[:0], cols*len(s))[:cols*len(s)]
	host := g.scratch
	for j, v := range s {
		row := host[j*cols : (j+1)*cols]
		for i := range row {
			row[i] = v
		}
	}
	f := g.new(cols, len(s))
	if g.err == nil {
		g.fail(g.b.Write(f, host))
	}
	if g.err == nil {
		g.fail(g.b.Mul(x, x, f))
	}
	return x
}

// softcap caps x at c·tanh(x/c) in place and returns it.
func (g *graph) softcap(x kernels.Tensor, c float32) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	g.fail(g.b.Softcap(x, x, c))
	return x
}

// rope rotates x in place and returns it.
func (g *graph) rope(x kernels.Tensor, pos []int32, p kernels.RopeParams) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	g.fail(g.b.Rope(x, x, pos, p))
	return x
}

// glu returns act(gate) ⊙ up.
func (g *graph) glu(gate, up kernels.Tensor, act kernels.Activation) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Cols(gate), kernels.Rows(gate))
	if g.err == nil {
		g.fail(g.b.GLU(y, gate, up, act))
	}
	return y
}

// ffn returns the gated feed-forward network f of x: down(act(gate·x) ⊙ up·x).
func (g *graph) ffn(x kernels.Tensor, f *denseFFN, act kernels.Activation) kernels.Tensor {
	return g.linear(g.glu(g.linear(x, f.gate, nil), g.linear(x, f.up, nil), act), f.down, nil)
}

// attend stores k and v in the layer's cache cells and returns the
// attention of q over each sequence's cells. With k and v nil it stores
// nothing: the layer attends over cells an earlier layer of the pass
// filled (a shared cache).
func (g *graph) attend(q, k, v kernels.Tensor, kv layerKV, p kernels.AttentionParams) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	if k != nil {
		g.fail(g.b.SetRows(kv.k, k, kv.rows))
		if g.err == nil {
			g.fail(g.b.SetRows(kv.v, v, kv.rows))
		}
	}
	y := g.new(p.Heads*p.ValueDim, len(kv.rows))
	if g.err == nil {
		g.fail(g.b.AttentionSeqs(y, q, kv.seqs, p))
	}
	return y
}

// logits reads x to the host.
func (g *graph) logits(x kernels.Tensor) ([]float32, error) {
	if g.err != nil {
		return nil, g.err
	}
	out := make([]float32, kernels.Cols(x)*kernels.Rows(x))
	if err := x.Backend().Read(x, out); err != nil {
		return nil, fmt.Errorf("model: reading logits: %w", err)
	}
	g.release(nil)
	return out, nil
}

// invSqrt is 1/√n in float32, as llama.cpp computes attention scales.
func invSqrt(n int) float32 { return 1 / float32(math.Sqrt(float64(float32(n)))) }

// silu returns SiLU(x), as GLU computes it with an input of ones: the
// vector form of ggml_silu.
func (g *graph) silu(x kernels.Tensor) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	cols, rows := kernels.Cols(x), kernels.Rows(x)
	ones := make([]float32, cols*rows)
	for i := range ones {
		ones[i] = 1
	}
	return g.glu(x, g.upload(ones, cols, rows), kernels.SiLU)
}

// recurrentSeqs returns the sequences of a step's recurrent layer (each
// one's state slot and token count) as the recurrent kernels take them.
func recurrentSeqs(seqs []kernels.ConvSeq) []kernels.RecurrentSeq {
	rs := make([]kernels.RecurrentSeq, len(seqs))
	for i, s := range seqs {
		rs[i] = kernels.RecurrentSeq{Slot: s.Slot, Tokens: s.N}
	}
	return rs
}
