package vision

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// attendInputs returns random queries, keys and values: n rows of heads
// heads of dim values.
func attendInputs(o *ops, n, heads, dim int) (q, k, v kernels.Tensor) {
	r := rand.New(rand.NewPCG(uint64(n), uint64(dim)))
	vals := func() kernels.Tensor {
		x := make([]float32, n*heads*dim)
		for i := range x {
			x[i] = float32(r.NormFloat64())
		}
		return o.host(x, heads*dim, n)
	}
	return vals(), vals(), vals()
}

// exactAttend is the attention of attend in float64 over the keys and
// values rounded to F16, as the cache holds them.
func exactAttend(q, k, v []float32, n, heads, dim int) []float64 {
	f16 := func(x float32) float64 { return float64(quant.F16ToF32(quant.F32ToF16(x))) }
	out := make([]float64, n*heads*dim)
	scores := make([]float64, n)
	scale := 1 / math.Sqrt(float64(dim))
	for i := range n {
		for h := range heads {
			qi := q[(i*heads+h)*dim : (i*heads+h+1)*dim]
			m := math.Inf(-1)
			for j := range n {
				var s float64
				for d, x := range qi {
					s += float64(x) * f16(k[(j*heads+h)*dim+d])
				}
				scores[j] = s * scale
				m = max(m, scores[j])
			}
			var sum float64
			for j := range n {
				scores[j] = math.Exp(scores[j] - m)
				sum += scores[j]
			}
			o := out[(i*heads+h)*dim : (i*heads+h+1)*dim]
			for j := range n {
				for d := range o {
					o[d] += scores[j] / sum * f16(v[(j*heads+h)*dim+d])
				}
			}
		}
	}
	return out
}

// TestAttendPadded checks attend's padded heads, which take ggml's tiled
// flash attention (F32 sums), against the exact attention: within 1e-4 of
// the largest magnitude. ggml's kernel for the heads as they are, one
// query at a time with F16 sums, is further (its figure is logged): up to
// 5e-3 here, where random scores spread the weights over every cell.
func TestAttendPadded(t *testing.T) {
	for _, c := range []struct{ n, heads, dim int }{{64, 2, 72}, {200, 3, 72}, {100, 2, 18}, {70, 1, 8}} {
		t.Run(fmt.Sprintf("%dx%dx%d", c.n, c.heads, c.dim), func(t *testing.T) {
			o := &ops{b: cpu.New(2)}
			defer o.release()
			q, k, v := attendInputs(o, c.n, c.heads, c.dim)
			exact := exactAttend(o.read(q), o.read(k), o.read(v), c.n, c.heads, c.dim)
			got := o.read(o.attend(q, k, v, c.n, c.heads, c.dim))
			one := o.read(o.flash(q, k, v, c.n, c.heads, c.dim, c.dim))
			if o.err != nil {
				t.Fatal(o.err)
			}
			var worst, worstOne, big float64
			for i, e := range exact {
				worst = max(worst, math.Abs(float64(got[i])-e))
				worstOne = max(worstOne, math.Abs(float64(one[i])-e))
				big = max(big, math.Abs(e))
			}
			if worst > 1e-4*big {
				t.Errorf("padded heads differ from the exact attention by %.2e of the largest magnitude", worst/big)
			}
			t.Logf("from the exact attention: padded heads %.2e, one query at a time %.2e", worst/big, worstOne/big)
		})
	}
}

// BenchmarkAttend runs the attention of one block of the 896×896 encoder
// (4096 patches, 16 heads of 72) on 2 threads: padded (attend) and one
// query at a time (the heads as they are), alternating in one run so that
// a loaded machine slows both alike.
func BenchmarkAttend(b *testing.B) {
	const n, heads, dim = 4096, 16, 72
	o := &ops{b: cpu.New(2)}
	defer o.release()
	q, k, v := attendInputs(o, n, heads, dim)
	for _, padded := range []bool{true, false} {
		b.Run(fmt.Sprintf("padded=%v", padded), func(b *testing.B) {
			for b.Loop() {
				if padded {
					o.attend(q, k, v, n, heads, dim)
				} else {
					o.flash(q, k, v, n, heads, dim, dim)
				}
				if o.err != nil {
					b.Fatal(o.err)
				}
			}
		})
	}
}
