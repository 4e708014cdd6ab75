package quant

import (
	"encoding/binary"
	"math/bits"
)

// The IQ2 and IQ3 formats store each group of 8 (IQ2) or 4 (IQ3) elements
// as an index into a grid of unsigned magnitude vectors (iqgrid.go), plus
// one sign bit per element, and an odd scale ls = 2s+1 (s a 4-bit field)
// per group of 16 or 32 elements. Element i of a super-block is
//
//	value = d · ls · q · GridScale(t)
//
// with q the signed grid magnitude. Where a group's eight sign bits are
// stored as seven, the eighth makes the number of negative elements even
// (IQSigns).
//
// IQ2_XXS: 66 bytes per 256 elements.
//
//	d  float16
//	qs [64]byte  per 32 elements: four grid indices (bytes 0..3), then a
//	             uint32 of four 7-bit sign fields and the 4-bit scale s in
//	             bits 28..31
//
// IQ2_XS: 74 bytes.
//
//	d      float16
//	qs     [32]uint16  per 8 elements: grid index (9 bits), 7-bit signs
//	scales [8]byte     per 32 elements: s of the first 16 (low nibble) and
//	                   of the last 16 (high nibble)
//
// IQ2_S: 82 bytes.
//
//	d      float16
//	qs     [32]byte  low 8 bits of each group of 8's grid index
//	signs  [32]byte  the 8 sign bits of each group of 8
//	qh     [8]byte   per 32 elements: bits 2l, 2l+1 are bits 8, 9 of group
//	                 l's index
//	scales [8]byte   as in IQ2_XS
//
// IQ3_XXS: 98 bytes.
//
//	d      float16
//	qs     [64]byte  grid index of each group of 4
//	signs  [32]byte  per 32 elements: a uint32 of four 7-bit sign fields
//	                 (each for 8 elements) and s in bits 28..31
//
// IQ3_S: 110 bytes.
//
//	d      float16
//	qs     [64]byte  low 8 bits of each group of 4's grid index
//	qh     [8]byte   per 32 elements: bit k is bit 8 of group k's index
//	signs  [32]byte  the 8 sign bits of each group of 8
//	scales [4]byte   per 64 elements: s of the first 32 (low nibble) and
//	                 of the last 32 (high nibble)

// GridScale returns the constant factor of the IQ2 and IQ3 types' values
// (see DecodeIQ): 1/8 for IQ2_XXS, IQ2_XS and IQ2_S, 1/4 for IQ3_XXS, 1
// for IQ3_S, and 0 for other types.
func GridScale(t Type) float32 {
	switch t {
	case TypeIQ2_XXS, TypeIQ2_XS, TypeIQ2_S:
		return 0.125
	case TypeIQ3_XXS:
		return 0.25
	case TypeIQ3_S:
		return 1
	}
	return 0
}

// DecodeIQ decodes the super-block blk of the IQ2 or IQ3 type t into the
// signed grid magnitudes q (QK_K of them) and the odd scales sc (one per
// group of 16 elements), and returns the block's scale d: element i is
// d·sc[i/16]·q[i]·GridScale(t). blk must hold t.TypeSize() bytes; for
// other types q and sc are left alone and d is 0.
func DecodeIQ(t Type, blk []byte, q []int8, sc []int32) float32 {
	q, sc = q[:QK_K], sc[:QK_K/16]
	switch t {
	case TypeIQ2_XXS:
		for g := range QK_K / 32 {
			idx, aux := blk[2+8*g:6+8*g], binary.LittleEndian.Uint32(blk[6+8*g:])
			for l, i := range idx {
				iqPut8(q[32*g+8*l:], IQ2XXSGrid[i], IQSigns(aux>>(7*l)))
			}
			sc[2*g], sc[2*g+1] = iqScale(aux>>28), iqScale(aux>>28)
		}
	case TypeIQ2_XS:
		for k := range QK_K / 8 {
			v := binary.LittleEndian.Uint16(blk[2+2*k:])
			iqPut8(q[8*k:], IQ2XSGrid[v&511], IQSigns(uint32(v>>9)))
		}
		iqNibbleScales(blk[66:74], sc)
	case TypeIQ2_S:
		qs, signs, qh := blk[2:34], blk[34:66], blk[66:74]
		for k := range QK_K / 8 {
			i := int(qs[k]) | int(qh[k/4])<<(8-2*(k%4))&0x300
			iqPut8(q[8*k:], IQ2SGrid[i], signs[k])
		}
		iqNibbleScales(blk[74:82], sc)
	case TypeIQ3_XXS:
		qs := blk[2:66]
		for g := range QK_K / 32 {
			aux := binary.LittleEndian.Uint32(blk[66+4*g:])
			for l := range 4 {
				k := 4*g + l
				grid := uint64(IQ3XXSGrid[qs[2*k]]) | uint64(IQ3XXSGrid[qs[2*k+1]])<<32
				iqPut8(q[8*k:], grid, IQSigns(aux>>(7*l)))
			}
			sc[2*g], sc[2*g+1] = iqScale(aux>>28), iqScale(aux>>28)
		}
	case TypeIQ3_S:
		qs, qh, signs, scales := blk[2:66], blk[66:74], blk[74:106], blk[106:110]
		for k := range QK_K / 8 {
			h := int(qh[k/4]) >> (2 * (k % 4))
			i1, i2 := int(qs[2*k])|h&1<<8, int(qs[2*k+1])|h&2<<7
			iqPut8(q[8*k:], uint64(IQ3SGrid[i1])|uint64(IQ3SGrid[i2])<<32, signs[k])
		}
		for g := range QK_K / 32 {
			s := iqScale(uint32(scales[g/2]) >> (4 * (g % 2)))
			sc[2*g], sc[2*g+1] = s, s
		}
	default:
		return 0
	}
	return loadHalf(blk)
}

// IQSigns expands the 7-bit sign field of a group of 8 elements of
// IQ2_XXS, IQ2_XS or IQ3_XXS (the low seven bits of f) to the group's 8
// sign bits (bit j set: element j is negative): bit 7 makes the count of
// set bits even. ggml keeps the 128 results in the table ksigns_iq2xs.
func IQSigns(f uint32) uint8 {
	s := uint8(f & 127)
	return s | uint8(bits.OnesCount8(s)&1)<<7
}

// iqScale returns the odd scale 2s+1 of the 4-bit field s in the low
// nibble of f.
func iqScale(f uint32) int32 { return 2*int32(f&15) + 1 }

// iqNibbleScales decodes the eight bytes of IQ2_XS and IQ2_S scales into
// the odd scales of the 16 groups of 16.
func iqNibbleScales(scales []byte, sc []int32) {
	for g, b := range scales {
		sc[2*g], sc[2*g+1] = iqScale(uint32(b)), iqScale(uint32(b>>4))
	}
}

// iqPut8 writes 8 elements: the magnitudes in the bytes of grid (the first
// in the lowest), negated where the matching bit of signs is set.
func iqPut8(q []int8, grid uint64, signs uint8) {
	for j := range 8 {
		v := int8(grid >> (8 * j))
		if signs>>j&1 != 0 {
			v = -v
		}
		q[j] = v
	}
}

// dequantizeIQ decodes the IQ2 and IQ3 types with ggml's float operations:
// each group's scale d·(s+½)·¼ (IQ2), d·(s+½)·½ (IQ3_XXS) or d·(2s+1)
// (IQ3_S), times each signed magnitude.
func dequantizeIQ(t Type) func(src []byte, dst []float32) {
	bs := t.TypeSize()
	return func(src []byte, dst []float32) {
		var (
			q  [QK_K]int8
			sc [QK_K / 16]int32
		)
		for b := range len(dst) / QK_K {
			d := DecodeIQ(t, src[bs*b:bs*(b+1)], q[:], sc[:])
			y := dst[QK_K*b : QK_K*(b+1)]
			for g, ls := range sc {
				half := float32(ls-1) / 2 // s, exactly
				var dl float32
				switch t {
				case TypeIQ3_S:
					dl = d * float32(ls)
				case TypeIQ3_XXS:
					dl = d * (0.5 + half) * 0.5
				default:
					dl = d * (0.5 + half) * 0.25
				}
				for j := 16 * g; j < 16*g+16; j++ {
					y[j] = dl * float32(q[j])
				}
			}
		}
	}
}
