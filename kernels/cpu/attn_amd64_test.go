package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"testing"

	"saji/kernels/quant"
)

// TestF16AccSets checks both x86 forms of the one-row attention's F16
// accumulator, AVX2's and AVX-512's (which f16Acc picks where the CPU has
// it), against the Go form bit for bit, on rows of 8 to 136 values and
// scales from 0 to past F16's range.
func TestF16AccSets(t *testing.T) {
	if !attnAVX2 {
		t.Skip("cpu lacks avx2, fma or f16c (or SAJI_SIMD=off)")
	}
	r := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{8, 16, 24, 64, 72, 128, 136} {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(r.NormFloat64() * 300)
		}
		v := make([]byte, 2*n)
		if err := quant.Quantize(quant.TypeF16, x, v); err != nil {
			t.Fatal(err)
		}
		for _, vs := range []float32{1, 0.37, 1e-3, 7e4, 0} {
			want := make([]float32, n)
			for i := range want {
				want[i] = roundF16(float32(r.NormFloat64() * 100))
			}
			avx2, avx512 := append([]float32(nil), want...), append([]float32(nil), want...)
			f16AccGo(want, v, vs)
			f16AccAVX2(&avx2[0], &v[0], vs, n)
			if c := countDiff(avx2, want); c != 0 {
				t.Errorf("f16AccAVX2 of %d by %g: %d differ", n, vs, c)
			}
			if !attnAVX512 {
				continue
			}
			f16Acc(avx512, v, vs)
			if c := countDiff(avx512, want); c != 0 {
				t.Errorf("f16Acc (AVX-512) of %d by %g: %d differ", n, vs, c)
			}
		}
	}
	if !attnAVX512 {
		t.Log("cpu lacks avx512f or avx512vl, or SAJI_SIMD forces a set without them: the AVX-512 form did not run")
	}
}

// TestF16AccCells checks the AVX2 run of value sums (f16AccCells) against
// its Go form, whose f16Scale and f16Acc are the Go ones, bit for bit:
// rows of 64 and 128 values (and 72, which takes the Go form), value rows
// at scattered offsets, runs of 1 to 40 cells whose scales are 0 (a first
// cell), 1 (no new maximum) or in between, and weights past F16's range.
func TestF16AccCells(t *testing.T) {
	if !attnAVX2 {
		t.Skip("cpu lacks avx2, fma or f16c (or SAJI_SIMD=off)")
	}
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{64, 128, 72} {
		for _, cells := range []int{1, 2, 31, 40} {
			const rowsOf = 50
			x := make([]float32, rowsOf*n)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 300)
			}
			v := make([]byte, 2*len(x))
			if err := quant.Quantize(quant.TypeF16, x, v); err != nil {
				t.Fatal(err)
			}
			off, ms, vs := make([]int, cells), make([]float32, cells), make([]float32, cells)
			for j := range off {
				off[j] = 2 * n * r.IntN(rowsOf)
				ms[j], vs[j] = 1, float32(r.Float64())
				switch r.IntN(3) {
				case 0:
					ms[j], vs[j] = float32(r.Float64()), 1
				case 1:
					vs[j] *= 7e4
				}
			}
			ms[0] = 0
			want := make([]float32, n)
			for i := range want {
				want[i] = roundF16(float32(r.NormFloat64() * 100))
			}
			got := append([]float32(nil), want...)
			for j, o := range off {
				if ms[j] != 1 {
					f16ScaleGo(want, ms[j])
				}
				f16AccGo(want, v[o:o+2*n], vs[j])
			}
			f16AccCells(got, v, off, ms, vs)
			if c := countDiff(got, want); c != 0 {
				t.Errorf("f16AccCells of %d values over %d cells: %d differ", n, cells, c)
			}
		}
	}
}

// TestF16AccCells4 checks the four-row AVX-512 run of value sums
// (f16AccCells4) against f16AccCells on each row bit for bit, on rows of
// 64 and 128 values, runs of 1 to 32 cells starting anywhere in the
// scratch, and rows 0-3 and 12-15 of it.
func TestF16AccCells4(t *testing.T) {
	if !attnAVX512 {
		t.Skip("cpu lacks avx512f or avx512vl (or SAJI_SIMD forces a set without them)")
	}
	r := rand.New(rand.NewPCG(9, 10))
	for _, vd := range []int{64, 128} {
		for _, run := range [][2]int{{0, 1}, {0, 32}, {5, 17}, {31, 1}} {
			j0, cells := run[0], run[1]
			x := make([]float32, 40*vd)
			for i := range x {
				x[i] = float32(r.NormFloat64() * 300)
			}
			v := make([]byte, 2*len(x))
			if err := quant.Quantize(quant.TypeF16, x, v); err != nil {
				t.Fatal(err)
			}
			off := make([]int, cells)
			for j := range off {
				off[j] = 2 * vd * r.IntN(40)
			}
			var ms, vs [oneRowTokens][oneRowCells]float32
			for g := range ms {
				for j := range ms[g] {
					ms[g][j], vs[g][j] = 1, float32(r.Float64())
					if r.IntN(4) == 0 {
						ms[g][j], vs[g][j] = float32(r.Float64()), 1
					}
				}
				ms[g][j0] = 0
			}
			for _, g := range []int{0, 12} {
				want := make([]float32, 4*vd)
				for i := range want {
					want[i] = roundF16(float32(r.NormFloat64() * 100))
				}
				got := append([]float32(nil), want...)
				for k := range 4 {
					f16AccCellsGo(want[k*vd:(k+1)*vd], v, off, ms[g+k][j0:j0+cells], vs[g+k][j0:j0+cells])
				}
				if !f16AccCells4(got, vd, v, off, &ms, &vs, g, j0) {
					t.Fatalf("f16AccCells4 of %d values declined", vd)
				}
				if c := countDiff(got, want); c != 0 {
					t.Errorf("f16AccCells4 of %d values, rows %d-%d, cells %d+%d: %d differ", vd, g, g+3, j0, cells, c)
				}
			}
		}
	}
}

// TestAttnFollowsSIMD checks that the kernels outside the sets (attention,
// element-wise) follow SAJI_SIMD, in a child process each, since they
// choose once, at start: a forced set without AVX-512 runs no AVX-512
// attention kernel, and off no SIMD kernel at all, so that a forced set is
// measured as a CPU with nothing newer would run it.
func TestAttnFollowsSIMD(t *testing.T) {
	flags := fmt.Sprintf("avx2=%v avx512=%v ew=%v", attnAVX2, attnAVX512, ewAVX2)
	if want := os.Getenv("SAJI_TEST_ATTN_FLAGS"); want != "" {
		if flags != want {
			t.Fatalf("SAJI_SIMD=%s: kernels %s, want %s", os.Getenv("SAJI_SIMD"), flags, want)
		}
		return
	}
	if os.Getenv("SAJI_SIMD") != "" || !attnAVX2 {
		t.Skip("cpu: needs AVX2 and SAJI_SIMD unset, to force each set in turn")
	}
	cases := []struct{ simd, want string }{
		{"avx2", "avx2=true avx512=false ew=true"},
		{"off", "avx2=false avx512=false ew=false"},
		{"avx512", flags},
	}
	if lacks(setAVXVNNI) == "" {
		cases = append(cases, struct{ simd, want string }{"vnni", "avx2=true avx512=false ew=true"})
	}
	for _, c := range cases {
		cmd := exec.Command(os.Args[0], "-test.run=^TestAttnFollowsSIMD$", "-test.count=1")
		cmd.Env = append(os.Environ(), "SAJI_SIMD="+c.simd, "SAJI_TEST_ATTN_FLAGS="+c.want)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("SAJI_SIMD=%s: %v\n%s", c.simd, err, out)
		}
	}
}

// TestTileSoftmaxAVX2 checks the tiled attention's scaling, maximum and
// shifted exponentials on AVX2 against their Go forms, bit for bit, over
// scores of every sign and size, infinities included.
func TestTileSoftmaxAVX2(t *testing.T) {
	if !ewAVX2 {
		t.Skip("cpu lacks avx2 and fma (or SAJI_SIMD=off)")
	}
	rng := rand.New(rand.NewPCG(91, 92))
	for round := range 200 {
		var a, b [64]float32
		for c := range a {
			a[c] = float32(rng.NormFloat64() * math.Pow(10, float64(round%7-3)))
		}
		if round%5 == 0 {
			a[rng.IntN(64)] = float32(math.Inf(-1))
		}
		b = a
		scale := float32(rng.Float64() + 0.01)
		if got, want := scaleMax64(&a, scale), scaleMax64Go(&b, scale); got != want || a != b {
			t.Fatalf("round %d: scaleMax64 %v, Go %v (values equal: %v)", round, got, want, a == b)
		}
		m := a[rng.IntN(64)] + float32(rng.Float64())
		expShift64(&a, m)
		expShift64Go(&b, m)
		for c := range a {
			if math.Float32bits(a[c]) != math.Float32bits(b[c]) {
				t.Fatalf("round %d, cell %d: exp(x - %v): %v, Go %v", round, c, m, a[c], b[c])
			}
		}
	}
}
