package cpu

import (
	"fmt"
	"unsafe"

	"saji/kernels"
	"saji/kernels/quant"
)

// MatMulExperts implements kernels.ExpertMatMul: row r of dst is
// experts[ids[r]] times row r/per of x, where per = len(ids)/Rows(x).
//
// It follows ggml's MUL_MAT_ID: each row of x is converted to the experts'
// dot-product format once, and every output is the single-row dot product
// (vec_dot, or the repacked gemv: never the tinyBLAS or gemm order of a
// batch), so a token's result does not depend on which other tokens chose
// the same expert. The rows that chose an expert are gathered next to each
// other, and the work is one parallel pass over (expert, block of weight
// rows) items, so that a decode step of k experts costs one dispatch, not k.
func (b *Backend) MatMulExperts(dst kernels.Tensor, experts []kernels.Tensor, x kernels.Tensor, ids []int32) error {
	d, err := b.f32(dst, "expert matmul destination")
	if err != nil {
		return err
	}
	xs, err := b.f32(x, "expert matmul input")
	if err != nil {
		return err
	}
	ws := make([]*tensor, len(experts))
	for i, e := range experts {
		if ws[i], err = b.own(e); err != nil {
			return err
		}
	}
	per, err := kernels.CheckMatMulExperts(d, experts, xs, ids)
	if err != nil {
		return fmt.Errorf("cpu: %w", err)
	}
	typ := ws[0].typ
	kind, sums, ok := dotKindOf(typ)
	if !ok {
		return fmt.Errorf("cpu: expert matmul with %v weights is not supported", typ)
	}
	k, m := ws[0].cols(), ws[0].rows()
	if k%typ.BlockSize() != 0 {
		return fmt.Errorf("cpu: expert matmul row length %d is not a multiple of the %v block: %w", k, typ, kernels.ErrShape)
	}
	if m == 0 || k == 0 {
		clear(d.f)
		return nil
	}
	g := groupByExpert(ids, len(experts))
	og := b.free.get(len(ids) * m) // outputs in group order
	defer b.free.put(og)

	switch kind {
	case dotF32, dotF16, dotBF16:
		xr := xs.f
		if kind != dotF32 {
			xr = b.free.scratch(len(xs.f))
			defer b.free.put(xr)
			roundHalves(kind, xr, xs.f)
		}
		xg := gatherRows(&b.free, xr, k, g.rows, per)
		defer putBlocks(&b.free, xg)
		dot := b.vecDot(kind, k)
		b.expertItems(ws, g, m, 4*k, false, func(w *tensor) func(i, j0, j1 int) {
			return func(i, j0, j1 int) {
				row := w.row(i)
				for j := j0; j < j1; j++ {
					og[j*m+i] = dot(row, xg[j*k:(j+1)*k])
				}
			}
		}, tileArgs{})
	case dotQ8:
		quantize, dot := quantizeQ8, b.k.dotQ8(typ)
		if b.k != nil && b.k.quantQ8 != nil {
			quantize = b.k.quantQ8
		}
		if dot == nil {
			dot = func(w []byte, x []q8Block) float32 {
				var r row32
				r.reset(k)
				decode32(typ, w, &r)
				return dot32(&r, x)
			}
		}
		blockExperts(b, ws, xs, g, per, k/32, og,
			func(x []float32, out []q8Block) { quantize(x, out, sums) }, dot)
	case dotQ8K:
		quantize, dot := quantizeQ8K, b.k.dotQ8K(typ)
		if b.k != nil && b.k.quantQ8K != nil {
			quantize = b.k.quantQ8K
		}
		if dot == nil {
			dot = func(w []byte, x []q8KBlock, gemm bool) float32 {
				var r rowK
				r.reset(k)
				decodeK(typ, w, &r)
				return dotK(&r, x, gemm)
			}
		}
		blockExperts(b, ws, xs, g, per, k/quant.QK_K, og,
			func(x []float32, out []q8KBlock) { quantize(x, out, false) },
			func(w []byte, x []q8KBlock) float32 { return dot(w, x, false) })
	}
	// Scatter the outputs from group order to the rows of dst.
	for p, r := range g.rows {
		copy(d.f[int(r)*m:(int(r)+1)*m], og[p*m:(p+1)*m])
	}
	return nil
}

// blockExperts runs the expert products of MatMulExperts on activations
// in a block format T (nb blocks a row): quantize converts a row of xs
// once, and dot multiplies a weight row by a row of blocks, single rows
// and tiles alike, into og in group order.
func blockExperts[T any](b *Backend, ws []*tensor, xs *tensor, g expertGroups, per, nb int, og []float32,
	quantize func(x []float32, out []T), dot func(w []byte, x []T) float32) {
	k, m := xs.cols(), ws[0].rows()
	xq := getBlocks[T](&b.free, xs.rows()*nb)
	defer putBlocks(&b.free, xq)
	b.parallel(xs.rows(), func(lo, hi int) {
		for j := lo; j < hi; j++ {
			quantize(xs.f[j*k:(j+1)*k], xq[j*nb:(j+1)*nb])
		}
	})
	xg := gatherRows(&b.free, xq, nb, g.rows, per)
	defer putBlocks(&b.free, xg)
	single := func(w *tensor) func(i, j0, j1 int) {
		return func(i, j0, j1 int) {
			row := w.row(i)
			for j := j0; j < j1; j++ {
				og[j*m+i] = dot(row, xg[j*nb:(j+1)*nb])
			}
		}
	}
	var blk T
	rowBytes := nb * int(unsafe.Sizeof(blk))
	base := tileArgs{x: unsafe.Pointer(&xg[0]), xstride: rowBytes, n: nb, out: &og[0], ostride: m}
	if _, ok := any(xg).([]q8Block); ok {
		// The scales of the gathered rows, for the Q8_0 tiles that
		// read them widened ahead (tileKernel.scales).
		xd := b.free.scratch(len(g.rows) * nb)
		defer b.free.put(xd)
		q8ActScales(xd, base.x, rowBytes, len(g.rows), nb)
		base.xd, base.xdstride = unsafe.Pointer(&xd[0]), 4*len(g.rows)
	}
	b.expertItems(ws, g, m, rowBytes, true, single, base)
}

// expertGroups is the rows of an expert product grouped by expert: rows
// holds the output rows of expert 0, then those of expert 1, ..., each in
// increasing order (as ggml's MUL_MAT_ID visits them); expert e's rows are
// rows[start[e]:start[e+1]].
type expertGroups struct {
	rows  []int32
	start []int
}

// groupByExpert sorts the output rows 0..len(ids)-1 by their expert ids
// (a counting sort over n experts).
func groupByExpert(ids []int32, n int) expertGroups {
	g := expertGroups{rows: make([]int32, len(ids)), start: make([]int, n+1)}
	for _, e := range ids {
		g.start[e+1]++
	}
	for e := range n {
		g.start[e+1] += g.start[e]
	}
	next := append([]int(nil), g.start[:n]...)
	for r, e := range ids {
		g.rows[next[e]] = int32(r)
		next[e]++
	}
	return g
}

// gatherRows returns the rows of x (width values each) that the output
// rows need, in group order: output row r reads row r/per of x. The
// buffer comes from l (getBlocks).
func gatherRows[T any](l *freeList, x []T, width int, rows []int32, per int) []T {
	out := getBlocks[T](l, len(rows)*width)
	for p, r := range rows {
		src := int(r) / per
		copy(out[p*width:(p+1)*width], x[src*width:(src+1)*width])
	}
	return out
}

// expertItems runs the products of each expert ws[e] with its gathered
// rows in one parallel pass over (expert, block of weight rows) items,
// sized so that each item does about the same work. single(w) returns the
// single-row kernel of weight w (output row i, gathered rows [j0, j1)) and
// rowBytes is the size of a gathered row. With tiles set, full blocks go
// to the register-blocked kernels of the weight type, base being their
// arguments at gathered row 0 (the weight fields are set per expert).
func (b *Backend) expertItems(ws []*tensor, g expertGroups, m, rowBytes int, tiles bool, single func(w *tensor) func(i, j0, j1 int), base tileArgs) {
	type item struct{ e, lo, hi int }
	parts := b.threads * balanceParts * 2
	work := max(1, (len(g.rows)*m+parts-1)/parts) // dot products per item
	var items []item
	for e := range len(g.start) - 1 {
		n := g.start[e+1] - g.start[e]
		if n == 0 {
			continue
		}
		step := max(expertRowAlign, (work+n-1)/n/expertRowAlign*expertRowAlign)
		for lo := 0; lo < m; lo += step {
			items = append(items, item{e, lo, min(m, lo+step)})
		}
	}
	b.parallelParts(len(items), len(items), func(lo, hi int) {
		var room []float32 // a group's widened weight scales (scaleRoom)
		defer func() { b.free.put(room) }()
		for _, it := range items[lo:hi] {
			w, jlo, jhi := ws[it.e], g.start[it.e], g.start[it.e+1]
			fn := single(w)
			var tk *tileKernel
			if tiles {
				tk = b.k.tile(w.typ, jhi-jlo)
			}
			if tk == nil {
				tiledRows(it.lo, it.hi, jlo, jhi, rowTile(jhi-jlo, rowBytes), fn)
				continue
			}
			a := base
			a.w, a.wstride = &w.data[0], w.rowBytes()
			if kern, ok := b.k.packedKernel(w.typ); ok && w.packed != nil && tiles && kern.tile != nil {
				// A repacked expert: its layout's tiles (gemv order,
				// as every output here) and decode kernel.
				a.w, a.wstride = &w.packed[0], kern.size(kern.rows, w.rowBytes())/kern.rows
				tk, gv := kern.tiles()
				b.scaleRoom(&tk, &a, jhi-jlo, &room)
				jFull := jlo + (jhi-jlo)/tk.nr*tk.nr
				if jFull > jlo {
					tk.blocks(it.lo, it.hi, jlo, jFull, tk.rowTile(jFull-jlo, rowBytes), a, 0, fn)
				}
				if jFull < jhi {
					gv.blocks(it.lo, it.hi, jFull, jhi, gv.rowTile(jhi-jFull, rowBytes), a, 0, fn)
				}
				continue
			}
			b.scaleRoom(tk, &a, jhi-jlo, &room)
			// The rows past the last full tile (an expert's few rows in
			// a prompt are often not a multiple of nr) go to the decode
			// tile where there is one, not one output at a time.
			jFull := jlo + (jhi-jlo)/tk.nr*tk.nr
			if gv := b.k.tile(w.typ, 1); gv != nil && tk.nr > 1 && jFull < jhi {
				tk.blocks(it.lo, it.hi, jlo, jFull, tk.rowTile(jFull-jlo, rowBytes), a, 0, fn)
				gv.blocks(it.lo, it.hi, jFull, jhi, gv.rowTile(jhi-jFull, rowBytes), a, 0, fn)
				continue
			}
			tk.blocks(it.lo, it.hi, jlo, jhi, tk.rowTile(jhi-jlo, rowBytes), a, 0, fn)
		}
	})
}

// expertRowAlign is the granularity of an item's weight rows: a multiple
// of every tile kernel's mr and interleaved layout's group, so that items
// split no register block.
const expertRowAlign = 16

// vecDot returns the single-row dot product of a float weight row (F32,
// or F16/BF16 bytes) with activations already rounded to the weight type,
// in ggml_vec_dot's order, on the SIMD kernel where there is one.
func (b *Backend) vecDot(kind dotKind, k int) func(w []byte, x []float32) float32 {
	if kind == dotF32 {
		dot := func(a, x []float32) float32 { return dotVec(a, x, false) }
		if fd := b.k.f32Dot(1, k); fd != nil {
			dot = fd
		}
		return func(w []byte, x []float32) float32 {
			return dot(unsafe.Slice((*float32)(unsafe.Pointer(&w[0])), k), x)
		}
	}
	if hd := b.k.halfDot(kind, 1, k); hd != nil {
		return hd
	}
	widen := quant.F16ToF32
	if kind == dotBF16 {
		widen = quant.BF16ToF32
	}
	return func(w []byte, x []float32) float32 {
		wr := make([]float32, k)
		for l := range wr {
			wr[l] = widen(uint16(w[2*l]) | uint16(w[2*l+1])<<8)
		}
		return dotVec(wr, x, true)
	}
}
