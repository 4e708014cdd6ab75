package quant

import (
	"math"
	"slices"
	"sync"
)

// IQ3_S quantization: ggml's quantize_row_iq3_s_impl, with the float
// arithmetic rules of kquants_util.go. Each group of 4 magnitudes must be
// a grid point; a group that rounds off the grid takes the best of the
// grid points nearest to it (iq3Search).

// iq3sMaxQ is the number of magnitude levels of IQ3_S (ggml's kMaxQ): a
// level l stands for the odd magnitude 2l+1.
const iq3sMaxQ = 8

// iq3Search is ggml's search state for a grid of 4-element points with
// coordinates 2l+1, l in [0, 8) (iq3xs_init_impl): the grid, the grid
// index of each of the 4096 level combinations on it, and for those off
// it the points nearest to them.
type iq3Search struct {
	grid [][4]int8
	// index holds, for the combination u = l0 | l1<<3 | l2<<6 | l3<<9,
	// its grid index, or -1 when u is off the grid.
	index [4096]int32
	// near holds, for u off the grid, its neighbours: the grid points at
	// the nWant smallest squared distances from u, nearest first and by
	// grid index within a distance.
	near [4096][]uint16
}

// newIQ3Search builds the search state of a grid (ggml's 2l+1 magnitudes,
// one per byte of each entry), with neighbours at nWant distances (2 for
// the 256-point grid, 3 for the 512-point one).
func newIQ3Search(grid []uint32, nWant int) *iq3Search {
	s := &iq3Search{grid: make([][4]int8, len(grid))}
	for i := range s.index {
		s.index[i] = -1
	}
	for j, g := range grid {
		u := 0
		for k := range 4 {
			m := int8(g >> (8 * k))
			s.grid[j][k] = m
			u |= int(m-1) / 2 << (3 * k)
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
			for k := range 4 {
				d := int(p[k]) - (2*(u>>(3*k)&7) + 1)
				d2[j] += d * d
			}
		}
		s.near[u] = nearestPoints(d2, nWant)
	}
	return s
}

// nearestPoints returns the indices of the grid points at the nWant
// smallest of the squared distances d2, nearest first and by index within
// a distance (the neighbour lists of ggml's iq2xs_init_impl and
// iq3xs_init_impl).
func nearestPoints(d2 []int, nWant int) []uint16 {
	var near []uint16
	prev := -1
	for range nWant {
		dist := math.MaxInt
		for _, d := range d2 {
			if d > prev && d < dist {
				dist = d
			}
		}
		if dist == math.MaxInt {
			break
		}
		for j, d := range d2 {
			if d == dist {
				near = append(near, uint16(j))
			}
		}
		prev = dist
	}
	return near
}

// iq3sSearch is the search state of the IQ3_S grid, built on first use.
var iq3sSearch = sync.OnceValue(func() *iq3Search { return newIQ3Search(IQ3SGrid[:], 3) })

// bestNeighbour returns the neighbour of the off-grid combination u that
// best fits the magnitudes xval at scale (the least error weighted by w;
// the first on ties), and writes its levels to L (iq3_find_best_neighbour).
func (s *iq3Search) bestNeighbour(u int, xval, w []float32, scale float32, L []int8) int {
	best := bestPoint(s.near[u], func(j int) []int8 { return s.grid[j][:] }, xval, w, scale)
	for i, q := range s.grid[best] {
		L[i] = (q - 1) / 2
	}
	return best
}

// bestPoint returns the grid point among near (point gives its
// coordinates) that best fits the magnitudes xval at scale: the least
// error weighted by w, the first on ties (ggml's iq2_find_best_neighbour
// and iq3_find_best_neighbour). Where every error is NaN or huge (ggml
// aborts) it returns the nearest.
func bestPoint(near []uint16, point func(j int) []int8, xval, w []float32, scale float32) int {
	best, bestD2 := int(near[0]), float32(math.MaxFloat32)
	for _, j := range near {
		var d2 float32
		for i, q := range point(int(j)) {
			diff := float32(scale*float32(q)) - xval[i]
			d2 += float32(float32(w[i]*diff) * diff)
		}
		if d2 < bestD2 {
			best, bestD2 = int(j), d2
		}
	}
	return best
}

// levels4 returns the combination of the four levels of L.
func levels4(L []int8) int {
	return int(L[0]) | int(L[1])<<3 | int(L[2])<<6 | int(L[3])<<9
}

func quantizeIQ3_S(src []float32, dst []byte) { quantizeIQ3S(src, dst, nil) }

// quantizeIQ3S quantizes whole super-blocks to IQ3_S. qw, when not nil,
// holds the importance of each column of a row of len(qw) elements (a
// multiple of QK_K), and src is a whole number of such rows.
func quantizeIQ3S(src []float32, dst []byte, qw []float32) {
	const bsz = 32 // elements per scale (ggml's IQ3S_BLOCK_SIZE)
	s := iq3sSearch()
	var (
		scales          [QK_K / bsz]float32
		weight, xval    [bsz]float32
		waux            [bsz]float32
		L, Laux         [bsz]int8
		onGrid, onGridA [bsz / 4]bool
		signs           [bsz / 8]uint8
	)
	for ibl := range len(src) / QK_K {
		x, blk := src[QK_K*ibl:QK_K*(ibl+1)], dst[110*ibl:110*(ibl+1)]
		clear(blk)
		qs, qh, sg, sc := blk[2:66], blk[66:74], blk[74:106], blk[106:110]
		var sumx2 float32
		for _, v := range x {
			sumx2 += float32(v * v)
		}
		sigma2 := 2 * sumx2 / QK_K
		var maxScale float32
		// ggml advances its qs and signs pointers only past the sub-blocks
		// it stores: after an all-zero sub-block, the next one's grid
		// indices and signs land in the zero one's place.
		qsAt, sgAt := 0, 0
		for ib := range QK_K / bsz {
			xb := x[bsz*ib : bsz*(ib+1)]
			for i, v := range xb {
				if qw != nil {
					w := qw[(QK_K*ibl+bsz*ib+i)%len(qw)]
					weight[i] = w * kqSqrt(sigma2+float32(v*v))
				} else {
					weight[i] = v * v
				}
			}
			for i, w := range weight {
				waux[i] = kqSqrt(w)
			}
			for k := range bsz / 8 {
				var b uint8
				for i, v := range xb[8*k : 8*k+8] {
					if v >= 0 {
						xval[8*k+i] = v
					} else {
						xval[8*k+i] = -v
						b |= 1 << i
					}
				}
				signs[k] = b
			}
			m := xval[0]
			for _, v := range xval[1:] {
				if !(m > v) {
					m = v
				}
			}
			clear(L[:])
			if m == 0 {
				scales[ib] = 0
				continue
			}
			var best float32
			scale := m / (2*iq3sMaxQ - 1)
			clear(onGrid[:])
			for is := -9; is <= 9; is++ {
				id := (2*iq3sMaxQ - 1 + float32(float32(is)*0.2)) / m
				thisScale := 1 / id
				for k := range bsz / 4 {
					for i := 4 * k; i < 4*k+4; i++ {
						l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
						Laux[i] = int8(kqClamp(l, 0, iq3sMaxQ-1))
					}
					u := levels4(Laux[4*k:])
					onGridA[k] = s.index[u] >= 0
					if !onGridA[k] {
						s.bestNeighbour(u, xval[4*k:4*k+4], waux[4*k:4*k+4], thisScale, Laux[4*k:4*k+4])
					}
				}
				sumqx, sumq2 := iq3sFit(weight[:], xval[:], Laux[:])
				if sumq2 > 0 && sumqx*sumqx > best*sumq2 {
					scale = sumqx / sumq2
					best = scale * sumqx
					L, onGrid = Laux, onGridA
				}
			}
			if slices.Contains(onGrid[:], false) && scale > 0 {
				id := 1 / scale
				for k := range bsz / 4 {
					for i := 4 * k; i < 4*k+4; i++ {
						l := kqNearestInt(0.5 * (float32(id*xval[i]) - 1))
						L[i] = int8(kqClamp(l, 0, iq3sMaxQ-1))
					}
					if u := levels4(L[4*k:]); s.index[u] < 0 {
						s.bestNeighbour(u, xval[4*k:4*k+4], waux[4*k:4*k+4], scale, L[4*k:4*k+4])
					}
				}
				if sumqx, sumq2 := iq3sFit(weight[:], xval[:], L[:]); sumq2 > 0 {
					scale = sumqx / sumq2
				}
			}
			if scale < 0 {
				// Not reached for finite input (the fit of magnitudes is
				// positive), kept as in ggml.
				scale = -scale
				for k := range signs {
					signs[k] = ^signs[k]
				}
			}
			for k := range bsz / 4 {
				g := s.index[levels4(L[4*k:])]
				qs[qsAt+k] = uint8(g)
				qh[(ib*bsz/4+k)/8] |= uint8(g>>8) << ((ib*bsz/4 + k) % 8)
			}
			qsAt += bsz / 4
			copy(sg[sgAt:], signs[:])
			sgAt += bsz / 8
			scales[ib] = scale
			if !(maxScale > scale) {
				maxScale = scale
			}
		}
		if maxScale == 0 {
			continue
		}
		d := maxScale / 31
		storeHalf(blk, d*1.033)
		id := 1 / d
		for ib := 0; ib < len(scales); ib += 2 {
			l1 := kqClamp(kqNearestInt(0.5*(float32(id*scales[ib])-1)), 0, 15)
			l2 := kqClamp(kqNearestInt(0.5*(float32(id*scales[ib+1])-1)), 0, 15)
			sc[ib/2] = uint8(l1 | l2<<4)
		}
	}
}

// iq3sFit returns the weighted sums Σw·x·q and Σw·q² of the magnitudes
// xval against the levels L (q = 2l+1) that give their best scale.
func iq3sFit(w, xval []float32, L []int8) (sumqx, sumq2 float32) {
	for i, l := range L {
		q := float32(2*int32(l) + 1)
		sumqx += float32(float32(w[i]*xval[i]) * q)
		sumq2 += float32(float32(w[i]*q) * q)
	}
	return sumqx, sumq2
}
