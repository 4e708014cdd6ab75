package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// seqSpec is one sequence of a mixed attention batch: cached cells before
// the batch and the queries it adds.
type seqSpec struct{ cached, batch int }

// TestAttentionSeqs checks that a batch mixing the tokens of several
// sequences over one paged pool gives every row exactly the bits that
// Attention gives its sequence alone (with and without a window and
// sinks), and that a paged sequence with Size gives the bits of a
// contiguous cache of that size.
func TestAttentionSeqs(t *testing.T) {
	const heads, kvHeads, hd, vd, blocks, bs = 8, 2, 64, 64, 48, 16
	seqs := []seqSpec{{37, 1}, {0, 20}, {100, 1}, {250, 70}, {5, 3}}
	for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0} {
		for _, v := range []struct {
			window int
			sinks  bool
		}{{0, false}, {24, false}, {24, true}} {
			window := v.window
			for name, b := range map[string]*Backend{"oracle": NewReference(2), "simd": New(2)} {
				t.Run(fmt.Sprintf("%v/%s/window%d/sinks=%v", typ, name, window, v.sinks), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(typ), uint64(window)))
					must := func(x kernels.Tensor, err error) kernels.Tensor {
						t.Helper()
						if err != nil {
							t.Fatal(err)
						}
						return x
					}
					normal := func(n int) []float32 {
						x := make([]float32, n)
						for i := range x {
							x[i] = float32(r.NormFloat64())
						}
						return x
					}
					kp := must(b.New(typ, kvHeads*hd, blocks*bs))
					vp := must(b.New(typ, kvHeads*vd, blocks*bs))
					perm := r.Perm(blocks)
					p := kernels.AttentionParams{Heads: heads, KVHeads: kvHeads, HeadDim: hd, ValueDim: vd,
						Scale: float32(1 / math.Sqrt(hd)), Window: window}
					if v.sinks {
						p.Sinks = normal(heads)
					}
					var all []kernels.SeqKV
					var qAll []float32
					next := 0
					for _, s := range seqs {
						n := s.cached + s.batch
						cells := make([]int32, n)
						for i := range cells {
							if i%bs == 0 {
								next++
							}
							cells[i] = int32(perm[next-1]*bs + i%bs)
						}
						src := must(b.New(quant.TypeF32, kvHeads*hd, n))
						if err := b.Write(src, normal(n*kvHeads*hd)); err != nil {
							t.Fatal(err)
						}
						if err := b.SetRows(kp, src, cells); err != nil {
							t.Fatal(err)
						}
						if err := b.Write(src, normal(n*kvHeads*vd)); err != nil {
							t.Fatal(err)
						}
						if err := b.SetRows(vp, src, cells); err != nil {
							t.Fatal(err)
						}
						if window > 0 {
							// Cells no query sees are released.
							for i := 0; i < s.cached-window+1; i++ {
								cells[i] = -1
							}
						}
						pos := make([]int32, s.batch)
						for j := range pos {
							pos[j] = int32(s.cached + j)
						}
						all = append(all, kernels.SeqKV{KV: kernels.KV{K: kp, V: vp, Len: n, Cells: cells, Size: 512}, Pos: pos})
						qAll = append(qAll, normal(s.batch*heads*hd)...)
					}
					rows := len(qAll) / (heads * hd)
					q := must(b.New(quant.TypeF32, heads*hd, rows))
					if err := b.Write(q, qAll); err != nil {
						t.Fatal(err)
					}
					dst := must(b.New(quant.TypeF32, heads*vd, rows))
					if err := b.AttentionSeqs(dst, q, all, p); err != nil {
						t.Fatal(err)
					}
					got := make([]float32, rows*heads*vd)
					if err := b.Read(dst, got); err != nil {
						t.Fatal(err)
					}
					row := 0
					for i, s := range all {
						k := len(s.Pos)
						qs := must(b.New(quant.TypeF32, heads*hd, k))
						if err := b.Write(qs, qAll[row*heads*hd:(row+k)*heads*hd]); err != nil {
							t.Fatal(err)
						}
						ds := must(b.New(quant.TypeF32, heads*vd, k))
						if err := b.Attention(ds, qs, s.KV, s.Pos, p); err != nil {
							t.Fatal(err)
						}
						want := make([]float32, k*heads*vd)
						if err := b.Read(ds, want); err != nil {
							t.Fatal(err)
						}
						if n := countDiff(got[row*heads*vd:(row+k)*heads*vd], want); n != 0 {
							t.Errorf("sequence %d: %d of %d values differ from attention alone", i, n, len(want))
						}
						row += k
					}
				})
			}
		}
	}
}

// TestAttentionSize checks that a paged view with Size s computes the
// bits of a contiguous cache of s rows (llama.cpp's padding of the cells).
func TestAttentionSize(t *testing.T) {
	for _, typ := range []quant.Type{quant.TypeF32, quant.TypeF16} {
		b := NewReference(2)
		c := attnCase{name: "size", typ: typ, heads: 4, kvHeads: 2, hd: 64, vd: 64, cached: 40, rows: 48, batch: 1}
		a := setupAttn(t, b, c, typ)
		want := a.run(t, b)
		// The same cells inside a bigger pool: Size keeps the padding.
		big := setupAttn(t, b, attnCase{name: "size", typ: typ, heads: 4, kvHeads: 2, hd: 64, vd: 64, cached: 40, rows: 48, batch: 1}, typ)
		kv := big.kv
		kk, err := b.New(typ, 2*64, 1024)
		if err != nil {
			t.Fatal(err)
		}
		vv, _ := b.New(typ, 2*64, 1024)
		tmp, _ := b.New(quant.TypeF32, 2*64, kv.Len)
		cells := make([]int32, kv.Len)
		for i := range cells {
			cells[i] = int32(1023 - i)
		}
		ids := make([]int32, kv.Len)
		for i := range ids {
			ids[i] = int32(i)
		}
		for _, pair := range [][2]kernels.Tensor{{kv.K, kk}, {kv.V, vv}} {
			if err := b.GetRows(tmp, pair[0], ids); err != nil {
				t.Fatal(err)
			}
			if err := b.SetRows(pair[1], tmp, cells); err != nil {
				t.Fatal(err)
			}
		}
		big.kv = kernels.KV{K: kk, V: vv, Len: kv.Len, Cells: cells, Size: 48}
		if n := countDiff(big.run(t, b), want); n != 0 {
			t.Errorf("%v: %d values differ between a paged view of size 48 and a 48-row cache", typ, n)
		}
	}
}
