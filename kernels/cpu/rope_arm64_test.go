package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestRopeNEON compares ropeHead with ropePairs bit for bit, in both
// orders, over rotated widths with and without a tail after the last four
// pairs, heads wider than the rotated part, random and extreme values, and
// in place (y the same slice as x).
func TestRopeNEON(t *testing.T) {
	rng := rand.New(rand.NewPCG(41, 42))
	for _, nd := range []int{2, 6, 8, 10, 16, 30, 64, 128, 256} {
		for _, neox := range []bool{false, true} {
			for _, kind := range []string{"random", "extreme", "inplace"} {
				hd := nd + 6
				x, cs := randn(rng, hd, 3), make([]float32, nd)
				for i := 0; i < nd; i += 2 {
					th := rng.Float64() * 100
					cs[i], cs[i+1] = float32(math.Cos(th)), float32(math.Sin(th))
				}
				if kind == "extreme" {
					x[0], x[nd-1], x[nd/2] = 3e38, -3e38, 1e-40
					cs[0], cs[1] = 1, float32(math.Copysign(0, -1))
				}
				want := make([]float32, hd)
				ropePairs(want, x, cs, 0, nd, neox)
				got := make([]float32, hd)
				if kind == "inplace" {
					got = append([]float32(nil), x...)
					ropeHead(got, got, cs, nd, neox)
				} else {
					ropeHead(got, x, cs, nd, neox)
				}
				for i := range nd {
					sameBits(t, fmt.Sprintf("nd %d/neox %v/%s/element %d", nd, neox, kind, i), got[i], want[i])
				}
			}
		}
	}
}
