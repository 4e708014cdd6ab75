//go:build !amd64

package cpu

// ssmRowsFunc returns the form of ssmRowsGo that k runs: the oracle
// itself on this architecture.
func (k *kernelSet) ssmRowsFunc() func(st, bg, cg, x, y []float32, dA, d float32) {
	return ssmRowsGo
}

// deltaRowsFunc returns the form of deltaRowsGo that k runs for heads of
// n values: the oracle itself on this architecture.
func (k *kernelSet) deltaRowsFunc(n int) func(st, k, q, v, out []float32, decay, beta, scale float32) {
	return deltaRowsGo
}
