package gpu

import (
	"fmt"

	"saji/kernels"
	"saji/kernels/quant"
)

// Attention computes causal attention of q over kv.
func (b *Backend) Attention(dst, q kernels.Tensor, kv kernels.KV, pos []int32, p kernels.AttentionParams) error {
	return b.AttentionSeqs(dst, q, []kernels.SeqKV{{KV: kv, Pos: pos}}, p)
}

// AttentionSeqs runs attention for each sequence of a mixed batch over its
// rows of q and dst: one launch per sequence, over its own cells.
func (b *Backend) AttentionSeqs(dst, q kernels.Tensor, seqs []kernels.SeqKV, p kernels.AttentionParams) error {
	if err := b.lock(); err != nil {
		return err
	}
	defer b.mu.Unlock()
	d, err := b.f32(dst, "attention destination")
	if err != nil {
		return err
	}
	qs, err := b.f32(q, "attention queries")
	if err != nil {
		return err
	}
	if err := kernels.CheckAttention(d, qs, seqs, p); err != nil {
		return fmt.Errorf("gpu: %w", err)
	}
	if hd, vd := p.HeadDim, p.ValueDim; hd > MaxHeadDim || vd > MaxHeadDim {
		return fmt.Errorf("gpu: attention heads of %d/%d values: the GPU kernels take at most %d", hd, vd, MaxHeadDim)
	}
	r := 0
	for i, s := range seqs {
		if len(s.Pos) == 0 {
			continue
		}
		if err := b.attend(d, qs, r, s, p); err != nil {
			if len(seqs) > 1 {
				return fmt.Errorf("gpu: sequence %d of the batch: %w", i, err)
			}
			return err
		}
		r += len(s.Pos)
	}
	return nil
}

// attend launches attention for one sequence's rows r.. of q and dst,
// operands that kernels.CheckAttention accepted.
func (b *Backend) attend(d, qs *tensor, r int, s kernels.SeqKV, p kernels.AttentionParams) error {
	kv, pos := s.KV, s.Pos
	kt, err := b.own(kv.K)
	if err != nil {
		return err
	}
	vt, err := b.own(kv.V)
	if err != nil {
		return err
	}
	nkv, hd, vd := p.KVHeads, p.HeadDim, p.ValueDim
	if kt.typ != vt.typ || Suffix(kt.typ) == "" || (kt.typ != quant.TypeF32 && kt.typ != quant.TypeF16 && kt.typ != quant.TypeQ8_0) {
		return fmt.Errorf("gpu: attention over a %v/%v cache: the GPU kernels take F32, F16 or Q8_0 keys and values of one type", kt.typ, vt.typ)
	}
	var cells, sinks []byte
	hasCells, hasSinks := 0, 0
	if kv.Cells != nil {
		cells, hasCells = i32Bytes(kv.Cells[:kv.Len]), 1
	}
	if p.Sinks != nil {
		sinks, hasSinks = f32Bytes(p.Sinks), 1
	}
	// A decode step over a long cache would leave most of the GPU idle
	// with a block per head: each query row's cells are split into slices
	// computed side by side, then merged.
	splits := attnSplits(p.Heads, len(pos), kv.Len)
	var part Buf
	if splits > 1 {
		part, err = b.scratch(4 * len(pos) * p.Heads * splits * (vd + 2))
		if err != nil {
			return err
		}
		// Back to the pool at once: whatever reuses it is queued after.
		defer func() { b.pool = append(b.pool, part) }()
	}
	// CUDA grids are at most 65535 blocks high: longer batches take
	// several launches.
	step := maxGridY / splits
	for c0 := 0; c0 < len(pos); c0 += step {
		chunk := pos[c0:min(len(pos), c0+step)]
		arr, err := b.hostArrays(cells, i32Bytes(chunk), sinks)
		if err != nil {
			return err
		}
		rr := r + c0
		out := d.ptr(4 * rr * d.cols())
		parts := out // not read with one slice
		if splits > 1 {
			parts = P(part, 0)
		}
		err = b.launch("attention_"+Suffix(kt.typ), Dim3{uint32(p.Heads), uint32(len(chunk) * splits), 1},
			qs.ptr(4*rr*qs.cols()), kt.ptr(0), vt.ptr(0), arr[0], arr[1], out,
			I(p.Heads), I(nkv), I(hd), I(vd), I(kt.rowBytes()), I(vt.rowBytes()), I(kv.Len),
			I(p.Window), F(p.Scale), F(p.Softcap), I(hasCells), parts, I(splits), arr[2], I(hasSinks))
		if err == nil && splits > 1 {
			err = b.launch("attention_merge", Dim3{uint32(p.Heads), uint32(len(chunk)), 1},
				parts, out, I(p.Heads), I(vd), I(splits), arr[2], I(hasSinks))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// attnSplits is the number of slices attention splits each query row's
// cells into, for rows query rows of heads heads over a cache of n cells
// (see AttnBlocks).
func attnSplits(heads, rows, n int) int {
	blocks := heads * rows
	if blocks >= AttnBlocks || n < 2*AttnSliceCells {
		return 1
	}
	return max(1, min(n/AttnSliceCells, (AttnBlocks+blocks-1)/blocks, AttnMaxSplits))
}

// maxGridY is the most blocks a grid's Y dimension may have on CUDA.
const maxGridY = 65535
