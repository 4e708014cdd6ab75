package quant

import (
	"encoding/binary"
	"sync"
)

// IQ2_XXS quantization: ggml's quantize_row_iq2_xxs_impl (which needs
// importance weights), with the float arithmetic rules of
// kquants_util.go. Each group of 8 magnitudes must be a point of the
// grid; a group that rounds off it takes the best of the grid points
// nearest to it (iq2Search).

// iq2Search is ggml's search state for a grid of 8-element points with
// coordinates 2l+1, l in [0, 3) (iq2xs_init_impl): the grid, the grid
// index of each combination of levels on it, and for those off it the
// points nearest to them.
type iq2Search struct {
	// grid holds the points as 2l+1 per coordinate, l the level.
	grid [][8]int8
	// index holds, for the combination u = Σ l_k<<2k, its grid index, or
	// -1 when u is off the grid.
	index []int32
	// near holds, for u off the grid, the grid points at the nWant
	// smallest squared distances from u, nearest first and by grid index
	// within a distance.
	near [][]uint16
}

// iq2MapSize is the number of level combinations the search maps (ggml's
// kmap_size): every u whose 2-bit levels are at most 2.
const iq2MapSize = 43692

// iq2Level returns the level l of a magnitude of the IQ2 grids (the bytes
// 0x08, 0x19, 0x2b, 0x3e of ggml's iq2xxs_grid ... stand for the levels 0
// to 3, which ggml's search places at 2l+1).
func iq2Level(m uint8) int8 {
	switch m {
	case 0x08:
		return 0
	case 0x19:
		return 1
	case 0x2b:
		return 2
	}
	return 3
}

// newIQ2Search builds the search state of an IQ2 (or IQ1) grid of 8 bytes
// per point, each byte's level given by level, with neighbours at nWant
// distances.
func newIQ2Search(grid []uint64, nWant int, level func(uint8) int8) *iq2Search {
	s := &iq2Search{grid: make([][8]int8, len(grid)), index: make([]int32, iq2MapSize), near: make([][]uint16, iq2MapSize)}
	for i := range s.index {
		s.index[i] = -1
	}
	for j, g := range grid {
		u := 0
		for k := range 8 {
			l := level(uint8(g >> (8 * k)))
			s.grid[j][k] = 2*l + 1
			u |= int(l) << (2 * k)
		}
		s.index[u] = int32(j)
	}
	d2 := make([]int, len(grid))
	for u := range s.index {
		if s.index[u] >= 0 {
			continue
		}
		for j, p := range s.grid {
			d2[j] = 0
			for k := range 8 {
				d := int(p[k]) - (2*(u>>(2*k)&3) + 1)
				d2[j] += d * d
			}
		}
		s.near[u] = nearestPoints(d2, nWant)
	}
	return s
}

// iq2xxsSearch is the search state of the IQ2_XXS grid, built on first
// use.
var iq2xxsSearch = sync.OnceValue(func() *iq2Search { return newIQ2Search(IQ2XXSGrid[:], 2, iq2Level) })

// levels8 returns the combination of the eight levels of L.
func levels8(L []int8) int {
	u := 0
	for i, l := range L[:8] {
		u |= int(l) << (2 * i)
	}
	return u
}

// lookup returns the grid index of the levels L[:8], replacing them with
// those of the best neighbour (iq2_find_best_neighbour: the least error
// weighted by w against xval at scale, the first on ties) when they are
// off the grid.
func (s *iq2Search) lookup(L []int8, xval, w []float32, scale float32) int {
	u := levels8(L)
	if u >= len(s.index) {
		u = len(s.index) - 1 // levels out of range (not reached): clamp
	}
	if g := s.index[u]; g >= 0 {
		return int(g)
	}
	best := bestPoint(s.near[u], func(j int) []int8 { return s.grid[j][:] }, xval, w, scale)
	for i, q := range s.grid[best] {
		L[i] = (q - 1) / 2
	}
	return best
}

// iq2Signs takes the magnitudes of the 8 values xb into xval and returns
// their sign bits, with an even number of them set: where the count is
// odd, the value of least weighted square keeps its sign but its
// magnitude is negated (ggml's IQ2/IQ3_XXS sign handling; the eighth sign
// is then implied by the other seven).
func iq2Signs(xb, w, xval []float32) uint8 {
	var s uint8
	nflip := 0
	for i, v := range xb[:8] {
		if v >= 0 {
			xval[i] = v
		} else {
			xval[i] = -v
			s |= 1 << i
			nflip++
		}
	}
	if nflip%2 == 1 {
		imin, minv := 0, float32(w[0]*xb[0])*xb[0]
		for i := 1; i < 8; i++ {
			if a := float32(w[i]*xb[i]) * xb[i]; a < minv {
				minv, imin = a, i
			}
		}
		xval[imin] = -xval[imin]
		s ^= 1 << imin
	}
	return s
}

// iqSignedGroup takes the magnitudes of xb into xval and their 7-bit sign
// sets, one per 8 values, into signs (iq2Signs, weighted by weight), and
// returns the largest magnitude.
func iqSignedGroup(xb, weight, xval []float32, signs []uint8) float32 {
	for k := range signs {
		signs[k] = iq2Signs(xb[8*k:], weight[8*k:], xval[8*k:]) & 127
	}
	return iqMax(xval[:len(xb)])
}

// iqMax returns the largest of xval as ggml's MAX folds it (a NaN is
// passed over only when it comes first).
func iqMax(xval []float32) float32 {
	m := xval[0]
	for _, v := range xval[1:] {
		if !(m > v) {
			m = v
		}
	}
	return m
}

// iqGroupWeights sets the weights of the group xb: qw·sqrt(sigma2 + x²)
// under the importance weights qw, or floor + x² without them; and their
// square roots in waux.
func iqGroupWeights(xb, qw []float32, sigma2, floor float32, weight, waux []float32) {
	if qw != nil {
		importanceWeights(xb, qw, sigma2, weight)
	} else {
		for i, v := range xb {
			weight[i] = floor + float32(v*v)
		}
	}
	for i, w := range weight[:len(xb)] {
		waux[i] = kqSqrt(w)
	}
}

// iq2Fit returns the weighted sums Σw·x·q and Σw·q² of the magnitudes
// xval against the levels L (q = 2l+1) that give their best scale.
func iq2Fit(w, xval []float32, L []int8) (sumqx, sumq2 float32) {
	for i, l := range L {
		q := float32(2*int32(l) + 1)
		sumqx += float32(float32(w[i]*xval[i]) * q)
		sumq2 += float32(float32(w[i]*q) * q)
	}
	return sumqx, sumq2
}

// quantizeIQ2XXSWeighted is ggml's quantize_row_iq2_xxs_impl: 66 bytes per
// 256 values (fp16 d, then per group of 32 two uint32s: four 8-bit grid
// indices, and four 7-bit sign sets with the 4-bit scale on top).
func quantizeIQ2XXSWeighted(src, qw []float32, dst []byte) {
	const kMaxQ = 3
	s := iq2xxsSearch()
	var (
		scales             [QK_K / 32]float32
		weight, xval, waux [32]float32
		L, Laux            [32]int8
		lu                 [32]uint8
		signs              [4]uint8
		q2                 [2 * QK_K / 32]uint32
	)
	for ibl := range len(src) / QK_K {
		x, blk := src[QK_K*ibl:QK_K*(ibl+1)], dst[66*ibl:66*(ibl+1)]
		clear(blk)
		clear(q2[:])
		sigma2 := kqMeanSquare(x)
		var maxScale float32
		for ib := range QK_K / 32 {
			xb := x[32*ib : 32*ib+32]
			iqGroupWeights(xb, qw[QK_K*ibl+32*ib:], sigma2, 0, weight[:], waux[:])
			if m := iqSignedGroup(xb, weight[:], xval[:], signs[:]); m < kqGroupMaxEps {
				scales[ib] = 0
				clear(L[:])
				continue
			}
			scale := makeQPQuants(xval[:], kMaxQ+1, lu[:], weight[:])
			for i, v := range lu {
				L[i] = int8(v)
			}
			effMax := scale * kMaxQ
			if effMax <= 0 {
				scales[ib] = 0
				clear(L[:])
				continue
			}
			var best float32
			for is := -6; is <= 6; is++ {
				id := (2*kMaxQ - 1 + float32(float32(is)*0.1)) / effMax
				thisScale := 1 / id
				for k := range 4 {
					for i := 8 * k; i < 8*k+8; i++ {
						l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
						Laux[i] = int8(kqClamp(l, 0, kMaxQ-1))
					}
					s.lookup(Laux[8*k:8*k+8], xval[8*k:8*k+8], waux[8*k:8*k+8], thisScale)
				}
				sumqx, sumq2 := iq2Fit(weight[:], xval[:], Laux[:])
				if sumq2 > 0 && sumqx*sumqx > best*sumq2 {
					scale = sumqx / sumq2
					best = scale * sumqx
					L = Laux
				}
			}
			if scale > 0 {
				id := 1 / scale
				for k := range 4 {
					for i := 8 * k; i < 8*k+8; i++ {
						l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
						L[i] = int8(kqClamp(l, 0, kMaxQ-1))
					}
					s.lookup(L[8*k:8*k+8], xval[8*k:8*k+8], waux[8*k:8*k+8], scale)
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
			for k := range 4 {
				g := s.lookup(L[8*k:8*k+8], xval[8*k:8*k+8], waux[8*k:8*k+8], scale)
				q2[2*ib] |= uint32(g) << (8 * k)
				q2[2*ib+1] |= uint32(signs[k]) << (7 * k)
			}
			scales[ib] = scale
			maxScale = max(maxScale, scale)
		}
		if maxScale == 0 {
			continue
		}
		d := maxScale / 31
		storeHalf(blk, d)
		id := 1 / d
		for ib, sc := range scales {
			l := kqClamp(kqNearestInt(0.5*(float32(id*sc)-1)), 0, 15)
			q2[2*ib+1] |= uint32(l) << 28
		}
		for j, v := range q2 {
			binary.LittleEndian.PutUint32(blk[2+4*j:], v)
		}
	}
}

// iq2xsSearch is the search state of the IQ2_XS grid, built on first use.
var iq2xsSearch = sync.OnceValue(func() *iq2Search { return newIQ2Search(IQ2XSGrid[:], 2, iq2Level) })

// iq2Fit16 finds the scale and the grid points of 16 magnitudes xval (two
// groups of 8) under the weights weight (waux their roots), as ggml's
// IQ2_XS and IQ2_S quantizers do: 19 trial scales around max/5, the best
// fit's off-grid groups moved to their best neighbours at its scale, and
// a final least-squares scale. The levels go to L. It returns 0 for
// magnitudes below eps.
func iq2Fit16(s *iq2Search, weight, xval, waux *[16]float32, L *[16]int8, eps float32) float32 {
	const kMaxQ = 3
	var (
		Laux            [16]int8
		onGrid, onGridA [2]bool
	)
	m := iqMax(xval[:])
	clear(L[:])
	if m < eps {
		return 0
	}
	var best float32
	scale := m / (2*kMaxQ - 1)
	onGrid = [2]bool{true, true}
	for is := -9; is <= 9; is++ {
		id := (2*kMaxQ - 1 + float32(float32(is)*0.1)) / m
		thisScale := 1 / id
		for k := range 2 {
			for i := 8 * k; i < 8*k+8; i++ {
				l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
				Laux[i] = int8(kqClamp(l, 0, kMaxQ-1))
			}
			onGridA[k] = s.index[levels8(Laux[8*k:])] >= 0
			s.lookup(Laux[8*k:8*k+8], xval[8*k:8*k+8], waux[8*k:8*k+8], thisScale)
		}
		sumqx, sumq2 := iq2Fit(weight[:], xval[:], Laux[:])
		if sumq2 > 0 && sumqx*sumqx > best*sumq2 {
			scale = sumqx / sumq2
			best = scale * sumqx
			*L, onGrid = Laux, onGridA
		}
	}
	if (!onGrid[0] || !onGrid[1]) && scale > 0 {
		id := 1 / scale
		for k := range 2 {
			if onGrid[k] {
				continue
			}
			for i := 8 * k; i < 8*k+8; i++ {
				l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
				L[i] = int8(kqClamp(l, 0, kMaxQ-1))
			}
			s.lookup(L[8*k:8*k+8], xval[8*k:8*k+8], waux[8*k:8*k+8], scale)
		}
		if sumqx, sumq2 := iq2Fit(weight[:], xval[:], L[:]); sumq2 > 0 {
			scale = sumqx / sumq2
		}
	}
	return scale
}

// iq2Scales4 codes the group scales on 4 bits relative to the largest,
// two to a byte in sc, and returns the super-block scale d (ggml's IQ2
// and IQ3 scale coding).
func iq2Scales4(scales []float32, maxScale float32, sc []byte) float32 {
	d := maxScale / 31
	id := 1 / d
	for ib, v := range scales {
		l := kqClamp(kqNearestInt(0.5*(float32(id*v)-1)), 0, 15)
		sc[ib/2] |= uint8(l) << (4 * (ib % 2))
	}
	return d
}

// quantizeIQ2XSWeighted is ggml's quantize_row_iq2_xs_impl: 74 bytes per
// 256 values (fp16 d, a uint16 per group of 8 holding a 9-bit grid index
// and 7 sign bits, then a 4-bit scale per 16 values).
func quantizeIQ2XSWeighted(src, qw []float32, dst []byte) {
	s := iq2xsSearch()
	var (
		scales             [QK_K / 16]float32
		weight, xval, waux [16]float32
		L                  [16]int8
		signs              [2]uint8
	)
	for ibl := range len(src) / QK_K {
		x, blk := src[QK_K*ibl:QK_K*(ibl+1)], dst[74*ibl:74*(ibl+1)]
		clear(blk)
		sigma2 := kqMeanSquare(x)
		var maxScale float32
		for ib := range QK_K / 16 {
			xb := x[16*ib : 16*ib+16]
			iqGroupWeights(xb, qw[QK_K*ibl+16*ib:], sigma2, 0, weight[:], waux[:])
			iqSignedGroup(xb, weight[:], xval[:], signs[:])
			scale := iq2Fit16(s, &weight, &xval, &waux, &L, kqGroupMaxEps)
			scales[ib] = scale
			if scale == 0 {
				continue
			}
			if scale < 0 {
				// Not reached for finite input, kept as in ggml.
				scale = -scale
				for k := range signs {
					signs[k] = ^signs[k] & 127
				}
			}
			for k := range 2 {
				g := s.lookup(L[8*k:8*k+8], xval[8*k:8*k+8], waux[8*k:8*k+8], scale)
				binary.LittleEndian.PutUint16(blk[2+2*(2*ib+k):], uint16(g)|uint16(signs[k])<<9)
			}
			scales[ib] = scale
			maxScale = max(maxScale, scale)
		}
		if maxScale == 0 {
			clear(blk)
			continue
		}
		storeHalf(blk, iq2Scales4(scales[:], maxScale, blk[66:74]))
	}
}

// iq2sSearch is the search state of the IQ2_S grid, built on first use.
var iq2sSearch = sync.OnceValue(func() *iq2Search { return newIQ2Search(IQ2SGrid[:], 1, iq2Level) })

// iq2sGroupMaxEps is ggml's GROUP_MAX_EPS_IQ2_S.
const iq2sGroupMaxEps float32 = 1e-8

// quantizeIQ2SWeighted is ggml's quantize_row_iq2_s_impl: 82 bytes per 256
// values (fp16 d; the low 8 bits of a 10-bit grid index per group of 8,
// then 8 sign bits per group; the indices' top 2 bits; a 4-bit scale per
// 16 values). qw holds the importance of each value (nil: 0.25·sigma2 +
// x²).
func quantizeIQ2SWeighted(src, qw []float32, dst []byte) {
	s := iq2sSearch()
	var (
		scales             [QK_K / 16]float32
		weight, xval, waux [16]float32
		L                  [16]int8
		signs              [2]uint8
	)
	for ibl := range len(src) / QK_K {
		x, blk := src[QK_K*ibl:QK_K*(ibl+1)], dst[82*ibl:82*(ibl+1)]
		clear(blk)
		qs, qh := blk[2:66], blk[66:74]
		sigma2 := 2 * kqMeanSquare(x)
		var maxScale float32
		for ib := range QK_K / 16 {
			xb := x[16*ib : 16*ib+16]
			var w []float32
			if qw != nil {
				w = qw[QK_K*ibl+16*ib:]
			}
			iqGroupWeights(xb, w, sigma2, float32(0.25*sigma2), weight[:], waux[:])
			for k := range 2 {
				var b uint8
				for i, v := range xb[8*k : 8*k+8] {
					xval[8*k+i] = v
					if v < 0 {
						xval[8*k+i] = -v
						b |= 1 << i
					}
				}
				signs[k] = b
			}
			scale := iq2Fit16(s, &weight, &xval, &waux, &L, iq2sGroupMaxEps)
			scales[ib] = scale
			if scale == 0 {
				continue
			}
			if scale < 0 {
				// Not reached for finite input, kept as in ggml.
				scale = -scale
				for k := range signs {
					signs[k] = ^signs[k]
				}
			}
			for k := range 2 {
				g := s.lookup(L[8*k:8*k+8], xval[8*k:8*k+8], waux[8*k:8*k+8], scale)
				i8 := 2*ib + k
				qs[i8] = uint8(g)
				qh[i8/4] |= uint8(g>>8) << (2 * (i8 % 4))
				qs[QK_K/8+i8] = signs[k]
			}
			scales[ib] = scale
			maxScale = max(maxScale, scale)
		}
		if maxScale == 0 {
			continue
		}
		d := iq2Scales4(scales[:], maxScale, blk[74:82])
		storeHalf(blk, d*0.9875)
	}
}
