package cpu

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"unsafe"

	"saji/kernels/quant"
)

// TestGemvQ3KX16 checks the sixteen-row Q3_K decode kernel bit for bit
// against the pure-Go oracle (dotLanesK), on quantized weights and
// on random blocks (every scale, minimum and quant), with normal and
// extreme (±127) activations, and that the layout unpacks to the file's
// bytes.
func TestGemvQ3KX16(t *testing.T) {
	kernelSetFor(t, setAVX512)
	rng := rand.New(rand.NewPCG(79, 80))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
		for _, raw := range []bool{false, true} {
			for _, extreme := range []bool{false, true} {
				t.Run(fmt.Sprintf("%dx%d/raw=%v/extreme=%v", s.rows, s.nb, raw, extreme), func(t *testing.T) {
					w := kWeights(t, rng, quant.TypeQ3_K, s.nb*s.rows, 1)
					if raw {
						w = kRawWeights(rng, quant.TypeQ3_K, s.nb*s.rows, 1)
					}
					x := kActs(rng, s.nb, false)
					if extreme {
						x = kExtremeActs(rng, s.nb)
					}
					rb := s.nb * q3KBytes
					want := make([]float32, s.rows)
					var r rowK
					r.reset(s.nb * quant.QK_K)
					for i := range want {
						decodeK(quant.TypeQ3_K, w[i*rb:(i+1)*rb], &r)
						want[i] = dotK(&r, x, false)
					}
					p := make([]byte, q3KX16.size(s.rows, rb))
					packQ3KX16(p, w, 0, s.rows/x16Rows, s.nb)
					got := make([]float32, s.rows)
					a := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), n: s.nb, out: &got[0]}
					gemvQ3KX16AVX512(&a, s.rows)
					for i := range got {
						if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
							t.Fatalf("out[%d] = %v, want %v", i, got[i], want[i])
						}
					}
					row := make([]byte, rb)
					for i := range s.rows {
						unpackQ3KX16(row, p, i, rb)
						if !bytes.Equal(row, w[i*rb:(i+1)*rb]) {
							t.Fatalf("row %d unpacks to other bytes", i)
						}
					}
				})
			}
		}
	}
}
