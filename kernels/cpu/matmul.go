package cpu

import (
	"fmt"
	"unsafe"

	"saji/kernels"
	"saji/kernels/quant"
)

// CanMatMul reports whether MatMul multiplies with weights of type t: the
// one answer to which weight types the CPU backend computes with, which the
// model loader asks before it maps a weight.
func CanMatMul(t quant.Type) bool {
	_, _, ok := dotKindOf(t)
	return ok
}

// MatMul sets dst[j][i] = Σ_l w[i][l]·x[j][l] for w [k, m], x [k, n] and
// dst [m, n], with the activations first converted to w's dot-product
// format as ggml does.
func (b *Backend) MatMul(dst, w, x kernels.Tensor) error {
	d, err := b.f32(dst, "matmul destination")
	if err != nil {
		return err
	}
	xs, err := b.f32(x, "matmul input")
	if err != nil {
		return err
	}
	wt, err := b.own(w)
	if err != nil {
		return err
	}
	if err := kernels.CheckMatMul(d, wt, xs); err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	k, m, n := wt.cols(), wt.rows(), xs.rows()
	kind, sums, ok := dotKindOf(wt.typ)
	if !ok {
		return fmt.Errorf("cpu: matmul with %v weights is not supported", wt.typ)
	}
	if k%wt.typ.BlockSize() != 0 {
		return fmt.Errorf("cpu: matmul row length %d is not a multiple of the %v block: %w", k, wt.typ, kernels.ErrShape)
	}
	out := d.f
	if m == 0 || n == 0 || k == 0 {
		clear(out) // empty sums; and the kernels below need a first row
		return nil
	}
	switch kind {
	case dotF32:
		dot := floatDot(n, k, false)
		if fd := b.k.f32Dot(n, k); fd != nil {
			dot = fd
		}
		single := func(i, j0, j1 int) {
			wr := wt.f[i*k : (i+1)*k]
			for j := j0; j < j1; j++ {
				out[j*m+i] = dot(wr, xs.f[j*k:(j+1)*k])
			}
		}
		b.simd(wt, n, 4*k, tinyOrder(n, k), unsafe.Pointer(&xs.f[0]), k, out, 0, single)
	case dotF16, dotBF16:
		widen := quant.F16ToF32
		if kind == dotBF16 {
			widen = quant.BF16ToF32
		}
		xr := b.free.scratch(len(xs.f)) // a recycled buffer: no garbage per product
		defer b.free.put(xr)
		b.parallel(n, func(lo, hi int) {
			roundHalves(kind, xr[lo*k:hi*k], xs.f[lo*k:hi*k])
		})
		if rows := b.k.halfRows(kind, n, k); rows != nil && !wt.released {
			rb := wt.rowBytes()
			if rowsH := b.k.f16RowsH; kind == dotF16 && rowsH != nil {
				// F16 activations, half the bytes (kernelSet.f16RowsH).
				xh, done := b.narrowHalves(xr, n, k)
				defer done()
				b.parallelBalanced(m, func(lo, hi int) {
					if hi > lo {
						rowsH(&wt.data[lo*rb], rb, &xh[0], k, &out[lo], hi-lo)
					}
				})
				break
			}
			b.parallelBalanced(m, func(lo, hi int) {
				if hi > lo {
					rows(&wt.data[lo*rb], rb, &xr[0], k, &out[lo], hi-lo)
				}
			})
			break
		}
		if hd := b.k.halfDot(kind, n, k); hd != nil {
			single := func(i, j0, j1 int) {
				row := wt.row(i)
				for j := j0; j < j1; j++ {
					out[j*m+i] = hd(row, xr[j*k:(j+1)*k])
				}
			}
			if body := b.k.halfBody(kind, n, k); body != nil {
				var body4 func(w *byte, x *float32, xstride, n int, out *[4]float32)
				if kind == dotF16 {
					body4 = b.k.f16Body4
				}
				single = func(i, j0, j1 int) {
					halfVecRows(wt.row(i), xr, k, j0, j1, body, body4, widen, hd, out[i:], m)
				}
				if body6 := b.k.f16Body6; kind == dotF16 && body6 != nil && !wt.released {
					xh, done := b.narrowHalves(xr, n, k)
					defer done()
					tile := rowTile(n, 4*k)
					b.productSplit(n)(m, func(lo, hi int) {
						tiledGroups(lo, hi, 0, n, tile, 18, func(i0, i1, j0, j1 int) {
							halfVecBlocks(wt, xr, xh, k, i0, i1, j0, j1, body6, widen, single, out, m)
						})
					})
					break
				}
			}
			if tk := b.k.f16TileH; kind == dotF16 && tk != nil && tinyOrder(n, k) && n >= tk.nr && !wt.released && b.k.f16TileHCol*k > halfTileL1 {
				xh, done := b.narrowHalves(xr, n, k)
				defer done()
				b.tiledBlocks(tk, m, n, 2*k, tileArgs{w: &wt.data[0], wstride: wt.rowBytes(), x: unsafe.Pointer(&xh[0]),
					xstride: 2 * k, n: k, out: &out[0], ostride: m}, 0, single)
				break
			}
			b.simd(wt, n, 4*k, tinyOrder(n, k), unsafe.Pointer(&xr[0]), k, out, 0, single)
			break
		}
		dot := floatDot(n, k, true)
		b.parallel(m, func(lo, hi int) {
			wr := make([]float32, k)
			for i := lo; i < hi; i++ {
				row := wt.row(i)
				for l := range wr {
					wr[l] = widen(uint16(row[2*l]) | uint16(row[2*l+1])<<8)
				}
				for j := range n {
					out[j*m+i] = dot(wr, xr[j*k:(j+1)*k])
				}
			}
		})
	case dotQ8:
		nb := k / 32
		xq := getBlocks[q8Block](&b.free, n*nb)
		defer putBlocks(&b.free, xq)
		quantize := quantizeQ8
		if b.k != nil && b.k.quantQ8 != nil {
			quantize = b.k.quantQ8
		}
		b.parallel(n, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				quantize(xs.f[j*k:(j+1)*k], xq[j*nb:(j+1)*nb], sums)
			}
		})
		if dot := b.k.dotQ8(wt.typ); dot != nil {
			single := func(i, j0, j1 int) {
				row := wt.row(i)
				for j := j0; j < j1; j++ {
					out[j*m+i] = dot(row, xq[j*nb:(j+1)*nb])
				}
			}
			if b.packedProduct(wt, n, nb*int(unsafe.Sizeof(q8Block{})), unsafe.Pointer(&xq[0]), nb, out, 0, single) {
				break
			}
			b.simd(wt, n, nb*int(unsafe.Sizeof(q8Block{})), true, unsafe.Pointer(&xq[0]), nb, out, 0, single)
			break
		}
		b.parallel(m, func(lo, hi int) {
			var r row32
			r.reset(k)
			for i := lo; i < hi; i++ {
				decode32(wt.typ, wt.row(i), &r)
				for j := range n {
					out[j*m+i] = dot32(&r, xq[j*nb:(j+1)*nb])
				}
			}
		})
	case dotQ8K:
		nb := k / quant.QK_K
		xq := getBlocks[q8KBlock](&b.free, n*nb)
		defer putBlocks(&b.free, xq)
		// ggml's repacked Q4_K and Q2_K kernels take the activation rows in
		// groups of four (gemm), the last n%4 alone (gemv); the groups are
		// quantized with a slightly different tie rule.
		gemmRows := 0
		if wt.typ == quant.TypeQ4_K || wt.typ == quant.TypeQ2_K {
			gemmRows = n - n%4
		}
		quantize := quantizeQ8K
		if b.k != nil && b.k.quantQ8K != nil {
			quantize = b.k.quantQ8K
		}
		b.parallel(n, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				quantize(xs.f[j*k:(j+1)*k], xq[j*nb:(j+1)*nb], j < gemmRows)
			}
		})
		if dot := b.k.dotQ8K(wt.typ); dot != nil {
			single := func(i, j0, j1 int) {
				row := wt.row(i)
				for j := j0; j < j1; j++ {
					out[j*m+i] = dot(row, xq[j*nb:(j+1)*nb], j < gemmRows)
				}
			}
			if b.packedProduct(wt, n, nb*int(unsafe.Sizeof(q8KBlock{})), unsafe.Pointer(&xq[0]), nb, out, gemmRows, single) {
				break
			}
			b.simd(wt, n, nb*int(unsafe.Sizeof(q8KBlock{})), true, unsafe.Pointer(&xq[0]), nb, out, gemmRows, single)
			break
		}
		b.parallel(m, func(lo, hi int) {
			var r rowK
			r.reset(k)
			for i := lo; i < hi; i++ {
				decodeK(wt.typ, wt.row(i), &r)
				for j := range n {
					out[j*m+i] = dotK(&r, xq[j*nb:(j+1)*nb], j < gemmRows)
				}
			}
		})
	}
	return nil
}

// floatDot picks the dot product ggml uses for an F32 (or, with half, F16)
// matrix product of n rows of length k: llamafile's tinyBLAS when there are
// two rows or more and k is a multiple of 16, ggml_vec_dot otherwise.
func floatDot(n, k int, half bool) func(a, b []float32) float32 {
	if tinyOrder(n, k) {
		return dotTiny
	}
	return func(a, b []float32) float32 { return dotVec(a, b, half) }
}

// simd runs the product of weight w by n activation rows of rowBytes each
// (in their dot-product format, at x, blocks values or blocks per row) into
// out on the SIMD kernels: a tile kernel for w's type where one is
// registered and tileOK, the single-row kernel (single) over cache tiles
// otherwise. Activation rows before gemmRows take dotK's gemm order.
func (b *Backend) simd(w *tensor, n, rowBytes int, tileOK bool, x unsafe.Pointer, blocks int, out []float32, gemmRows int, single func(i, j0, j1 int)) {
	m := w.rows()
	if tk := b.k.tile(w.typ, n); tk != nil && tileOK {
		b.tiledBlocks(tk, m, n, rowBytes, tileArgs{w: &w.data[0], wstride: w.rowBytes(), x: x,
			xstride: rowBytes, n: blocks, out: &out[0], ostride: m}, gemmRows, single)
		return
	}
	b.tiled(m, n, rowBytes, single)
}

// tinyOrder reports whether ggml computes a float matrix product of n rows
// of length k with llamafile's tinyBLAS (16 lanes per output) rather than
// ggml_vec_dot: the order the float tile kernels follow too.
func tinyOrder(n, k int) bool { return n >= 2 && k%16 == 0 }

// tileBytes is the size of the activation rows a matrix product keeps hot
// while it runs over weight rows. Weights stream from DRAM once per tile,
// so the tile is large (it lives in L2 and L3): an F16 prompt of 128 tokens
// with 8192-wide rows then reads its weights 2 times instead of 16, which
// measured 18% faster on llama-1b F16 prompts (6% on Q4_K_M) than a tile
// that fits L2.
const tileBytes = 2 << 20

// tiled runs fn(i, j0, j1) for every weight row i in [0, m) and every tile
// [j0, j1) of the n activation rows (rowBytes each, in their dot-product
// format), splitting the weight rows over the threads. Each thread runs its
// weight rows once per tile, so a tile of activations is read from cache
// for all of them, and a weight row, once loaded, is used for every
// activation row of the tile.
func (b *Backend) tiled(m, n, rowBytes int, fn func(i, j0, j1 int)) {
	tile := rowTile(n, rowBytes)
	b.productSplit(n)(m, func(lo, hi int) { tiledRows(lo, hi, 0, n, tile, fn) })
}

// rowTile is the number of activation rows (rowBytes each) in a cache tile
// of at most n rows.
func rowTile(n, rowBytes int) int { return max(1, min(n, tileBytes/max(1, rowBytes))) }

// tiledRows is one thread's share of tiled: weight rows [lo, hi) by
// activation rows [jlo, jhi) in tiles of tile rows, as tiledGroups
// groups them, sixteen activation rows at a time.
func tiledRows(lo, hi, jlo, jhi, tile int, fn func(i, j0, j1 int)) {
	tiledGroups(lo, hi, jlo, jhi, tile, 16, func(i0, i1, j0, j1 int) {
		for i := i0; i < i1; i++ {
			fn(i, j0, j1)
		}
	})
}

// tiledGroups is tiledRows for a kernel of several weight rows: within
// each tile of activation rows, the weight rows go in groups of sixteen,
// each group over the tile's rows sub rows at a time (fn(i0, i1, j0, j1)
// for weight rows [i0, i1) by activation rows [j0, j1)), so that a group's
// weights and a few activation rows stay in L2 while every pair of them
// meets: the activation rows of a wide tile come from L3 once a group, not
// once a weight row (Qwen2.5-VL's encoder's ffn_down, rows of 3420 without
// a tile kernel, took 16 times the traffic).
func tiledGroups(lo, hi, jlo, jhi, tile, sub int, fn func(i0, i1, j0, j1 int)) {
	const groupRows = 16
	for j0 := jlo; j0 < jhi; j0 += tile {
		j1 := min(jhi, j0+tile)
		for i0 := lo; i0 < hi; i0 += groupRows {
			i1 := min(hi, i0+groupRows)
			for s := j0; s < j1; s += sub {
				fn(i0, i1, s, min(j1, s+sub))
			}
		}
	}
}

// tiledBlocks is tiled for a register-blocked kernel: the weight rows are
// split over the threads in groups of tk.mr, and within a cache tile of
// activation rows every full tk.mr × tk.nr block goes to the kernel, the
// rest to single. base describes the tile at weight row 0 and activation
// row 0; activation rows before gemmRows take dotK's gemm order.
func (b *Backend) tiledBlocks(tk *tileKernel, m, n, rowBytes int, base tileArgs, gemmRows int, single func(i, j0, j1 int)) {
	tile := tk.rowTile(n, rowBytes)
	if tk.widensScales(n) {
		xd := b.free.scratch(n * base.n)
		defer b.free.put(xd)
		q8ActScales(xd, base.x, base.xstride, n, base.n)
		base.xd, base.xdstride = unsafe.Pointer(&xd[0]), 4*n
	}
	groups := (m + tk.mr - 1) / tk.mr
	b.productSplit(n)(groups, func(glo, ghi int) {
		a := base
		var room []float32
		b.scaleRoom(tk, &a, n, &room)
		tk.blocks(glo*tk.mr, min(m, ghi*tk.mr), 0, n, tile, a, gemmRows, single)
		b.free.put(room)
	})
}

// widensScales reports whether a product of rows activation rows gives
// tk its blocks' scales widened ahead (tileKernel.scales, q8ScaleRows).
func (tk *tileKernel) widensScales(rows int) bool { return tk.scales != nil && rows >= q8ScaleRows }

// q8ScaleRows is the fewest activation rows whose product gives the Q8_0
// tiles their scales widened ahead (tileKernel.scales): widening a
// group's weight scales pays from three blocks of four rows on. Against
// the tiles gathering them, 2048×2048 products measured 8-11% slower
// with 4 rows, even with 8, 4-8% faster with 12 and 16, on AVX2 and
// AVX-VNNI (BenchmarkQ8Scales). A variable for that benchmark.
var q8ScaleRows = 12

// scaleRoom points a.wd at room for a group of tk's weight scales where
// a has the activation rows' (a.xd), tk reads them widened ahead
// (tileKernel.scales) and rows activation rows pass, at least
// q8ScaleRows: *room, grown from b's recycled buffers when it is too
// small (the caller gives the last one back). Otherwise it clears a.xd,
// and a Q8_0 tile gathers its scales.
func (b *Backend) scaleRoom(tk *tileKernel, a *tileArgs, rows int, room *[]float32) {
	if a.xd == nil {
		return
	}
	if !tk.widensScales(rows) {
		a.xd = nil
		return
	}
	if need := max(tk.group, tk.mr) * a.n; len(*room) < need {
		b.free.put(*room)
		*room = b.free.scratch(need)
	}
	a.wd = &(*room)[0]
}

// q8ActScales lays out the scales of n activation rows of nb q8Blocks
// (row j at x + j·xstride) for the Q8_0 tiles (tileKernel.scales): block
// b's scales of rows 0..n-1 adjacent, at dst[b·n:].
func q8ActScales(dst []float32, x unsafe.Pointer, xstride, n, nb int) {
	for j := range n {
		row := unsafe.Slice((*q8Block)(unsafe.Add(x, j*xstride)), nb)
		for b := range row {
			dst[b*n+j] = row[b].d
		}
	}
}

// rowTile is rowTile rounded to whole blocks of tk.nr rows where the n
// rows take more than one tile. Rows that fit one tile are one tile: 128
// rows in tiles of 126 and 2 had every weight row read a second time,
// from memory, for the last 2 (5-6% of llama-1b F16's prompt on
// AVX-512).
func (tk *tileKernel) rowTile(n, rowBytes int) int {
	t := rowTile(n, rowBytes)
	if t >= n {
		return n
	}
	return max(tk.nr, t/tk.nr*tk.nr)
}

// blocks is one thread's share of tiledBlocks: weight rows [lo, hi) by
// activation rows [jlo, jhi) in tiles of tile rows (a multiple of tk.nr).
// The rows after a tile's last full block go to one more block over the
// tile's last tk.nr rows with tk.overlap (those of the tile before when it
// has fewer), otherwise to tk.narrow's kernels and then single. Each block
// of activation rows passes tk.group weight rows (tk.mr by default)
// before the next block does. With tk.scales, base.xd and base.wd (room
// for a group's weight scales) set, each group's weight scales are
// widened into base.wd before its first tile. Where the activation rows
// are one block and tk has rows, the full groups go to one tk.rows call.
func (tk *tileKernel) blocks(lo, hi, jlo, jhi, tile int, base tileArgs, gemmRows int, single func(i, j0, j1 int)) {
	a := base
	scaled := tk.scales != nil && base.xd != nil && base.wd != nil
	g0 := lo // the group whose weight scales base.wd holds
	// at points a at k's tile at weight row i and activation row j.
	at := func(k *tileKernel, i, j int) *tileArgs {
		a.w = (*byte)(unsafe.Add(unsafe.Pointer(base.w), i*base.wstride))
		a.x = unsafe.Add(base.x, j*base.xstride)
		a.out = (*float32)(unsafe.Add(unsafe.Pointer(base.out), 4*(j*base.ostride+i)))
		if scaled {
			a.xd = unsafe.Add(base.xd, 4*j)
			a.wd = (*float32)(unsafe.Add(unsafe.Pointer(base.wd), 4*(i-g0)*base.n))
		}
		a.gemm = 0
		for t := range k.nr {
			if j+t < gemmRows {
				a.gemm |= 1 << t
			}
		}
		return &a
	}
	callWith := func(k *tileKernel, i, j int) { k.fn(at(k, i, j)) }
	call := func(i, j int) { callWith(tk, i, j) }
	group := max(tk.group, tk.mr)
	iFull := lo + (hi-lo)/tk.mr*tk.mr
	if tk.rows != nil && jhi-jlo == tk.nr && !scaled {
		// One block of activation rows (decode): its full groups of
		// weight rows in one call.
		if iFull > lo {
			tk.rows(at(tk, lo, jlo), iFull-lo)
		}
		for i := iFull; i < hi; i++ {
			single(i, jlo, jhi)
		}
		return
	}
	for j0 := jlo; j0 < jhi; j0 += tile {
		j1 := min(jhi, j0+tile)
		jFull := j0 + (j1-j0)/tk.nr*tk.nr
		jShort := jFull // blocks of nr rows up to jShort, of nr-1 up to jFull
		if rows := j1 - j0; tk.short != nil && rows%tk.nr != 0 {
			if b := (rows + tk.nr - 1) / tk.nr; tk.nr*b-rows <= b {
				jShort = j0 + (b-(tk.nr*b-rows))*tk.nr
				jFull = j1
			}
		}
		for g0 = lo; g0 < iFull; g0 += group {
			g1 := min(iFull, g0+group)
			if scaled {
				ga := base
				ga.w = (*byte)(unsafe.Add(unsafe.Pointer(base.w), g0*base.wstride))
				tk.scales(ga, g1-g0, base.wd)
			}
			for j := j0; j < jShort; j += tk.nr {
				for i := g0; i < g1; i += tk.mr {
					call(i, j)
				}
			}
			for j := jShort; j < jFull; j += tk.short.nr {
				for i := g0; i < g1; i += tk.mr {
					callWith(tk.short, i, j)
				}
			}
			for i := g0; i < g1; i += tk.mr {
				switch {
				case jFull == j1:
				case tk.overlap && j1-jlo >= tk.nr:
					call(i, j1-tk.nr)
				default:
					j := jFull
					for n := range tk.narrow {
						for nk := &tk.narrow[n]; j+nk.nr <= j1; j += nk.nr {
							callWith(nk, i, j)
						}
					}
					if j < j1 {
						for r := i; r < i+tk.mr; r++ {
							single(r, j, j1)
						}
					}
				}
			}
		}
		for i := iFull; i < hi; i++ {
			single(i, j0, j1)
		}
	}
}

// halfTileL1 is the most bytes a register tile of F16 weights and float32
// activations (AVX-512's four rows by six, 32 bytes a column; AVX2's two
// by three, 16: kernelSet.f16TileHCol) keeps in L1 and still runs from
// it: rows longer than that take the tile of F16 activations (f16TileH),
// whose rows are half as wide. llama-1b's rows of 2048 (64 KB) measured 5%
// faster so on AVX-512, its rows of 8192 10% faster on AVX2 (256 KB);
// Qwen2.5-VL's encoder's of 1280 (40 KB) fit, and narrowing them would
// cost a pass for nothing.
const halfTileL1 = 40 << 10

// narrowHalves returns the n rows of k activations xr (F16 values already)
// as F16, in a recycled buffer that done gives back: half the bytes for the
// F16 kernels that widen their activations as they load them.
func (b *Backend) narrowHalves(xr []float32, n, k int) (xh []byte, done func()) {
	xb := b.free.scratch((len(xr) + 1) / 2)
	xh = unsafe.Slice((*byte)(unsafe.Pointer(&xb[0])), 2*len(xr))
	b.parallel(n, func(lo, hi int) {
		b.k.narrowF16(xh[2*lo*k:2*hi*k], xr[lo*k:hi*k])
	})
	return xh, func() { b.free.put(xb) }
}

// halfVecBlocks sets out[j·m+i] for the F16 weight rows [i0, i1) of wt and
// the activation rows [j0, j1) of xr (k values each, F16's; xh holds them
// as F16) as halfVecRows does, two weight rows by three activation rows at
// a time: body6's sums of the 64s, then the six tails' float64 sums side
// by side, each in halfVec's order. The rows left over go to rows(i, j0,
// j1), halfVecRows.
func halfVecBlocks(wt *tensor, xr []float32, xh []byte, k, i0, i1, j0, j1 int,
	body6 func(w *byte, wstride int, x *byte, xstride, n int, out *[6]float32),
	widen func(uint16) float32, rows func(i, j0, j1 int), out []float32, m int) {
	np := k &^ 63
	rb := wt.rowBytes()
	var tw [2][63]float32
	b6 := new([6]float32) // one allocation: body6 is a function value, so its out escapes
	i := i0
	for ; i+2 <= i1 && np > 0; i += 2 {
		w := wt.data[i*rb : (i+2)*rb]
		t0, t1 := tw[0][:k-np], tw[1][:k-np]
		for t := range t0 {
			o := 2 * (np + t)
			t0[t] = widen(uint16(w[o]) | uint16(w[o+1])<<8)
			t1[t] = widen(uint16(w[rb+o]) | uint16(w[rb+o+1])<<8)
		}
		j := j0
		for ; j+3 <= j1; j += 3 {
			body6(&w[0], rb, &xh[2*j*k], 2*k, np, b6)
			s00, s01, s02 := float64(b6[0]), float64(b6[1]), float64(b6[2])
			s10, s11, s12 := float64(b6[3]), float64(b6[4]), float64(b6[5])
			x0, x1, x2 := xr[j*k+np:(j+1)*k], xr[(j+1)*k+np:(j+2)*k], xr[(j+2)*k+np:(j+3)*k]
			x0, x1, x2 = x0[:len(t0)], x1[:len(t0)], x2[:len(t0)]
			for t, a := range t0 {
				b := t1[t]
				s00 += float64(a * x0[t])
				s01 += float64(a * x1[t])
				s02 += float64(a * x2[t])
				s10 += float64(b * x0[t])
				s11 += float64(b * x1[t])
				s12 += float64(b * x2[t])
			}
			o := j*m + i
			out[o], out[o+1] = float32(s00), float32(s10)
			out[o+m], out[o+m+1] = float32(s01), float32(s11)
			out[o+2*m], out[o+2*m+1] = float32(s02), float32(s12)
		}
		if j < j1 {
			rows(i, j, j1)
			rows(i+1, j, j1)
		}
	}
	for ; i < i1; i++ {
		rows(i, j0, j1)
	}
}

// halfVecRows sets out[j·stride] to dotVec(widen(w), x_j, true) for the
// activation rows x_j = xr[j·k:(j+1)·k], j0 ≤ j < j1, as halfVec computes
// it (single, its kernel), four rows at a time: each row's SIMD body
// (body), then the four tails' float64 sums, each in halfVec's order, side
// by side, over the tail's weights widened once. A tail's sum is a chain
// of dependent float64 additions; four chains at once overlap their
// latencies (a K of 3420, Qwen2.5-VL's encoder's, leaves 28 values after
// the 64s). body4, where not nil, is body for four rows at once.
func halfVecRows(w []byte, xr []float32, k, j0, j1 int, body func(w *byte, x *float32, n int) float32,
	body4 func(w *byte, x *float32, xstride, n int, out *[4]float32),
	widen func(uint16) float32, single func(w []byte, x []float32) float32, out []float32, stride int) {
	np := k &^ 63
	var tw [63]float32
	tail := tw[:k-np]
	for t := range tail {
		tail[t] = widen(uint16(w[2*(np+t)]) | uint16(w[2*(np+t)+1])<<8)
	}
	var b4 *[4]float32 // one allocation: body4 is a function value, so its out escapes
	if body4 != nil {
		b4 = new([4]float32)
	}
	j := j0
	for ; j+4 <= j1 && np > 0; j += 4 {
		x0, x1, x2, x3 := xr[j*k:(j+1)*k], xr[(j+1)*k:(j+2)*k], xr[(j+2)*k:(j+3)*k], xr[(j+3)*k:(j+4)*k]
		var s0, s1, s2, s3 float64
		if body4 != nil {
			body4(&w[0], &x0[0], 4*k, np, b4)
			s0, s1, s2, s3 = float64(b4[0]), float64(b4[1]), float64(b4[2]), float64(b4[3])
		} else {
			s0, s1 = float64(body(&w[0], &x0[0], np)), float64(body(&w[0], &x1[0], np))
			s2, s3 = float64(body(&w[0], &x2[0], np)), float64(body(&w[0], &x3[0], np))
		}
		x0, x1, x2, x3 = x0[np:], x1[np:], x2[np:], x3[np:]
		for t, a := range tail {
			s0 += float64(a * x0[t])
			s1 += float64(a * x1[t])
			s2 += float64(a * x2[t])
			s3 += float64(a * x3[t])
		}
		out[j*stride], out[(j+1)*stride] = float32(s0), float32(s1)
		out[(j+2)*stride], out[(j+3)*stride] = float32(s2), float32(s3)
	}
	for ; j < j1; j++ {
		out[j*stride] = single(w, xr[j*k:(j+1)*k])
	}
}
