package model

import (
	"fmt"

	"saji/kernels"
	"saji/kernels/quant"
)

// CellValues returns the number of values ReadCells gives for n cells of
// KV group g: for each layer of the group in order, n rows of keys then n
// rows of values.
func (c *Cache) CellValues(g, n int) int {
	total := 0
	for i, grp := range c.group {
		if grp == g {
			total += n * (kernels.Cols(c.k[i]) + kernels.Cols(c.v[i]))
		}
	}
	return total
}

// Type returns the cache's element type.
func (c *Cache) Type() quant.Type {
	if len(c.k) == 0 {
		return quant.TypeF32
	}
	return c.k[0].Type()
}

// ReadCells appends to dst the keys and values of cells in every layer of
// KV group g of a paged cache, as float32 (exact for every cache type):
// for each layer of the group in order, a row of keys per cell, then a
// row of values per cell (CellValues long). WriteCells takes them back.
func (c *Cache) ReadCells(g int, cells []int32, dst []float32) ([]float32, error) {
	if err := c.checkCells(g, cells); err != nil || len(cells) == 0 {
		return dst, err
	}
	for i, grp := range c.group {
		if grp != g {
			continue
		}
		for _, t := range []kernels.Tensor{c.k[i], c.v[i]} {
			b := t.Backend()
			tmp, err := b.New(quant.TypeF32, kernels.Cols(t), len(cells))
			if err != nil {
				return dst, fmt.Errorf("model: reading cells: %w", err)
			}
			n := len(dst)
			dst = append(dst, make([]float32, kernels.Cols(t)*len(cells))...)
			err = b.GetRows(tmp, t, cells)
			if err == nil {
				err = b.Read(tmp, dst[n:])
			}
			if r, ok := b.(kernels.Recycler); ok {
				r.Recycle(tmp)
			}
			if err != nil {
				return dst[:n], fmt.Errorf("model: reading cells: %w", err)
			}
		}
	}
	return dst, nil
}

// WriteCells stores src, laid out as ReadCells gives it, in cells of KV
// group g of a paged cache. Values read from a cache of the same type are
// stored exactly (see copyRows).
func (c *Cache) WriteCells(g int, cells []int32, src []float32) error {
	if err := c.checkCells(g, cells); err != nil {
		return err
	}
	if want := c.CellValues(g, len(cells)); len(src) != want {
		return fmt.Errorf("model: writing %d values to %d cells of group %d, which take %d", len(src), len(cells), g, want)
	}
	if len(cells) == 0 {
		return nil
	}
	for i, grp := range c.group {
		if grp != g {
			continue
		}
		for _, t := range []kernels.Tensor{c.k[i], c.v[i]} {
			b := t.Backend()
			n := kernels.Cols(t) * len(cells)
			tmp, err := b.New(quant.TypeF32, kernels.Cols(t), len(cells))
			if err != nil {
				return fmt.Errorf("model: writing cells: %w", err)
			}
			err = b.Write(tmp, src[:n])
			if err == nil {
				err = b.SetRows(t, tmp, cells)
			}
			if r, ok := b.(kernels.Recycler); ok {
				r.Recycle(tmp)
			}
			if err != nil {
				return fmt.Errorf("model: writing cells: %w", err)
			}
			src = src[n:]
		}
	}
	return nil
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
