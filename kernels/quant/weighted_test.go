package quant

import (
	"bytes"
	"math"
	"slices"
	"strings"
	"testing"
)

// weightedError returns sqrt(Σ w(y-x)² / Σ w x²), the relative error of
// y as x's quantization, weighted by importance.
func weightedError(x, y, w []float32) float64 {
	var num, den float64
	for i := range x {
		d := float64(y[i] - x[i])
		num += float64(w[i]) * d * d
		den += float64(w[i]) * float64(x[i]) * float64(x[i])
	}
	return math.Sqrt(num / den)
}

// imatrixOnlyBound is the largest weighted relative error that
// TestQuantizeWeighted's data may show with the types ggml quantizes only
// with importance weights (about 1.3 times the measured value).
var imatrixOnlyBound = map[Type]float64{
	TypeIQ2_XXS: 0.32,
	TypeIQ2_XS:  0.29,
	TypeIQ3_XXS: 0.16,
	TypeIQ2_S:   0.28,
	TypeIQ1_S:   0.53,
	TypeIQ1_M:   0.44,
}

// TestQuantizeWeighted quantizes Gaussian rows with importance weights
// that vary over three decades, for every type with a weighted quantizer,
// and checks that the round trip stays within the type's unweighted bound
// and that the weighted error is below that of the unweighted quantizer,
// which is what the weights are for.
func TestQuantizeWeighted(t *testing.T) {
	const cols, rows = 1024, 8
	x := simpleGaussian(3, cols*rows, 1)
	w := simpleGaussian(4, cols, 1)
	for i, v := range w {
		w[i] = float32(math.Pow(10, 1.5*math.Tanh(float64(v))))
	}
	types := make([]Type, 0, len(weightedCodecs))
	for typ := range weightedCodecs {
		types = append(types, typ)
	}
	slices.Sort(types)
	for _, typ := range types {
		t.Run(typ.String(), func(t *testing.T) {
			rs, err := typ.RowSize(cols)
			if err != nil {
				t.Fatal(err)
			}
			q, plain := make([]byte, rs*rows), make([]byte, rs*rows)
			for r := range rows {
				row := x[r*cols : (r+1)*cols]
				if err := QuantizeWeighted(typ, row, w, q[int64(r)*rs:int64(r+1)*rs]); err != nil {
					t.Fatal(err)
				}
			}
			y, yp := make([]float32, len(x)), make([]float32, len(x))
			if err := Dequantize(typ, q, y); err != nil {
				t.Fatal(err)
			}
			if bound, ok := imatrixOnlyBound[typ]; ok {
				var we float64
				for r := range rows {
					we += weightedError(x[r*cols:(r+1)*cols], y[r*cols:(r+1)*cols], w)
				}
				we /= rows
				t.Logf("weighted relative error %.4f", we)
				if we > bound {
					t.Errorf("weighted relative error %.4f, want at most %.4f", we, bound)
				}
				return
			}
			if err := Quantize(typ, x, plain); err != nil {
				t.Fatal(err)
			}
			if err := Dequantize(typ, plain, yp); err != nil {
				t.Fatal(err)
			}
			var we, pe float64
			for r := range rows {
				sl := func(v []float32) []float32 { return v[r*cols : (r+1)*cols] }
				we += weightedError(sl(x), sl(y), w)
				pe += weightedError(sl(x), sl(yp), w)
			}
			we, pe = we/rows, pe/rows
			t.Logf("weighted relative error %.4f (unweighted quantizer %.4f)", we, pe)
			if we > roundTripBound[typ] || we >= pe {
				t.Errorf("weighted relative error %.4f, want below %.4f and below the unweighted quantizer's %.4f", we, roundTripBound[typ], pe)
			}
		})
	}
}

// TestQuantizeWeightedCases checks QuantizeWeighted's fallbacks and errors.
func TestQuantizeWeightedCases(t *testing.T) {
	x := simpleGaussian(5, 256, 1)
	w := make([]float32, 256)
	for i := range w {
		w[i] = 1
	}
	for _, typ := range []Type{TypeQ8_0, TypeQ4_K} {
		rs, _ := typ.RowSize(256)
		a, b := make([]byte, rs), make([]byte, rs)
		if err := QuantizeWeighted(typ, x, nil, a); err != nil {
			t.Fatal(err)
		}
		if err := Quantize(typ, x, b); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a, b) {
			t.Errorf("%v: QuantizeWeighted without weights differs from Quantize", typ)
		}
	}
	// Q8_0 ignores the weights, as ggml's quantize_q8_0 does.
	rs, _ := TypeQ8_0.RowSize(256)
	a, b := make([]byte, rs), make([]byte, rs)
	_ = QuantizeWeighted(TypeQ8_0, x, w, a)
	_ = Quantize(TypeQ8_0, x, b)
	if !bytes.Equal(a, b) {
		t.Error("Q8_0 with weights differs from Q8_0 without")
	}
	rs, _ = TypeQ4_K.RowSize(256)
	if err := QuantizeWeighted(TypeQ4_K, x, w[:255], make([]byte, rs)); err == nil || !strings.Contains(err.Error(), "255 importance weights") {
		t.Errorf("short weights: error %v", err)
	}
	if err := QuantizeWeighted(TypeQ4_K, x, w, make([]byte, rs-1)); err == nil {
		t.Error("short destination: no error")
	}
	if !QuantizableWeighted(TypeIQ2_XXS) || Quantizable(TypeIQ2_XXS) {
		t.Error("IQ2_XXS is not quantizable with weights only")
	}
	if QuantizableWeighted(TypeQ8_K) {
		t.Error("Q8_K is quantizable with weights")
	}
}
