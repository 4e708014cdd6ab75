package cpu

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// TestShortConv checks ShortConv on both backends bit for bit against
// shortConvRef run sequence by sequence, the new windows included, and
// the reference against a float64 convolution: channel counts with and
// without a vector tail, kernel sizes 2 to 4, chunks shorter and longer
// than the window, several sequences over shuffled slots.
func TestShortConv(t *testing.T) {
	cases := []struct {
		c, k  int
		ns    []int
		slots []int
	}{
		{c: 8, k: 3, ns: []int{1}, slots: []int{0}},
		{c: 13, k: 2, ns: []int{5}, slots: []int{1}},
		{c: 256, k: 3, ns: []int{1, 7, 2}, slots: []int{2, 0, 3}},
		{c: 67, k: 4, ns: []int{3, 1}, slots: []int{1, 0}},
		{c: 2048, k: 3, ns: []int{40, 1}, slots: []int{0, 1}},
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, tc := range cases {
		n := 0
		for _, m := range tc.ns {
			n += m
		}
		slots := 4
		row := (tc.k - 1) * tc.c
		x, w, state := randn(r, n*tc.c, 1), randn(r, tc.k*tc.c, 1), randn(r, slots*row, 1)

		want, wantState := make([]float32, n*tc.c), append([]float32(nil), state...)
		at := 0
		for i, m := range tc.ns {
			s := tc.slots[i]
			shortConvRef(want[at*tc.c:(at+m)*tc.c], x[at*tc.c:(at+m)*tc.c], w, wantState[s*row:(s+1)*row], tc.k, tc.c)
			at += m
		}
		checkConv64(t, x, w, state, want, wantState, tc.k, tc.c, tc.ns, tc.slots)

		var seqs []kernels.ConvSeq
		for i, m := range tc.ns {
			seqs = append(seqs, kernels.ConvSeq{N: m, Slot: tc.slots[i]})
		}
		for _, b := range []*Backend{NewReference(2), New(2)} {
			xt, wt, st := f32(t, b, x, tc.c, n), f32(t, b, w, tc.c, tc.k), f32(t, b, state, row, slots)
			dst, _ := b.New(quant.TypeF32, tc.c, n)
			if err := b.ShortConv(dst, xt, wt, st, seqs); err != nil {
				t.Fatal(err)
			}
			got, gotState := make([]float32, n*tc.c), make([]float32, slots*row)
			_ = b.Read(dst, got)
			_ = b.Read(st, gotState)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("c=%d k=%d fast=%v: y[%d] = %g, want %g", tc.c, tc.k, b.k != nil, i, got[i], want[i])
				}
			}
			for i := range gotState {
				if gotState[i] != wantState[i] {
					t.Fatalf("c=%d k=%d fast=%v: state[%d] = %g, want %g", tc.c, tc.k, b.k != nil, i, gotState[i], wantState[i])
				}
			}
		}
	}
}

// checkConv64 checks the reference's outputs and windows against the
// convolution computed in float64 from the definition.
func checkConv64(t *testing.T, x, w, state, y, newState []float32, k, c int, ns, slots []int) {
	t.Helper()
	row := (k - 1) * c
	at := 0
	for i, m := range ns {
		s := slots[i]
		win := append(append([]float32(nil), state[s*row:(s+1)*row]...), x[at*c:(at+m)*c]...)
		for tok := range m {
			for ch := range c {
				var sum float64
				for j := range k {
					sum += float64(win[(tok+j)*c+ch]) * float64(w[j*c+ch])
				}
				if got := y[(at+tok)*c+ch]; math.Abs(float64(got)-sum) > 1e-5*(1+math.Abs(sum)) {
					t.Fatalf("c=%d k=%d: y[%d][%d] = %g, the definition gives %g", c, k, at+tok, ch, got, sum)
				}
			}
		}
		for j, v := range win[len(win)-row:] {
			if newState[s*row+j] != v {
				t.Fatalf("c=%d k=%d: slot %d's window value %d = %g, want %g", c, k, s, j, newState[s*row+j], v)
			}
		}
		at += m
	}
}

// TestShortConvChunks checks that a sequence read in chunks through its
// slot gets the outputs of one pass over the whole sequence.
func TestShortConvChunks(t *testing.T) {
	const c, k, n = 40, 3, 11
	r := rand.New(rand.NewPCG(5, 6))
	x, w := randn(r, n*c, 1), randn(r, k*c, 1)
	whole := make([]float32, n*c)
	shortConvRef(whole, x, w, make([]float32, (k-1)*c), k, c)
	b := New(2)
	wt, st := f32(t, b, w, c, k), f32(t, b, make([]float32, (k-1)*c), (k-1)*c, 1)
	at := 0
	for _, m := range []int{1, 4, 1, 5} {
		xt := f32(t, b, x[at*c:(at+m)*c], c, m)
		dst, _ := b.New(quant.TypeF32, c, m)
		if err := b.ShortConv(dst, xt, wt, st, []kernels.ConvSeq{{N: m, Slot: 0}}); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, m*c)
		_ = b.Read(dst, got)
		for i, v := range got {
			if v != whole[at*c+i] {
				t.Fatalf("chunk at %d: y[%d] = %g, the whole pass gives %g", at, i, v, whole[at*c+i])
			}
		}
		at += m
	}
}

// TestShortConvRefuses checks that operands that do not fit are refused
// with kernels.ErrShape.
func TestShortConvRefuses(t *testing.T) {
	b := New(1)
	x, _ := b.New(quant.TypeF32, 8, 3)
	dst, _ := b.New(quant.TypeF32, 8, 3)
	w, _ := b.New(quant.TypeF32, 8, 3)
	st, _ := b.New(quant.TypeF32, 16, 2)
	one, _ := b.New(quant.TypeF32, 8, 1)
	for name, tc := range map[string]struct {
		w, st kernels.Tensor
		seqs  []kernels.ConvSeq
	}{
		"rows":       {w, st, []kernels.ConvSeq{{N: 2, Slot: 0}}},
		"slot range": {w, st, []kernels.ConvSeq{{N: 3, Slot: 2}}},
		"slot twice": {w, st, []kernels.ConvSeq{{N: 1, Slot: 1}, {N: 2, Slot: 1}}},
		"state":      {w, x, []kernels.ConvSeq{{N: 3, Slot: 0}}},
		"one tap":    {one, st, []kernels.ConvSeq{{N: 3, Slot: 0}}},
	} {
		if err := b.ShortConv(dst, x, tc.w, tc.st, tc.seqs); !errors.Is(err, kernels.ErrShape) {
			t.Errorf("%s: got %v, want ErrShape", name, err)
		}
	}
}

// BenchmarkShortConv measures a decode step of 16 sequences and a prompt
// chunk of 128 tokens at LFM2-1.2B's width.
func BenchmarkShortConv(b *testing.B) {
	const c, k = 2048, 3
	r := rand.New(rand.NewPCG(1, 1))
	for _, bc := range []struct {
		name string
		seqs []kernels.ConvSeq
	}{
		{"decode16", func() []kernels.ConvSeq {
			s := make([]kernels.ConvSeq, 16)
			for i := range s {
				s[i] = kernels.ConvSeq{N: 1, Slot: i}
			}
			return s
		}()},
		{"prefill128", []kernels.ConvSeq{{N: 128, Slot: 0}}},
	} {
		for _, fast := range []bool{false, true} {
			name := bc.name + "/ref"
			be := NewReference(1)
			if fast {
				name, be = bc.name+"/fast", New(1)
			}
			b.Run(name, func(b *testing.B) {
				n := 0
				for _, s := range bc.seqs {
					n += s.N
				}
				x, _ := be.New(quant.TypeF32, c, n)
				_ = be.Write(x, randn(r, n*c, 1))
				w, _ := be.New(quant.TypeF32, c, k)
				_ = be.Write(w, randn(r, k*c, 1))
				st, _ := be.New(quant.TypeF32, (k-1)*c, 16)
				dst, _ := be.New(quant.TypeF32, c, n)
				b.SetBytes(int64(4 * n * c))
				for b.Loop() {
					if err := be.ShortConv(dst, x, w, st, bc.seqs); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
