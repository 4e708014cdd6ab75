package cpu

import (
	"fmt"

	"saji/kernels"
)

// RowBytes appends to dst the bytes of rows of t in t's own type, as they
// lie in memory: a KV cache's cells saved without a conversion.
func (b *Backend) RowBytes(t kernels.Tensor, rows []int32, dst []byte) ([]byte, error) {
	c, err := b.rawRows(t, rows)
	if err != nil {
		return dst, err
	}
	for _, r := range rows {
		dst = append(dst, c.row(int(r))...)
	}
	return dst, nil
}

// SetRowBytes stores src, rows of t's type in a row (RowBytes's layout),
// in rows of t.
func (b *Backend) SetRowBytes(t kernels.Tensor, rows []int32, src []byte) error {
	c, err := b.rawRows(t, rows)
	if err != nil {
		return err
	}
	n := c.rowBytes()
	if len(src) != n*len(rows) {
		return fmt.Errorf("cpu: %d bytes for %d rows of %d", len(src), len(rows), n)
	}
	for i, r := range rows {
		copy(c.data[int(r)*n:(int(r)+1)*n], src[i*n:(i+1)*n])
	}
	return nil
}

// rawRows checks that rows of t, a tensor New made, can be copied as
// bytes.
func (b *Backend) rawRows(t kernels.Tensor, rows []int32) (*tensor, error) {
	c, err := b.own(t)
	if err != nil {
		return nil, err
	}
	if c.released || c.packed != nil || len(c.data) < c.rows()*c.rowBytes() {
		return nil, fmt.Errorf("cpu: the rows of %v tensor %v are not stored as bytes", c.typ, c.shape)
	}
	for _, r := range rows {
		if r < 0 || int(r) >= c.rows() {
			return nil, fmt.Errorf("cpu: row %d of a tensor of %d rows", r, c.rows())
		}
	}
	return c, nil
}
