package cpu

// Host-side functions for the engine's small computations outside a
// backend (a mixture-of-experts router's gating), computed as ggml's CPU
// backend computes the same operations, so that their results, which pick
// experts, do not depend on the backend the layers run on.

// SoftMax replaces x with its softmax as ggml's soft_max computes a row:
// the maximum subtracted, exponentials summed as in attention's softmax
// (vectors of 16 through ggml_v_expf, the rest through expf, added in
// float64), and every value multiplied by the reciprocal of the sum
// rounded to float32.
func SoftMax(x []float32) {
	if len(x) == 0 {
		return
	}
	maxv := x[0]
	for _, v := range x[1:] {
		maxv = max(maxv, v)
	}
	inv := float32(1 / softmaxSum(x, 0, len(x)-1, len(x), maxv))
	for i := range x {
		x[i] *= inv
	}
}

// Sigmoid returns 1/(1+e^-x) as ggml_vec_sigmoid_f32 computes it (glibc's
// expf).
func Sigmoid(x float32) float32 { return 1 / (1 + expF(-x)) }

// SiLU returns x·sigmoid(x) as ggml computes a value outside a full
// vector (ggml_silu_f32: x/(1+expf(-x))).
func SiLU(x float32) float32 { return x / (1 + expF(-x)) }
