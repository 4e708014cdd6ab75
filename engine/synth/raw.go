package synth

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"

	"saji/kernels/quant"
)

// Types that Saji decodes but cannot write (ggml writes them only with an
// importance matrix: the IQ1 and IQ2 types and IQ3_XXS) get random blocks
// instead of quantized values: random bytes for the quants, grid indices,
// signs and group scales, and a super-block scale set so that the block's
// values have the RMS of the values it stands for. Both engines read such
// a block the same way, so a model of them checks the decoding and the
// dot products end to end, which is what a synthetic model is for.

// rawBlocks fills dst with random blocks of type t standing for src.
func rawBlocks(t quant.Type, src []float32, dst []byte, r *rand.Rand) error {
	bs, n := t.TypeSize(), t.BlockSize()
	if _, ok := superScale[t]; !ok {
		return fmt.Errorf("synth: cannot write %v blocks", t)
	}
	vals := make([]float32, n)
	for b := 0; b*bs < len(dst); b++ {
		blk, x := dst[b*bs:(b+1)*bs], src[b*n:(b+1)*n]
		for i := range blk {
			blk[i] = byte(r.Uint32())
		}
		setScale(t, blk, quant.F32ToF16(1))
		if err := quant.Dequantize(t, blk, vals); err != nil {
			return err
		}
		want, got := rms(x), rms(vals)
		d := float32(0)
		if got > 0 {
			d = float32(want / got)
		}
		setScale(t, blk, quant.F32ToF16(d))
	}
	return nil
}

// superScale holds, for each type rawBlocks writes, the offset of its F16
// super-block scale (-1: IQ1_M's, whose four nibbles are the top ones of
// its last four 16-bit words, as ggml's iq1m_scale_t).
var superScale = map[quant.Type]int{
	quant.TypeIQ2_XXS: 0, quant.TypeIQ2_XS: 0, quant.TypeIQ2_S: 0, quant.TypeIQ3_XXS: 0,
	quant.TypeIQ1_S: 0, quant.TypeIQ1_M: -1,
}

// setScale stores the F16 scale h in block blk of type t.
func setScale(t quant.Type, blk []byte, h uint16) {
	off := superScale[t]
	if off >= 0 {
		binary.LittleEndian.PutUint16(blk[off:], h)
		return
	}
	sc := blk[len(blk)-8:]
	for i := range 4 {
		w := binary.LittleEndian.Uint16(sc[2*i:])
		w = w&0x0fff | (h>>(4*i)&0xf)<<12
		binary.LittleEndian.PutUint16(sc[2*i:], w)
	}
}

// rms returns the root mean square of x.
func rms(x []float32) float64 {
	var s float64
	for _, v := range x {
		s += float64(v) * float64(v)
	}
	return math.Sqrt(s / float64(max(1, len(x))))
}
