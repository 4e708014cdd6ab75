package gpu

import (
	"fmt"

	"saji/kernels"
	"saji/kernels/cpu"
)

// ShortConv runs the causal depthwise convolution of each sequence
// (kernels.Backend.ShortConv). The kernel table has no convolution yet:
// the operands go to the host, cpu.ShortConvRef computes each sequence,
// and the outputs and windows come back. The tensors are small (a
// token's channels and K-1 rows per sequence), so a hybrid model's
// layers can still live on the device.
func (b *Backend) ShortConv(dst, x, w, state kernels.Tensor, seqs []kernels.ConvSeq) error {
	for _, t := range []kernels.Tensor{dst, x, w, state} {
		if _, err := b.own(t); err != nil {
			return err
		}
	}
	k, err := kernels.CheckShortConv(dst, x, w, state, seqs)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	c := kernels.Cols(x)
	host := func(t kernels.Tensor) ([]float32, error) {
		f := make([]float32, kernels.Cols(t)*kernels.Rows(t))
		return f, b.Read(t, f)
	}
	xs, err := host(x)
	if err != nil {
		return err
	}
	ws, err := host(w)
	if err != nil {
		return err
	}
	ss, err := host(state)
	if err != nil {
		return err
	}
	ys := make([]float32, len(xs))
	r, row := 0, (k-1)*c
	for _, s := range seqs {
		cpu.ShortConvRef(ys[r*c:(r+s.N)*c], xs[r*c:(r+s.N)*c], ws, ss[s.Slot*row:(s.Slot+1)*row], k, c)
		r += s.N
	}
	if err := b.Write(dst, ys); err != nil {
		return err
	}
	return b.Write(state, ss)
}
