package quant

import (
	"encoding/binary"
	"sync"
)

// IQ3_XXS quantization: ggml's quantize_row_iq3_xxs_impl for its
// 256-point grid, with the float arithmetic rules of kquants_util.go.
// Like IQ3_S, each group of 4 magnitudes must be a grid point (iq3Search);
// the signs are IQ2_XXS's, 7 bits per 8 values with an even count.

// iq3xxsGroupMaxEps is ggml's GROUP_MAX_EPS_IQ3_XXS: a group of 32 whose
// largest magnitude is below it is stored as zero.
const iq3xxsGroupMaxEps float32 = 1e-8

// iq3xxsSearch is the search state of the IQ3_XXS grid, built on first
// use. The decoding grid's magnitudes 4, 12, ... 52, 62 are the levels
// 0..7 (m>>3), which the search places at 2l+1.
var iq3xxsSearch = sync.OnceValue(func() *iq3Search {
	grid := make([]uint32, len(IQ3XXSGrid))
	for j, g := range IQ3XXSGrid {
		for k := range 4 {
			l := g >> (8*k + 3) & 7
			grid[j] |= (2*l + 1) << (8 * k)
		}
	}
	return newIQ3Search(grid, 2)
})

// quantizeIQ3XXSWeighted is ggml's quantize_row_iq3_xxs_impl: 98 bytes per
// 256 values (fp16 d, 64 grid indices of 4 magnitudes, then per group of
// 32 a uint32 of four 7-bit sign sets and a 4-bit scale). qw holds the
// importance of each value (nil: x²).
func quantizeIQ3XXSWeighted(src, qw []float32, dst []byte) {
	const kMaxQ = 8
	s := iq3xxsSearch()
	var (
		scales             [QK_K / 32]float32
		weight, xval, waux [32]float32
		L, Laux            [32]int8
		onGrid, onGridA    [8]bool
		signs              [4]uint8
	)
	for ibl := range len(src) / QK_K {
		x, blk := src[QK_K*ibl:QK_K*(ibl+1)], dst[98*ibl:98*(ibl+1)]
		clear(blk)
		qs, ss := blk[2:66], blk[66:98]
		sigma2 := 2 * kqMeanSquare(x)
		var maxScale float32
		for ib := range QK_K / 32 {
			xb := x[32*ib : 32*ib+32]
			var w []float32
			if qw != nil {
				w = qw[QK_K*ibl+32*ib:]
			}
			iqGroupWeights(xb, w, sigma2, 0, weight[:], waux[:])
			m := iqSignedGroup(xb, weight[:], xval[:], signs[:])
			clear(L[:])
			if m < iq3xxsGroupMaxEps {
				scales[ib] = 0
				continue
			}
			var best float32
			scale := m / (2*kMaxQ - 1)
			onGrid = [8]bool{true, true, true, true, true, true, true, true}
			for is := -15; is <= 15; is++ {
				id := (2*kMaxQ - 1 + float32(float32(is)*0.2)) / m
				thisScale := 1 / id
				for k := range 8 {
					for i := 4 * k; i < 4*k+4; i++ {
						l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
						Laux[i] = int8(kqClamp(l, 0, kMaxQ-1))
					}
					u := levels4(Laux[4*k:])
					onGridA[k] = s.index[u] >= 0
					if !onGridA[k] {
						s.bestNeighbour(u, xval[4*k:4*k+4], waux[4*k:4*k+4], thisScale, Laux[4*k:4*k+4])
					}
				}
				sumqx, sumq2 := iq2Fit(weight[:], xval[:], Laux[:])
				if sumq2 > 0 && sumqx*sumqx > best*sumq2 {
					scale = sumqx / sumq2
					best = scale * sumqx
					L, onGrid = Laux, onGridA
				}
			}
			notOnGrid := false
			for _, on := range onGrid {
				notOnGrid = notOnGrid || !on
			}
			if notOnGrid && scale > 0 {
				id := 1 / scale
				for k := range 8 {
					if onGrid[k] {
						continue
					}
					for i := 4 * k; i < 4*k+4; i++ {
						l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
						L[i] = int8(kqClamp(l, 0, kMaxQ-1))
					}
					if u := levels4(L[4*k:]); s.index[u] < 0 {
						s.bestNeighbour(u, xval[4*k:4*k+4], waux[4*k:4*k+4], scale, L[4*k:4*k+4])
					}
				}
				if sumqx, sumq2 := iq2Fit(weight[:], xval[:], L[:]); sumq2 > 0 {
					scale = sumqx / sumq2
				}
			}
			if scale < 0 {
				// Not reached for finite input, kept as in ggml.
				scale = -scale
				for k := range signs {
					signs[k] = ^signs[k] & 127
				}
			}
			for k := range 8 {
				g := s.index[levels4(L[4*k:])]
				if g < 0 { // not reached (ggml aborts): the nearest point
					g = int32(s.near[levels4(L[4*k:])][0])
				}
				qs[8*ib+k] = uint8(g)
			}
			sg := uint32(signs[0]) | uint32(signs[1])<<7 | uint32(signs[2])<<14 | uint32(signs[3])<<21
			binary.LittleEndian.PutUint32(ss[4*ib:], sg)
			scales[ib] = scale
			maxScale = max(maxScale, scale)
		}
		if maxScale == 0 {
			clear(blk)
			continue
		}
		d := maxScale / 31
		storeHalf(blk, d*1.0125)
		id := 1 / d
		for ib, sc := range scales {
			l := kqClamp(kqNearestInt(0.5*(float32(id*sc)-1)), 0, 15)
			v := binary.LittleEndian.Uint32(ss[4*ib:]) | uint32(l)<<28
			binary.LittleEndian.PutUint32(ss[4*ib:], v)
		}
	}
}
