package cpu

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// TestMatMulExperts checks the expert product against its definition on
// the same backend: every output row equals MatMul of the row's expert by
// its input row alone (a batch of one, ggml's MUL_MAT_ID order), bit for
// bit, for every weight type, on the pure-Go oracle and the SIMD kernels,
// with the rows of x feeding one output row (down projections) or several
// (a token's k experts), and experts chosen by many rows (prompts, where
// the tile kernels run, and the decode tiles on the rows past the last
// full tile) or by none; on every kernel set the CPU has.
func TestMatMulExperts(t *testing.T) {
	backends := []*Backend{NewReference(2)}
	sets := KernelSets()
	if raceEnabled && len(sets) > 1 {
		sets = sets[len(sets)-1:] // the pool is the same under every set
	}
	for _, set := range sets {
		fast, err := NewWithKernels(3, set)
		if err != nil {
			t.Fatal(err)
		}
		backends = append(backends, fast)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	cases := []struct{ k, m, experts, n, per int }{
		{256, 24, 4, 1, 2},  // decode: one token, 2 experts
		{512, 40, 8, 9, 3},  // a short prompt, 3 experts per token
		{256, 16, 4, 12, 1}, // down projection: one row per (token, expert)
		{768, 8, 3, 33, 2},  // many rows per expert: the tile kernels
		{512, 20, 2, 7, 3},  // tiles, then the rows past them on the decode tiles
		{256, 48, 3, 1, 2},  // decode over groups of sixteen rows (repacked)
		{512, 40, 3, 11, 2}, // prompts over two groups of sixteen and eight rows after
	}
	for _, b := range backends {
		for _, typ := range matmulTypes {
			for _, c := range cases {
				if c.k%typ.BlockSize() != 0 {
					continue
				}
				t.Run(fmt.Sprintf("%s/%v/%dx%dx%d/%d", b.Kernels(), typ, c.k, c.m, c.n, c.per), func(t *testing.T) {
					experts := make([]kernels.Tensor, c.experts)
					for e := range experts {
						w := randn(rng, c.k*c.m, 1/math.Sqrt(float64(c.k)))
						data := make([]byte, c.m*c.k/typ.BlockSize()*typ.TypeSize())
						if err := quant.Quantize(typ, w, data); err != nil {
							t.Fatal(err)
						}
						var err error
						if experts[e], err = b.Weight(typ, []int{c.k, c.m}, data); err != nil {
							t.Fatal(err)
						}
					}
					xv := randn(rng, c.k*c.n, 1)
					xv[0] = 7
					x := f32(t, b, xv, c.k, c.n)
					ids := make([]int32, c.n*c.per)
					for r := range ids {
						ids[r] = int32(rng.IntN(c.experts - 1)) // the last expert is never chosen
					}
					// The same experts repacked where the backend does
					// (Q4_K on AVX-512 VNNI): the products must not change.
					packed := make([]kernels.Tensor, c.experts)
					for e, w := range experts {
						var err error
						if packed[e], err = b.Repack(w); err != nil {
							t.Fatal(err)
						}
					}
					var got []float32
					for _, ws := range [][]kernels.Tensor{experts, packed} {
						dst, _ := b.New(quant.TypeF32, c.m, len(ids))
						if err := b.MatMulExperts(dst, ws, x, ids); err != nil {
							t.Fatal(err)
						}
						out := make([]float32, c.m*len(ids))
						if err := b.Read(dst, out); err != nil {
							t.Fatal(err)
						}
						if got != nil && !slices.Equal(got, out) {
							t.Fatal("the repacked experts' products differ")
						}
						got = out
					}
					one, _ := b.New(quant.TypeF32, c.m, 1)
					want := make([]float32, c.m)
					for r, e := range ids {
						xr := f32(t, b, xv[r/c.per*c.k:(r/c.per+1)*c.k], c.k, 1)
						if err := b.MatMul(one, experts[e], xr); err != nil {
							t.Fatal(err)
						}
						if err := b.Read(one, want); err != nil {
							t.Fatal(err)
						}
						for i, w := range want {
							if g := got[r*c.m+i]; math.Float32bits(g) != math.Float32bits(w) {
								t.Fatalf("row %d (expert %d), output %d: %g, MatMul alone %g", r, e, i, g, w)
							}
						}
					}
				})
			}
		}
	}
}

// TestMatMulExpertsRefuses checks the operand checks: bad shapes, an expert
// id out of range and mixed expert types are errors, not panics.
func TestMatMulExpertsRefuses(t *testing.T) {
	b := NewReference(1)
	w := func(typ quant.Type, k, m int) kernels.Tensor {
		t.Helper()
		data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
		wt, err := b.Weight(typ, []int{k, m}, data)
		if err != nil {
			t.Fatal(err)
		}
		return wt
	}
	x := f32(t, b, make([]float32, 64), 32, 2)
	dst, _ := b.New(quant.TypeF32, 8, 4)
	two := []kernels.Tensor{w(quant.TypeQ8_0, 32, 8), w(quant.TypeQ8_0, 32, 8)}
	cases := []struct {
		name    string
		experts []kernels.Tensor
		ids     []int32
		shape   bool // the error wraps ErrShape
	}{
		{"no experts", nil, []int32{0, 0, 0, 0}, true},
		{"id out of range", two, []int32{0, 1, 2, 0}, false},
		{"negative id", two, []int32{0, -1, 0, 0}, false},
		{"ids not a multiple of the rows", two, []int32{0, 1, 0}, true},
		{"mixed types", []kernels.Tensor{two[0], w(quant.TypeF16, 32, 8)}, []int32{0, 1, 0, 1}, true},
		{"mixed shapes", []kernels.Tensor{two[0], w(quant.TypeQ8_0, 32, 4)}, []int32{0, 1, 0, 1}, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := b.MatMulExperts(dst, c.experts, x, c.ids)
			if err == nil {
				t.Fatal("no error")
			}
			if c.shape != errors.Is(err, kernels.ErrShape) {
				t.Errorf("%v: wraps ErrShape = %v, want %v", err, !c.shape, c.shape)
			}
		})
	}
}
