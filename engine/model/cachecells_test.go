package model

import (
	"bytes"
	"context"
	"testing"

	"saji/kernels"
	"saji/kernels/quant"
)

// TestCacheCells checks that cells read out of a paged cache and written
// into other cells (of a new cache too, as a restore from disk does) read
// back byte for byte in every group and cache type, that the CPU's copy of
// the bytes and the path through float32 of other backends agree, and
// that bad cells, groups and lengths are refused.
func TestCacheCells(t *testing.T) {
	_, m, _ := loadRef(t, "tiny-gemma3-q8_0")
	groups := m.KVGroups()
	for _, kv := range []quant.Type{quant.TypeF32, quant.TypeF16, quant.TypeQ8_0} {
		cache, err := m.NewPagedCache([]int{64, 64}, 1, kv)
		if err != nil {
			t.Fatal(err)
		}
		if cache.Type() != kv {
			t.Errorf("a %v cache says %v", kv, cache.Type())
		}
		prompt := []int32{2, 10, 20, 30, 40, 50}
		cells := [][]int32{span(0, 6), span(0, 6)}
		if _, err := m.ForwardBatch(context.Background(), &Batch{Tokens: prompt, Pos: span(0, 6),
			Seqs: []SeqBatch{{N: 6, Cells: cells, Logits: true}}}, cache); err != nil {
			t.Fatal(err)
		}
		other, err := m.NewPagedCache([]int{64, 64}, 1, kv)
		if err != nil {
			t.Fatal(err)
		}
		for g, grp := range groups {
			vals, err := cache.ReadCells(g, span(0, 6), nil)
			if err != nil {
				t.Fatal(err)
			}
			if want := 6 * grp.CellBytes(kv); len(vals) != want || cache.CellBytes(g, 6) != want {
				t.Fatalf("%v group %d: %d bytes (CellBytes %d), want %d", kv, g, len(vals), cache.CellBytes(g, 6), want)
			}
			if err := other.WriteCells(g, span(40, 46), vals); err != nil {
				t.Fatal(err)
			}
			back, err := other.ReadCells(g, span(40, 46), nil)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(vals, back) {
				t.Errorf("%v group %d: the cells differ after a write and a read", kv, g)
			}
			// The path of backends without RowBytes gives the same bytes.
			var slow []byte
			for l, lg := range cache.group {
				if lg != g {
					continue
				}
				for _, x := range []kernels.Tensor{cache.k[l], cache.v[l]} {
					if slow, err = readRows(x, span(0, 6), slow); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !bytes.Equal(vals, slow) {
				t.Errorf("%v group %d: the cells read through float32 differ", kv, g)
			}
			for l, lg := range other.group {
				if lg == g {
					n := rowSize(other.k[l]) * 6
					if err := writeRows(other.k[l], span(50, 56), slow[:n]); err != nil {
						t.Fatal(err)
					}
					got, err := other.k[l].Backend().(rowBytes).RowBytes(other.k[l], span(50, 56), nil)
					if err != nil || !bytes.Equal(got, slow[:n]) {
						t.Errorf("%v layer %d: keys written through float32 read back differently (%v)", kv, l, err)
					}
					slow = slow[n+rowSize(other.v[l])*6:]
				}
			}
			if err := other.WriteCells(g, span(0, 5), vals); err == nil {
				t.Errorf("%v: writing 6 cells' values to 5 cells succeeded", kv)
			}
		}
		if _, err := cache.ReadCells(0, []int32{64}, nil); err == nil {
			t.Errorf("%v: reading a cell outside the group succeeded", kv)
		}
		if _, err := cache.ReadCells(2, []int32{0}, nil); err == nil {
			t.Errorf("%v: reading a group the cache lacks succeeded", kv)
		}
	}
	solo, err := m.NewCache(8, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := solo.ReadCells(0, []int32{0}, nil); err == nil {
		t.Error("reading cells of a contiguous cache succeeded")
	}
}
