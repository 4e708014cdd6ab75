package quant

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// roundTripBound is the largest relative RMS error (RMS(y-x)/RMS(x)) that
// quantizing and dequantizing N(0,1) data may show, per type. Each bound is
// about 1.3 times the value measured with TestRoundTripError's data (64 rows
// of 4096, seed 1), so that a real regression fails while the -short data
// (16 rows) stays comfortably inside; the measured values are in doc.go.
var roundTripBound = map[Type]float64{
	TypeF32:    0,
	TypeF16:    2.7e-4,
	TypeBF16:   2.2e-3,
	TypeQ4_0:   0.112,
	TypeQ4_1:   0.102,
	TypeQ5_0:   0.056,
	TypeQ5_1:   0.049,
	TypeQ8_0:   7.0e-3,
	TypeQ8_1:   7.0e-3,
	TypeQ2_K:   0.39,
	TypeQ3_K:   0.20,
	TypeQ4_K:   0.093,
	TypeQ5_K:   0.047,
	TypeQ6_K:   0.023,
	TypeQ8_K:   9.0e-3,
	TypeIQ4_NL: 0.099,
	TypeIQ4_XS: 0.100,
	TypeMXFP4:  0.150,
	TypeTQ1_0:  1.05,
	TypeTQ2_0:  1.05,
	TypeIQ3_S:  0.22,
}

// TestRoundTripError quantizes Gaussian data with every type that Quantize
// handles, measures the relative RMS error of the round trip, and logs the
// table of bits per weight and error. A type whose functions still panic
// is skipped.
func TestRoundTripError(t *testing.T) {
	rows := 64
	if testing.Short() {
		rows = 16
	}
	x := simpleGaussian(1, rows*4096, 1)
	types := make([]Type, 0, len(codecs))
	for typ := range codecs {
		if Quantizable(typ) {
			types = append(types, typ)
		}
	}
	slices.Sort(types)

	var table strings.Builder
	fmt.Fprintf(&table, "%-8s %11s %14s\n", "type", "bits/weight", "rel-RMS-error")
	for _, typ := range types {
		t.Run(typ.String(), func(t *testing.T) {
			y, ok := roundTripOrSkip(t, typ, x)
			if !ok {
				t.Skipf("%v: not implemented yet", typ)
			}
			rel := relRMS(x, y)
			bpw := float64(8*typ.TypeSize()) / float64(typ.BlockSize())
			fmt.Fprintf(&table, "%-8v %11.5g %14.3e\n", typ, bpw, rel)
			bound, ok := roundTripBound[typ]
			if !ok {
				t.Errorf("%v: no error bound recorded (measured %.3e)", typ, rel)
			} else if rel > bound {
				t.Errorf("%v: relative RMS error %.3e exceeds %.3e", typ, rel, bound)
			}
		})
	}
	t.Logf("round trip of N(0,1) data, %d values:\n%s", len(x), table.String())
}

// roundTripOrSkip quantizes and dequantizes x, reporting false if the
// type's functions panic (a format not implemented yet).
func roundTripOrSkip(t *testing.T, typ Type, x []float32) (y []float32, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			if !strings.Contains(fmt.Sprint(r), "not implemented") {
				panic(r)
			}
			y, ok = nil, false
		}
	}()
	_, y = encodeDecode(t, typ, x)
	return y, true
}

// relRMS returns RMS(y-x)/RMS(x), accumulated in float64.
func relRMS(x, y []float32) float64 {
	var se, sx float64
	for i := range x {
		d := float64(y[i]) - float64(x[i])
		se += d * d
		sx += float64(x[i]) * float64(x[i])
	}
	return math.Sqrt(se / sx)
}
