package kernels

import "math"

// Scaling returns the angle scaling rope with p computes, as ggml's
// rope_yarn does (ggml-cpu/ops.cpp), for every backend to share: the
// frequency scale (1 for 0); when p.YaRN.ExtFactor is not 0, the
// correction dims low and high between which YaRN's ramp falls (see
// YaRNRamp); and mscale, the factor of the cosine and sine: AttnFactor (1
// for 0), times 1 + 0.1·ln(1/scale) with YaRN.
func (p RopeParams) Scaling() (scale, low, high, mscale float32) {
	scale, mscale = p.FreqScale, p.YaRN.AttnFactor
	if scale == 0 {
		scale = 1
	}
	if mscale == 0 {
		mscale = 1
	}
	if y := p.YaRN; y.ExtFactor != 0 {
		low, high = yarnCorrDims(p.Dims, y.OrigContext, p.Base, y.BetaFast, y.BetaSlow)
		// 1 + 0.1·ln(1/scale) is one fused multiply-add in ggml's build.
		mscale *= float32(math.FMA(0.1, float64(logF(1/scale)), 1))
	}
	return scale, low, high, mscale
}

// YaRNRamp is YaRN's ramp for the pair of element i (the pair index i/2),
// between the correction dims low and high of Scaling: 1 below low, 0
// above high, linear between.
func YaRNRamp(low, high float32, i int) float32 {
	r := (float32(i/2) - low) / max(0.001, high-low)
	return 1 - min(1, max(0, r))
}

// yarnCorrDims returns the correction dims of YaRN (ggml.c's
// ggml_rope_yarn_corr_dims, in float32): the dims whose pairs rotate
// betaFast and betaSlow times over orig positions,
// dims·ln(orig/(2π·β))/(2·ln base), floored and ceiled, the first at
// least 0 and the second at most dims-1.
func yarnCorrDims(dims, orig int, base, betaFast, betaSlow float32) (low, high float32) {
	corr := func(rot float32) float32 {
		return float32(dims) * logF(float32(orig)/(rot*2*float32(math.Pi))) / (2 * logF(base))
	}
	low = max(0, float32(math.Floor(float64(corr(betaFast)))))
	high = min(float32(dims-1), float32(math.Ceil(float64(corr(betaSlow)))))
	return low, high
}

// logF is C's logf: the natural logarithm rounded to float32 (glibc's
// logf is correctly rounded for the arguments rope uses).
func logF(x float32) float32 { return float32(math.Log(float64(x))) }
