package gpu

import (
	"fmt"
	"math"

	"saji/kernels"
)

// SSMScan runs Mamba-2's selective scan over the sequences of a batch in
// one launch, a thread per state row, updating each sequence's state in
// its slot.
func (b *Backend) SSMScan(y, x, dt, a, bm, c, states kernels.Tensor, seqs []kernels.RecurrentSeq, p kernels.SSMScanParams) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	ts, err := b.f32s("ssm_scan", y, x, dt, a, bm, c, states)
	if err != nil {
		return err
	}
	if err := kernels.CheckSSMScan(ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], ts[6], seqs, p); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	arr, n, err := b.seqArray(seqs, f32Bytes(p.DtBias), f32Bytes(p.D))
	if err != nil || n == 0 {
		return err
	}
	return b.launch("ssm_scan", Dim3{blocks(p.Heads*p.HeadDim, ElemBlock), uint32(len(seqs)), 1},
		ts[1].ptr(0), ts[2].ptr(0), ts[3].ptr(0), ts[4].ptr(0), ts[5].ptr(0), ts[6].ptr(0), arr[0], ts[0].ptr(0),
		I(p.Heads), I(p.HeadDim), I(p.StateDim), I(p.Groups), arr[1], arr[2], flag(p.DtBias != nil), flag(p.D != nil))
}

// GatedDeltaNet runs the gated delta rule over the sequences of a batch in
// one launch, a thread per row of a head's state, updating each
// sequence's state in its slot.
func (b *Backend) GatedDeltaNet(out, q, k, v, g, beta, states kernels.Tensor, seqs []kernels.RecurrentSeq, p kernels.DeltaNetParams) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	ts, err := b.f32s("gated_delta_net", out, q, k, v, g, beta, states)
	if err != nil {
		return err
	}
	if err := kernels.CheckGatedDeltaNet(ts[0], ts[1], ts[2], ts[3], ts[4], ts[5], ts[6], seqs, p); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	arr, n, err := b.seqArray(seqs, f32Bytes(p.A), f32Bytes(p.DtBias))
	if err != nil || n == 0 {
		return err
	}
	scale := 1 / float32(math.Sqrt(float64(p.HeadDim)))
	return b.launch("gated_delta_net", Dim3{blocks(p.Heads*p.HeadDim, ElemBlock), uint32(len(seqs)), 1},
		ts[1].ptr(0), ts[2].ptr(0), ts[3].ptr(0), ts[4].ptr(0), ts[5].ptr(0), ts[6].ptr(0), arr[0], ts[0].ptr(0),
		I(p.Heads), I(p.KHeads), I(p.HeadDim), F(scale), F(p.NormEps), arr[1], arr[2], flag(p.A != nil), flag(p.DtBias != nil), flag(p.BetaLogits))
}

// f32s returns ts as F32 tensors of this backend, for op's messages.
func (b *Backend) f32s(op string, ts ...kernels.Tensor) ([]*tensor, error) {
	out := make([]*tensor, len(ts))
	for i, t := range ts {
		if t == nil {
			return nil, fmt.Errorf("gpu: %s: operand %d is missing: %w", op, i, kernels.ErrShape)
		}
		c, err := b.f32(t, op+" operand")
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// seqArray puts the first row, tokens and slot of each sequence, then
// more (each may be empty), in the host arrays for a recurrent kernel, and
// returns their arguments and the batch's rows.
func (b *Backend) seqArray(seqs []kernels.RecurrentSeq, more ...[]byte) ([]Arg, int, error) {
	vals := make([]int32, 0, 3*len(seqs))
	n := 0
	for _, s := range seqs {
		vals = append(vals, int32(n), int32(s.Tokens), int32(s.Slot))
		n += s.Tokens
	}
	if n == 0 {
		return nil, 0, nil
	}
	arr, err := b.hostArrays(append([][]byte{i32Bytes(vals)}, more...)...)
	if err != nil {
		return nil, 0, err
	}
	return arr, n, nil
}

// flag is an I32 argument of 1 for true and 0 for false.
func flag(b bool) Arg {
	if b {
		return I(1)
	}
	return I(0)
}
