package gpu

import (
	"fmt"

	"saji/kernels"
)

// ShortConv runs the causal depthwise convolution of each sequence
// (kernels.Backend.ShortConv) in one launch of short_conv: a thread per
// channel of a sequence, which sums the taps over its window and writes
// the window's last K-1 rows back to the sequence's slot.
func (b *Backend) ShortConv(dst, x, w, state kernels.Tensor, seqs []kernels.ConvSeq) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	ts, err := b.f32s("short_conv", dst, x, w, state)
	if err != nil {
		return err
	}
	k, err := kernels.CheckShortConv(ts[0], ts[1], ts[2], ts[3], seqs)
	if err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	rs := make([]kernels.RecurrentSeq, len(seqs))
	for i, s := range seqs {
		rs[i] = kernels.RecurrentSeq{Slot: s.Slot, Tokens: s.N}
	}
	arr, n, err := b.seqArray(rs)
	if err != nil || n == 0 {
		return err
	}
	c := kernels.Cols(x)
	return b.launch("short_conv", Dim3{blocks(c, ElemBlock), uint32(len(seqs)), 1},
		ts[1].ptr(0), ts[2].ptr(0), ts[3].ptr(0), arr[0], ts[0].ptr(0), I(c), I(k))
}
