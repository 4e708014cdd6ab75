package cpu

import (
	"math"

	"saji/kernels"
)

// yarnRope is one rope call's angle scaling, as ggml's rope_yarn computes
// it (ggml-cpu/ops.cpp): linear interpolation by scale, corrected by YaRN's
// ramp between the correction dims low and high when ext is not 0, and the
// cosine and sine multiplied by mscale.
type yarnRope struct {
	scale, ext float32
	low, high  float32
	mscale     float32
}

// newYarnRope prepares the angle scaling of p.
func newYarnRope(p kernels.RopeParams) yarnRope {
	y := yarnRope{scale: p.FreqScale, ext: p.YaRN.ExtFactor, mscale: p.YaRN.AttnFactor}
	if y.scale == 0 {
		y.scale = 1
	}
	if y.mscale == 0 {
		y.mscale = 1
	}
	if y.ext != 0 {
		y.low, y.high = yarnCorrDims(p.Dims, p.YaRN.OrigContext, p.Base, p.YaRN.BetaFast, p.YaRN.BetaSlow)
		// 1 + 0.1·ln(1/scale) is one fused multiply-add in ggml's build.
		y.mscale *= fma32(0.1, logF(1/y.scale), 1)
	}
	return y
}

// sinCos returns the sine and cosine of pair i's angle, theta the
// unscaled (extrapolated) angle, each times mscale.
func (y *yarnRope) sinCos(theta float32, i int) (sin, cos float32) {
	t := y.scale * theta
	if y.ext != 0 {
		mix := float32(yarnRamp(y.low, y.high, i) * y.ext)
		// The interpolated and extrapolated angles' mix is one fused
		// multiply-add in ggml's build.
		t = fma32(t, 1-mix, float32(theta*mix))
	}
	sin, cos = sinCos32(t)
	return sin * y.mscale, cos * y.mscale
}

// yarnRamp is YaRN's ramp for the pair of element i: 1 below the
// correction dim low, 0 above high, linear between (by pair index).
func yarnRamp(low, high float32, i int) float32 {
	r := (float32(i/2) - low) / max(0.001, high-low)
	return 1 - min(1, max(0, r))
}

// yarnCorrDims returns the correction dims of YaRN (ggml.c's
// ggml_rope_yarn_corr_dims, in float32): the dims whose pairs rotate
// betaFast and betaSlow times over orig positions, floored and ceiled to
// whole dims within [0, dims-1].
func yarnCorrDims(dims, orig int, base, betaFast, betaSlow float32) (low, high float32) {
	corr := func(rot float32) float32 {
		return float32(dims) * logF(float32(orig)/(rot*2*float32(math.Pi))) / (2 * logF(base))
	}
	low = max(0, float32(math.Floor(float64(corr(betaFast)))))
	high = min(float32(dims-1), float32(math.Ceil(float64(corr(betaSlow)))))
	return low, high
}

// logF is logf: the natural logarithm rounded to float32 (glibc's logf
// is correctly rounded for the arguments rope uses).
func logF(x float32) float32 { return float32(math.Log(float64(x))) }
