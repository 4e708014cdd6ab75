package cpu

import (
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// ewInputs returns values that exercise expV: random normals at several
// scales, the limits around overflow, underflow and subnormal results,
// zeros, infinities and NaN.
func ewInputs(n int) []float32 {
	r := rand.New(rand.NewPCG(7, 8))
	x := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 88.7, 88.8, 89, -87.3, -87.4, -100, -103.9, -104, -150, 150,
		192, -192, 200, -200, 1e10, -1e10, float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
		-126 * math.Ln2, -133.1 * math.Ln2, 127.9 * math.Ln2, 1e-30, -1e-30}
	for len(x) < n {
		s := []float32{0.01, 1, 10, 60}[len(x)%4]
		x = append(x, float32(r.NormFloat64())*s)
	}
	return x[:n]
}

// TestExpRowFast checks the vector exponential bit for bit against expV,
// over the special inputs and random ones, at lengths with and without a
// scalar tail.
func TestExpRowFast(t *testing.T) {
	var cases [][]float32
	for off := range 8 {
		cases = append(cases, ewInputs(64)[off:]) // the special values in every lane
	}
	for _, n := range []int{1, 7, 8, 9, 16, 33, 4096 + 5} {
		cases = append(cases, ewInputs(n))
	}
	for _, x := range cases {
		n := len(x)
		got := make([]float32, n)
		expRowFast(got, x)
		for i, v := range x {
			if want := expV(v); math.Float32bits(got[i]) != math.Float32bits(want) && !(want != want && got[i] != got[i]) {
				t.Fatalf("n=%d: exp(%g (%#x)) = %g (%#x), want %g (%#x)", n, v, math.Float32bits(v), got[i], math.Float32bits(got[i]), want, math.Float32bits(want))
			}
		}
	}
}

// TestSiluRowFast checks SwiGLU's fast row bit for bit against siluRow.
func TestSiluRowFast(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 15, 16, 17, 40, 8192, 8192 + 13} {
		x := ewInputs(n)
		g := make([]float32, n)
		for i := range g {
			g[i] = float32(r.NormFloat64())
		}
		want, got := make([]float32, n), make([]float32, n)
		siluRow(want, x, g)
		siluRowFast(got, x, g)
		for i := range want {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) && !(want[i] != want[i] && got[i] != got[i]) {
				t.Fatalf("n=%d: silu(%g)·%g = %g, want %g", n, x[i], g[i], got[i], want[i])
			}
		}
	}
}

// BenchmarkSiLU compares SwiGLU over 8192 values (one layer of a decode
// step) in the oracle and the fast form.
func BenchmarkSiLU(b *testing.B) {
	x, g, y := ewInputs(8192), make([]float32, 8192), make([]float32, 8192)
	for i := range x {
		x[i] = float32(math.Mod(float64(x[i]), 20))
		g[i] = 1
	}
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			siluRow(y, x, g)
		}
	})
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			siluRowFast(y, x, g)
		}
	})
}

// TestBinaryParallel checks Add, Mul and Scale over a batch large enough
// to run in parallel, broadcast and not, in place and not, bit for bit
// against plain loops.
func TestBinaryParallel(t *testing.T) {
	const n, rows = 1024, 67
	b := New(3)
	r := rand.New(rand.NewPCG(5, 6))
	vals := func(k int) []float32 {
		x := make([]float32, k)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return x
	}
	xa, xb, bias := vals(n*rows), vals(n*rows), vals(n)
	tensor := func(x []float32, shape ...int) kernels.Tensor {
		tt, err := b.New(quant.TypeF32, shape...)
		if err != nil {
			t.Fatal(err)
		}
		if err := b.Write(tt, x); err != nil {
			t.Fatal(err)
		}
		return tt
	}
	for _, tc := range []struct {
		name  string
		run   func(dst, a kernels.Tensor) error
		want  func(i int) float32
		alias bool
	}{
		{"add", func(d, a kernels.Tensor) error { return b.Add(d, a, tensor(xb, n, rows)) }, func(i int) float32 { return xa[i] + xb[i] }, false},
		{"add-bias-inplace", func(d, a kernels.Tensor) error { return b.Add(d, a, tensor(bias, n)) }, func(i int) float32 { return xa[i] + bias[i%n] }, true},
		{"mul-bias", func(d, a kernels.Tensor) error { return b.Mul(d, a, tensor(bias, n)) }, func(i int) float32 { return xa[i] * bias[i%n] }, false},
		{"mul-inplace", func(d, a kernels.Tensor) error { return b.Mul(d, a, tensor(xb, n, rows)) }, func(i int) float32 { return xa[i] * xb[i] }, true},
		{"scale", func(d, a kernels.Tensor) error { return b.Scale(d, a, 0.3) }, func(i int) float32 { return xa[i] * 0.3 }, false},
	} {
		a := tensor(xa, n, rows)
		d := a
		if !tc.alias {
			d = tensor(make([]float32, n*rows), n, rows)
		}
		if err := tc.run(d, a); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, n*rows)
		if err := b.Read(d, got); err != nil {
			t.Fatal(err)
		}
		for i := range got {
			if want := tc.want(i); math.Float32bits(got[i]) != math.Float32bits(want) {
				t.Fatalf("%s: value %d is %g, want %g", tc.name, i, got[i], want)
			}
		}
	}
}
