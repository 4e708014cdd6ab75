package quant

import (
	"encoding/binary"
	"fmt"
)

// The 1-bit formats store groups of eight elements as an 11-bit index into
// IQ1SGrid (eight values in {-1, 0, 1}), shifted by ±1/8 (iq1Delta) and
// scaled by an odd 3-bit multiple 2s+1 of the super-block scale:
// value = d·(2s+1)·(grid + δ).
//
// IQ1_S: 50 bytes per 256 elements, in eight groups of 32.
//
//	d  float16    super-block scale
//	qs [32]byte   low eight bits of the grid index of each group of 8
//	qh [8]uint16  per group of 32: bits 3l..3l+2 the high index bits of
//	              its group of 8 number l, bits 12-14 s, bit 15 δ's sign
//
// IQ1_M: 56 bytes per 256 elements.
//
//	qs     [32]byte  low eight bits of each grid index
//	qh     [16]byte  per pair of groups of 8: bits 0-2 and 4-6 the high
//	                 index bits of the first and second, bits 3 and 7
//	                 their δ's signs
//	scales [8]byte   four uint16: bits 3k..3k+2 of scales[i] the s of the
//	                 group of 16 number 4i+k (k < 4); the top four bits
//	                 of the four, high word last, the float16 scale d

// iq1Delta is the shift of the 1-bit formats (ggml's IQ1S_DELTA and
// IQ1M_DELTA).
const iq1Delta = 0.125

// IQ1Block is a decoded IQ1_S or IQ1_M super-block: value i is
// D·Scale[i/16]·(Grid[i] + Sign[i/8]·1/8).
type IQ1Block struct {
	D     float32
	Grid  [QK_K]int8
	Scale [QK_K / 16]int32 // 2s+1: 1, 3, ..., 15
	Sign  [QK_K / 8]int8   // δ's sign, ±1
}

// DecodeIQ1 decodes one IQ1_S or IQ1_M block (50 or 56 bytes) into b.
func DecodeIQ1(t Type, blk []byte, b *IQ1Block) {
	sign := func(neg bool) int8 {
		if neg {
			return -1
		}
		return 1
	}
	grid := func(g int, idx uint16) {
		for j := range 8 {
			b.Grid[8*g+j] = int8(IQ1SGrid[idx] >> (8 * j))
		}
	}
	if t == TypeIQ1_S {
		b.D = loadHalf(blk)
		for ib := range QK_K / 32 {
			qh := binary.LittleEndian.Uint16(blk[34+2*ib:])
			s := int32(qh>>12&7)*2 + 1
			b.Scale[2*ib], b.Scale[2*ib+1] = s, s
			for l := range 4 {
				grid(4*ib+l, uint16(blk[2+4*ib+l])|(qh>>(3*l)&7)<<8)
				b.Sign[4*ib+l] = sign(qh&0x8000 != 0)
			}
		}
		return
	}
	var sc [4]uint16
	for i := range sc {
		sc[i] = binary.LittleEndian.Uint16(blk[48+2*i:])
	}
	b.D = F16ToF32(sc[0]>>12 | sc[1]>>8&0x00f0 | sc[2]>>4&0x0f00 | sc[3]&0xf000)
	for g := range QK_K / 16 {
		b.Scale[g] = int32(sc[g/4]>>(3*(g%4))&7)*2 + 1
	}
	for g := range QK_K / 8 {
		h := uint16(blk[32+g/2]) >> (4 * (g % 2))
		grid(g, uint16(blk[g])|(h&7)<<8)
		b.Sign[g] = sign(h&8 != 0)
	}
}

func dequantizeIQ1_S(src []byte, dst []float32) { dequantizeIQ1(TypeIQ1_S, src, dst) }

func dequantizeIQ1_M(src []byte, dst []float32) { dequantizeIQ1(TypeIQ1_M, src, dst) }

// dequantizeIQ1 decodes as ggml's dequantize_row_iq1_s and _iq1_m do:
// dl = d·(2s+1), then dl·(grid + δ).
func dequantizeIQ1(t Type, src []byte, dst []float32) {
	bs := t.TypeSize()
	var b IQ1Block
	for i := range len(dst) / QK_K {
		DecodeIQ1(t, src[bs*i:bs*(i+1)], &b)
		y := dst[QK_K*i : QK_K*(i+1)]
		for e := range y {
			dl := b.D * float32(b.Scale[e/16])
			y[e] = dl * (float32(b.Grid[e]) + float32(b.Sign[e/8])*iq1Delta)
		}
	}
}

// errNeedsImatrix is the error of quantizing to a type whose ggml
// quantizer requires an importance matrix, which Quantize does not take.
func errNeedsImatrix(t Type) error {
	return fmt.Errorf("quant: quantizing to %v needs an importance matrix", t)
}
