package cpu

import (
	"fmt"

	"saji/kernels"
)

// ShortConv runs the causal depthwise convolution of each sequence over
// its state and its rows of x (kernels.Backend.ShortConv), as ggml's
// ssm_conv sums a channel's taps: one after the other from the oldest,
// each product fused into the sum. A token's sum is built tap by tap in
// its output row, which holds the same float32 the sum would, so the
// window is never copied: each tap reads its row from the state or from
// x where it lies.
func (b *Backend) ShortConv(dst, x, w, state kernels.Tensor, seqs []kernels.ConvSeq) error {
	d, err := b.f32(dst, "short_conv destination")
	if err != nil {
		return err
	}
	in, err := b.f32(x, "short_conv input")
	if err != nil {
		return err
	}
	wt, err := b.f32(w, "short_conv taps")
	if err != nil {
		return err
	}
	st, err := b.f32(state, "short_conv state")
	if err != nil {
		return err
	}
	k, err := kernels.CheckShortConv(d, in, wt, st, seqs)
	if err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	c := in.cols()
	tap := fmaRow
	if b.k != nil {
		tap = fmaRowFast // the same values
	}
	r := 0
	for _, s := range seqs {
		slot := st.f[s.Slot*(k-1)*c : (s.Slot+1)*(k-1)*c]
		xs, y := in.f[r*c:(r+s.N)*c], d.f[r*c:(r+s.N)*c]
		b.parallelRows(s.N, c*k, func(t int) {
			convToken(y[t*c:(t+1)*c], slot, xs, wt.f, t, k, tap)
		})
		convShift(slot, xs, c)
		r += s.N
	}
	return nil
}

// shortConvRef is the oracle of ShortConv for one sequence, on host
// slices: w holds the K rows of C taps, state the K-1 previous rows of C
// inputs (oldest first, updated to the last K-1 rows of the window), x
// and y the chunk's rows. The reference backend computes as it does.
func shortConvRef(y, x, w, state []float32, k, c int) {
	for t := range len(x) / c {
		convToken(y[t*c:(t+1)*c], state, x, w, t, k, fmaRow)
	}
	convShift(state, x, c)
}

// convToken sets y, token t's outputs, to Σ_j win[t+j]·w[j] with the
// window's rows taken from state (the first K-1) or x, each product fused
// into the sum by tap (fmaRow or a form of it that gives the same values).
func convToken(y, state, x, w []float32, t, k int, tap func(y, a, b []float32)) {
	c := len(y)
	clear(y)
	for j := range k {
		var row []float32
		if i := t + j; i < k-1 {
			row = state[i*c : (i+1)*c]
		} else {
			i -= k - 1
			row = x[i*c : (i+1)*c]
		}
		tap(y, row, w[j*c:(j+1)*c])
	}
}

// convShift moves the window of a sequence past the rows of x: state
// keeps its last K-1 rows of state followed by x.
func convShift(state, x []float32, c int) {
	n, m := len(x)/c, len(state)/c
	if n >= m {
		copy(state, x[(n-m)*c:])
		return
	}
	copy(state, state[n*c:])
	copy(state[(m-n)*c:], x)
}

// fmaRow sets y[i] = a[i]·b[i] + y[i], fused.
func fmaRow(y, a, b []float32) { fmaRange(y, a, b, 0) }

// fmaRange is fmaRow from index lo on.
func fmaRange(y, a, b []float32, lo int) {
	for i := lo; i < len(y); i++ {
		y[i] = fma32(a[i], b[i], y[i])
	}
}
