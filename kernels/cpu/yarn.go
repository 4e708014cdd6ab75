package cpu

import "saji/kernels"

// yarnRope is one rope call's angle scaling (kernels.RopeParams.Scaling):
// linear interpolation by scale, corrected by YaRN's ramp between the
// correction dims low and high when ext is not 0, and the cosine and sine
// multiplied by mscale.
type yarnRope struct {
	scale, ext float32
	low, high  float32
	mscale     float32
}

// newYarnRope prepares the angle scaling of p.
func newYarnRope(p kernels.RopeParams) yarnRope {
	y := yarnRope{ext: p.YaRN.ExtFactor}
	y.scale, y.low, y.high, y.mscale = p.Scaling()
	return y
}

// sinCos returns the sine and cosine of the angle of the pair of element
// i, theta its unscaled (extrapolated) angle, each times mscale, as ggml's
// rope_yarn computes them.
func (y *yarnRope) sinCos(theta float32, i int) (sin, cos float32) {
	t := y.scale * theta
	if y.ext != 0 {
		mix := float32(kernels.YaRNRamp(y.low, y.high, i) * y.ext)
		// The interpolated and extrapolated angles' mix is one fused
		// multiply-add in ggml's build.
		t = fma32(t, 1-mix, float32(theta*mix))
	}
	sin, cos = sinCos32(t)
	return sin * y.mscale, cos * y.mscale
}
