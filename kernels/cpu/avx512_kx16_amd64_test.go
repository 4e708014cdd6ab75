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

// TestGemvKX16 checks the sixteen-row Q2_K and Q3_K decode kernels bit for
// bit against the pure-Go oracle (dotK), on quantized weights and on
// random blocks (every scale, minimum and quant), with normal and extreme
// (±127) activations, and that each layout unpacks to the file's bytes.
func TestGemvKX16(t *testing.T) {
	skipUnderRace(t)
	kernelSetFor(t, setAVX512)
	rng := rand.New(rand.NewPCG(75, 76))
	for _, k := range []struct {
		typ   quant.Type
		bytes int
		kern  packedKernel
		pack  func(dst, src []byte, glo, ghi, nb int)
		gemv  func(a *tileArgs, rows int)
	}{
		{quant.TypeQ2_K, q2KBytes, q2KX16, packQ2KX16, gemvQ2KX16AVX512},
		{quant.TypeQ3_K, q3KBytes, q3KX16, packQ3KX16, gemvQ3KX16AVX512},
	} {
		for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
			for _, raw := range []bool{false, true} {
				for _, extreme := range []bool{false, true} {
					t.Run(fmt.Sprintf("%v/%dx%d/raw=%v/extreme=%v", k.typ, s.rows, s.nb, raw, extreme), func(t *testing.T) {
						w := kWeights(t, rng, k.typ, s.nb*s.rows, 1)
						if raw {
							w = kRawWeights(rng, k.typ, s.nb*s.rows, 1)
						}
						x := kActs(rng, s.nb, false)
						if extreme {
							x = kExtremeActs(rng, s.nb)
						}
						rb := s.nb * k.bytes
						want := make([]float32, s.rows)
						var r rowK
						r.reset(s.nb * quant.QK_K)
						for i := range want {
							decodeK(k.typ, w[i*rb:(i+1)*rb], &r)
							want[i] = dotK(&r, x, false)
						}
						p := make([]byte, k.kern.size(s.rows, rb))
						k.pack(p, w, 0, s.rows/x16Rows, s.nb)
						got := make([]float32, s.rows)
						a := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), n: s.nb, out: &got[0]}
						k.gemv(&a, s.rows)
						for i := range got {
							if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
								t.Fatalf("out[%d] = %v, want %v", i, got[i], want[i])
							}
						}
						row := make([]byte, rb)
						for i := range s.rows {
							k.kern.unpack(row, p, i, rb)
							if !bytes.Equal(row, w[i*rb:(i+1)*rb]) {
								t.Fatalf("row %d unpacks to other bytes", i)
							}
						}
					})
				}
			}
		}
	}
}

// TestGemmQ2KX16 checks the sixteen-row Q2_K prompt kernel bit for bit
// against the pure-Go oracle in dotK's gemm order, four activation rows
// (quantized as a group) a call.
func TestGemmQ2KX16(t *testing.T) {
	skipUnderRace(t)
	kernelSetFor(t, setAVX512)
	rng := rand.New(rand.NewPCG(77, 78))
	for _, s := range []struct{ rows, nb int }{{16, 1}, {32, 3}, {64, 8}, {48, 16}} {
		for _, raw := range []bool{false, true} {
			for _, extreme := range []bool{false, true} {
				t.Run(fmt.Sprintf("%dx%d/raw=%v/extreme=%v", s.rows, s.nb, raw, extreme), func(t *testing.T) {
					w := kWeights(t, rng, quant.TypeQ2_K, s.nb*s.rows, 1)
					if raw {
						w = kRawWeights(rng, quant.TypeQ2_K, s.nb*s.rows, 1)
					}
					x := make([]q8KBlock, 4*s.nb)
					quantizeQ8K(randn(rng, 4*s.nb*quant.QK_K, 1), x, true)
					if extreme {
						x = kExtremeActs(rng, 4*s.nb)
					}
					rb := s.nb * q2KBytes
					const ostride = 70
					want := make([]float32, 4*ostride)
					var r rowK
					r.reset(s.nb * quant.QK_K)
					for i := range s.rows {
						decodeK(quant.TypeQ2_K, w[i*rb:(i+1)*rb], &r)
						for j := range 4 {
							want[j*ostride+i] = dotK(&r, x[j*s.nb:(j+1)*s.nb], true)
						}
					}
					p := make([]byte, q2KX16.size(s.rows, rb))
					packQ2KX16(p, w, 0, s.rows/x16Rows, s.nb)
					got := make([]float32, 4*ostride)
					a := tileArgs{w: &p[0], x: unsafe.Pointer(&x[0]), xstride: s.nb * 292, n: s.nb, out: &got[0], ostride: ostride}
					gemmQ2KX16AVX512(&a, s.rows)
					for j := range 4 {
						for i := range s.rows {
							if g, w := got[j*ostride+i], want[j*ostride+i]; math.Float32bits(g) != math.Float32bits(w) {
								t.Fatalf("activation row %d, out[%d] = %v, want %v", j, i, g, w)
							}
						}
					}
				})
			}
		}
	}
}
