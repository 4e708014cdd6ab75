package gpu

import (
	"math/rand/v2"
	"slices"
	"testing"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestShortConvHost checks the host path of ShortConv: the outputs and
// windows of cpu.ShortConvRef for each sequence, its slot updated and the
// other slots left alone.
func TestShortConvHost(t *testing.T) {
	const c, k, slots = 24, 3, 3
	b, _ := newTestBackend(t)
	r := rand.New(rand.NewPCG(1, 2))
	x, w, state := randFloats(r, 5*c), randFloats(r, k*c), randFloats(r, slots*(k-1)*c)
	seqs := []kernels.ConvSeq{{N: 4, Slot: 2}, {N: 1, Slot: 0}}
	put := func(vals []float32, shape ...int) kernels.Tensor {
		tt, err := b.New(quant.TypeF32, shape...)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Write(tt, vals); err != nil {
			t.Fatal(err)
		}
		return tt
	}
	xt, wt, st := put(x, c, 5), put(w, c, k), put(state, (k-1)*c, slots)
	dst, _ := b.New(quant.TypeF32, c, 5)
	if err := b.ShortConv(dst, xt, wt, st, seqs); err != nil {
		t.Fatal(err)
	}
	want, wantState := make([]float32, 5*c), slices.Clone(state)
	row := (k - 1) * c
	cpu.ShortConvRef(want[:4*c], x[:4*c], w, wantState[2*row:3*row], k, c)
	cpu.ShortConvRef(want[4*c:], x[4*c:], w, wantState[:row], k, c)
	got, gotState := make([]float32, 5*c), make([]float32, len(state))
	_ = b.Read(dst, got)
	_ = b.Read(st, gotState)
	if !slices.Equal(got, want) || !slices.Equal(gotState, wantState) {
		t.Fatalf("outputs or windows differ from cpu.ShortConvRef's")
	}
}
