package quant

import (
	"math"
	"slices"
	"sync"
)

// IQ1_S quantization: ggml's quantize_row_iq1_s_impl (which needs
// importance weights), with the float arithmetic rules of
// kquants_util.go. Each group of 32 values is split exactly into three
// levels -1, 0, 1 (shifted by ±iq1Delta) by the best two boundaries of the
// sorted values; groups of 8 off the grid take their best neighbour.

// iq1sGroupMaxEps is ggml's GROUP_MAX_EPS_IQ1_S.
const iq1sGroupMaxEps float32 = 1e-12

// iq1sSearch is the search state of the IQ1 grid (values -1, 0, 1 are the
// levels 0, 1, 2), built on first use.
var iq1sSearch = sync.OnceValue(func() *iq2Search {
	return newIQ2Search(IQ1SGrid[:], 3, func(b uint8) int8 { return int8(b) + 1 })
})

// iq1Shifted are the three values of the levels with a shift of +1/8 (the
// first) and -1/8 (the second), ggml's x_p and x_m.
var iq1Shifted = [2][3]float32{
	{-1 + iq1Delta, iq1Delta, 1 + iq1Delta},
	{-1 - iq1Delta, -iq1Delta, 1 - iq1Delta},
}

// iq1Neighbour returns the neighbour of the off-grid levels L[:8] that best
// fits xb at scale with the level values xx (weighted by w), and writes its
// levels to L (iq1_find_best_neighbour2).
func (s *iq2Search) iq1Neighbour(L []int8, xb, w []float32, scale float32, xx *[3]float32) int {
	u := levels8(L)
	best, bestD2 := int(s.near[u][0]), float32(math.MaxFloat32)
	for _, j := range s.near[u] {
		var d2 float32
		for i, p := range s.grid[j] {
			q := xx[(p-1)/2]
			diff := float32(scale*q) - xb[i]
			d2 += float32(float32(w[i]*diff) * diff)
		}
		if d2 < bestD2 {
			best, bestD2 = int(j), d2
		}
	}
	for i, p := range s.grid[best] {
		L[i] = (p - 1) / 2
	}
	return best
}

// iq1Sort returns the largest magnitude of xb (as ggml's MAX folds it)
// and, unless it is below eps, the indices of xb in ascending order of
// value in idx (ok true).
func iq1Sort(xb []float32, idx []int, eps float32) (m float32, ok bool) {
	m = kqAbs(xb[0])
	for _, v := range xb[1:] {
		if a := kqAbs(v); !(m > a) {
			m = a
		}
	}
	if m < eps {
		return m, false
	}
	for j := range idx {
		idx[j] = j
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case xb[a] < xb[b]:
			return -1
		case xb[a] > xb[b]:
			return 1
		}
		return 0
	})
	return m, true
}

// iq1Split sets the levels L of the values in the order idx: 0 below i1,
// 1 below i2, 2 above; with a negative scale it mirrors them and returns
// the scale's magnitude and flip true.
func iq1Split(idx []int, i1, i2 int, scale float32, L []int8) (float32, bool) {
	for j, i := range idx {
		switch {
		case j < i1:
			L[i] = 0
		case j < i2:
			L[i] = 1
		default:
			L[i] = 2
		}
	}
	if scale >= 0 {
		return scale, false
	}
	for j := range L {
		L[j] = 2 - L[j]
	}
	return -scale, true
}

// iq1Grid moves each group of 8 levels of L onto the grid (its best
// neighbour when off it, with the level values xx(k) of group k), sets
// their grid indices, and returns the scale refitted to the grid points
// when any group moved (else scale).
func (s *iq2Search) iq1Grid(L []int8, xb, weight []float32, scale float32, xx func(k int) *[3]float32, index []int) float32 {
	allOnGrid := true
	for k := range index {
		g := s.index[levels8(L[8*k:])]
		if g < 0 {
			allOnGrid = false
			g = int32(s.iq1Neighbour(L[8*k:8*k+8], xb[8*k:], weight[8*k:], scale, xx(k)))
		}
		index[k] = int(g)
	}
	if allOnGrid {
		return scale
	}
	var sumqx, sumq2 float32
	for k, g := range index {
		for j, p := range s.grid[g] {
			w := weight[8*k+j]
			q := xx(k)[(p-1)/2]
			sumqx += float32(float32(w*q) * xb[8*k+j])
			sumq2 += float32(float32(w*q) * q)
		}
	}
	if sumqx > 0 && sumq2 > 0 {
		return sumqx / sumq2
	}
	return scale
}

// quantizeIQ1SWeighted is ggml's quantize_row_iq1_s_impl: 50 bytes per 256
// values (fp16 d, the low 8 bits of an 11-bit grid index per group of 8,
// then per group of 32 a uint16 with the indices' top 3 bits, a 3-bit
// scale and the shift's sign).
func quantizeIQ1SWeighted(src, qw []float32, dst []byte) {
	const bs = 32
	s := iq1sSearch()
	var (
		scales     [QK_K / bs]float32
		shifts     [QK_K / bs]int8
		weight     [bs]float32
		sumx, sumw [bs + 1]float32
		idx        [bs]int
		L          [bs]int8
		index      [bs / 8]int
	)
	for ibl := range len(src) / QK_K {
		x, blk := src[QK_K*ibl:QK_K*(ibl+1)], dst[50*ibl:50*(ibl+1)]
		clear(blk)
		qs, qh := blk[2:34], blk[34:50]
		sigma2 := 2 * kqMeanSquare(x)
		var maxScale float32
		for ib := range QK_K / bs {
			xb := x[bs*ib : bs*(ib+1)]
			importanceWeights(xb, qw[QK_K*ibl+bs*ib:], sigma2, weight[:])
			m, ok := iq1Sort(xb, idx[:], iq1sGroupMaxEps)
			if !ok {
				scales[ib], shifts[ib] = 0, 1
				continue
			}
			for j, i := range idx {
				sumx[j+1] = sumx[j] + float32(weight[i]*xb[i])
				sumw[j+1] = sumw[j] + weight[i]
			}
			bestScore, scale := float32(-math.MaxFloat32), m
			besti1, besti2, bestShift := -1, -1, 0
			for i1 := 0; i1 <= bs; i1++ {
				for i2 := i1; i2 <= bs; i2++ {
					for sh, xx := range iq1Shifted {
						sumqx := float32(float32((sumx[i1]-sumx[0])*xx[0])+float32((sumx[i2]-sumx[i1])*xx[1])) +
							float32((sumx[bs]-sumx[i2])*xx[2])
						sumq2 := float32(float32(float32((sumw[i1]-sumw[0])*xx[0])*xx[0])+
							float32(float32((sumw[i2]-sumw[i1])*xx[1])*xx[1])) +
							float32(float32((sumw[bs]-sumw[i2])*xx[2])*xx[2])
						if sumq2 > 0 && sumqx*sumqx > bestScore*sumq2 {
							scale = sumqx / sumq2
							bestScore = scale * sumqx
							besti1, besti2, bestShift = i1, i2, 1-2*sh
						}
					}
				}
			}
			if besti1 < 0 || besti2 < 0 || bestShift == 0 {
				scales[ib], shifts[ib] = 0, 1
				continue
			}
			scale, flip := iq1Split(idx[:], besti1, besti2, scale, L[:])
			if flip {
				bestShift = -bestShift
			}
			xx := &iq1Shifted[0]
			if bestShift != 1 {
				xx = &iq1Shifted[1]
			}
			scale = s.iq1Grid(L[:], xb, weight[:], scale, func(int) *[3]float32 { return xx }, index[:])
			var h uint16
			for k, g := range index {
				qs[bs/8*ib+k] = uint8(g)
				h |= uint16(g>>8) << (3 * k)
			}
			qh[2*ib], qh[2*ib+1] = uint8(h), uint8(h>>8)
			scales[ib], shifts[ib] = scale, int8(bestShift)
			maxScale = max(maxScale, scale)
		}
		if maxScale == 0 {
			continue
		}
		d := maxScale / 15
		storeHalf(blk, d*1.125)
		id := 1 / d
		for ib, sc := range scales {
			l := kqClamp(kqNearestInt(0.5*(float32(id*sc)-1)), 0, 7)
			if shifts[ib] == -1 {
				l |= 8
			}
			qh[2*ib+1] |= uint8(l << 4)
		}
	}
}

// iq1mGroupMaxEps is ggml's GROUP_MAX_EPS_IQ1_M.
const iq1mGroupMaxEps float32 = 1e-7

// iq1mShiftMasks are the qh bits that mark a negative shift of the first
// and the second group of 8 of each group of 16, by shift combination k
// (bit 0 of k: the second group's sign, bit 1: the first's).
var iq1mShiftMasks = [4]uint8{0x00, 0x80, 0x08, 0x88}

// iq1mShift returns the level values of group g (0 or 1) of 8 under the
// shift combination k.
func iq1mShift(k, g int) *[3]float32 {
	if g == 0 && k >= 2 || g == 1 && k%2 == 1 {
		return &iq1Shifted[1]
	}
	return &iq1Shifted[0]
}

// quantizeIQ1MWeighted is ggml's quantize_row_iq1_m_impl: 56 bytes per 256
// values (the low 8 bits of an 11-bit grid index per group of 8; per group
// of 16 the indices' top 3 bits and their shifts' signs; 3-bit scales per
// group of 16, with the fp16 super-block scale in their top nibbles). qw
// holds the importance of each value (nil: x²).
func quantizeIQ1MWeighted(src, qw []float32, dst []byte) {
	const bs = 16
	s := iq1sSearch()
	var (
		scales       [QK_K / bs]float32
		shifts       [QK_K / bs]int
		weight       [bs]float32
		idx          [bs]int
		L            [bs]int8
		index        [2]int
		sumqx, sumq2 [4]float32
	)
	weigh := func(xb []float32, off int, sigma2 float32) {
		if qw != nil {
			importanceWeights(xb, qw[off:], sigma2, weight[:])
			return
		}
		for i, v := range xb {
			weight[i] = v * v
		}
	}
	for ibl := range len(src) / QK_K {
		x, blk := src[QK_K*ibl:QK_K*(ibl+1)], dst[56*ibl:56*(ibl+1)]
		clear(blk)
		qs, qh, sc := blk[0:32], blk[32:48], blk[48:56]
		sigma2 := 2 * kqMeanSquare(x)
		var maxScale float32
		for ib := range QK_K / bs {
			xb := x[bs*ib : bs*(ib+1)]
			weigh(xb, QK_K*ibl+bs*ib, sigma2)
			m, ok := iq1Sort(xb, idx[:], iq1mGroupMaxEps)
			if !ok {
				scales[ib], shifts[ib] = 0, 0
				continue
			}
			bestScore, scale := float32(-math.MaxFloat32), m
			besti1, besti2, bestK := -1, -1, -1
			for i1 := 0; i1 <= bs; i1++ {
				for i2 := i1; i2 <= bs; i2++ {
					sumqx, sumq2 = [4]float32{}, [4]float32{}
					for j, i := range idx {
						lv := 2
						switch {
						case j < i1:
							lv = 0
						case j < i2:
							lv = 1
						}
						w, v := weight[i], xb[i]
						p, n := iq1Shifted[0][lv], iq1Shifted[1][lv]
						px, nx := float32(float32(w*p)*v), float32(float32(w*n)*v)
						p2, n2 := float32(float32(w*p)*p), float32(float32(w*n)*n)
						if i < bs/2 {
							sumqx[0] += px
							sumqx[1] += px
							sumqx[2] += nx
							sumqx[3] += nx
							sumq2[0] += p2
							sumq2[1] += p2
							sumq2[2] += n2
							sumq2[3] += n2
						} else {
							sumqx[0] += px
							sumqx[2] += px
							sumqx[1] += nx
							sumqx[3] += nx
							sumq2[0] += p2
							sumq2[2] += p2
							sumq2[1] += n2
							sumq2[3] += n2
						}
					}
					for k := range 4 {
						if sumq2[k] > 0 && sumqx[k]*sumqx[k] > bestScore*sumq2[k] {
							scale = sumqx[k] / sumq2[k]
							bestScore = scale * sumqx[k]
							besti1, besti2, bestK = i1, i2, k
						}
					}
				}
			}
			if besti1 < 0 || besti2 < 0 || bestK < 0 {
				scales[ib], shifts[ib] = 0, 0
				continue
			}
			scale, flip := iq1Split(idx[:], besti1, besti2, scale, L[:])
			if flip {
				bestK = 3 - bestK
			}
			scale = s.iq1Grid(L[:], xb, weight[:], scale, func(k int) *[3]float32 { return iq1mShift(bestK, k) }, index[:])
			qs[2*ib], qs[2*ib+1] = uint8(index[0]), uint8(index[1])
			qh[ib] = uint8(index[0]>>8) | uint8(index[1]>>8)<<4
			scales[ib], shifts[ib] = scale, bestK
			maxScale = max(maxScale, scale)
		}
		if maxScale == 0 {
			continue
		}
		var sc16 [4]uint16
		d := maxScale / 15
		id := 1 / d
		var sx, s2 float32
		for ib := range QK_K / bs {
			l := kqClamp(kqNearestInt(0.5*(float32(id*scales[ib])-1)), 0, 7)
			sc16[ib/4] |= uint16(l) << (3 * (ib % 4))
			qh[ib] |= iq1mShiftMasks[shifts[ib]]
			xb := x[bs*ib : bs*(ib+1)]
			weigh(xb, QK_K*ibl+bs*ib, sigma2)
			for k := range bs / 8 {
				xx := iq1mShift(shifts[ib], k)
				g := int(qs[2*ib+k]) | int(uint16(qh[ib])<<(8-4*k))&0x700
				for j, p := range s.grid[g] {
					w := weight[8*k+j]
					q := xx[(p-1)/2] * float32(2*l+1)
					sx += float32(float32(w*q) * xb[8*k+j])
					s2 += float32(float32(w*q) * q)
				}
			}
		}
		if s2 > 0 {
			d = sx / s2
		}
		h := F32ToF16(d * 1.1125)
		sc16[0] |= (h & 0x000f) << 12
		sc16[1] |= (h & 0x00f0) << 8
		sc16[2] |= (h & 0x0f00) << 4
		sc16[3] |= h & 0xf000
		for i, v := range sc16 {
			sc[2*i], sc[2*i+1] = uint8(v), uint8(v>>8)
		}
	}
}
