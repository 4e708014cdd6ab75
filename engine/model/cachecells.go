package model

import (
	"fmt"

	"saji/kernels"
	"saji/kernels/quant"
)

// rowBytes is implemented by backends whose tensors' rows can be copied as
// the bytes of their own type (the CPU's): ReadCells and WriteCells then
// copy the cells as they are, without a conversion through float32.
type rowBytes interface {
	RowBytes(t kernels.Tensor, rows []int32, dst []byte) ([]byte, error)
	SetRowBytes(t kernels.Tensor, rows []int32, src []byte) error
}

// Type returns the cache's element type.
func (c *Cache) Type() quant.Type {
	if len(c.k) == 0 {
		return quant.TypeF32
	}
	return c.k[0].Type()
}

// CellBytes returns the number of bytes ReadCells gives for n cells of KV
// group g.
func (c *Cache) CellBytes(g, n int) int {
	total := 0
	for i, grp := range c.group {
		if grp == g {
			total += n * (rowSize(c.k[i]) + rowSize(c.v[i]))
		}
	}
	return total
}

// rowSize is the bytes of one row of t in its type.
func rowSize(t kernels.Tensor) int {
	typ := t.Type()
	return kernels.Cols(t) / typ.BlockSize() * typ.TypeSize()
}

// ReadCells appends to dst the keys and values of cells in every layer of
// KV group g of a paged cache, in the cache's type: for each layer of the
// group in order, a row of keys per cell, then a row of values per cell
// (CellBytes long). WriteCells takes them back; a cache of the same type
// and shape then holds exactly the same values.
func (c *Cache) ReadCells(g int, cells []int32, dst []byte) ([]byte, error) {
	if err := c.checkCells(g, cells); err != nil || len(cells) == 0 {
		return dst, err
	}
	for i, grp := range c.group {
		if grp != g {
			continue
		}
		for _, t := range []kernels.Tensor{c.k[i], c.v[i]} {
			n := len(dst)
			var err error
			if rb, ok := t.Backend().(rowBytes); ok {
				dst, err = rb.RowBytes(t, cells, dst)
			} else {
				dst, err = readRows(t, cells, dst)
			}
			if err != nil {
				return dst[:n], fmt.Errorf("model: reading cells: %w", err)
			}
		}
	}
	return dst, nil
}

// readRows appends rows of t to dst in t's type through float32 (exact:
// F16 and F32 convert both ways without loss, and a Q8_0 block
// requantizes from its own values to the same block, see copyRows).
func readRows(t kernels.Tensor, rows []int32, dst []byte) ([]byte, error) {
	b := t.Backend()
	tmp, err := b.New(quant.TypeF32, kernels.Cols(t), len(rows))
	if err != nil {
		return dst, err
	}
	if r, ok := b.(kernels.Recycler); ok {
		defer r.Recycle(tmp)
	}
	vals := make([]float32, kernels.Cols(t)*len(rows))
	if err := b.GetRows(tmp, t, rows); err != nil {
		return dst, err
	}
	if err := b.Read(tmp, vals); err != nil {
		return dst, err
	}
	n := len(dst)
	dst = append(dst, make([]byte, rowSize(t)*len(rows))...)
	return dst, quant.Quantize(t.Type(), vals, dst[n:])
}

// WriteCells stores src, laid out as ReadCells gives it, in cells of KV
// group g of a paged cache.
func (c *Cache) WriteCells(g int, cells []int32, src []byte) error {
	if err := c.checkCells(g, cells); err != nil {
		return err
	}
	if want := c.CellBytes(g, len(cells)); len(src) != want {
		return fmt.Errorf("model: writing %d bytes to %d cells of group %d, which take %d", len(src), len(cells), g, want)
	}
	if len(cells) == 0 {
		return nil
	}
	for i, grp := range c.group {
		if grp != g {
			continue
		}
		for _, t := range []kernels.Tensor{c.k[i], c.v[i]} {
			n := rowSize(t) * len(cells)
			var err error
			if rb, ok := t.Backend().(rowBytes); ok {
				err = rb.SetRowBytes(t, cells, src[:n])
			} else {
				err = writeRows(t, cells, src[:n])
			}
			if err != nil {
				return fmt.Errorf("model: writing cells: %w", err)
			}
			src = src[n:]
		}
	}
	return nil
}

// writeRows stores src, rows of t's type, in rows of t through float32.
func writeRows(t kernels.Tensor, rows []int32, src []byte) error {
	b := t.Backend()
	vals := make([]float32, kernels.Cols(t)*len(rows))
	if err := quant.Dequantize(t.Type(), src, vals); err != nil {
		return err
	}
	tmp, err := b.New(quant.TypeF32, kernels.Cols(t), len(rows))
	if err != nil {
		return err
	}
	if r, ok := b.(kernels.Recycler); ok {
		defer r.Recycle(tmp)
	}
	if err := b.Write(tmp, vals); err != nil {
		return err
	}
	return b.SetRows(t, tmp, rows)
}

// checkCells reports why cells of group g cannot be read or written.
func (c *Cache) checkCells(g int, cells []int32) error {
	if !c.paged || g < 0 || g >= len(c.cells) {
		return fmt.Errorf("model: cells of group %d of a cache with %d paged groups", g, len(c.cells))
	}
	for _, r := range cells {
		if r < 0 || int(r) >= c.cells[g] {
			return fmt.Errorf("model: cell %d of a group of %d cells", r, c.cells[g])
		}
	}
	return nil
}
