package metal

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"saji/kernels/gpu"
)

// testDevice checks the gpu.Device contract beyond the kernels: zeroed
// allocations, copies at offsets and their bounds, queue order between
// launches and copies, long sequences of launches, launch validation and
// zero-copy mapping (where the device maps). It runs on the emulator's
// device (linux) and on the Metal device (Mac).
func testDevice(t *testing.T, dev gpu.Device) {
	r := &kernelRig{dev: dev}

	t.Run("alloc upload download zero", func(t *testing.T) {
		b := r.zeros(t, 1000)
		if got := r.read(t, b, 1000); !bytes.Equal(got, make([]byte, 1000)) {
			t.Fatal("a new buffer is not zeroed")
		}
		want := make([]byte, 1000)
		for i := range 50 {
			want[100+i] = byte(i + 1)
		}
		if err := dev.Upload(b, 100, want[100:150]); err != nil {
			t.Fatal(err)
		}
		if err := dev.Zero(b, 120, 10); err != nil {
			t.Fatal(err)
		}
		clear(want[120:130])
		if got := r.read(t, b, 1000); !bytes.Equal(got, want) {
			t.Errorf("after an upload and a zero the buffer holds %v, want %v", got[95:155], want[95:155])
		}
		part := make([]byte, 10)
		if err := dev.Download(b, 140, part); err != nil || !bytes.Equal(part, want[140:150]) {
			t.Errorf("Download at 140 = %v, %v; want %v", part, err, want[140:150])
		}
		for name, err := range map[string]error{
			"upload past the end":   dev.Upload(b, 995, make([]byte, 10)),
			"download past the end": dev.Download(b, 991, make([]byte, 10)),
			"zero past the end":     dev.Zero(b, 1000, 1),
			"negative offset":       dev.Upload(b, -1, make([]byte, 1)),
			"negative length":       dev.Zero(b, 0, -1),
		} {
			if err == nil {
				t.Errorf("%s: no error", name)
			}
		}
		e := r.zeros(t, 0)
		if err := dev.Download(e, 0, nil); err != nil {
			t.Errorf("reading nothing of an empty buffer: %v", err)
		}
	})

	t.Run("queue order", func(t *testing.T) {
		const n = 300
		ones := make([]float32, n)
		for i := range ones {
			ones[i] = 1
		}
		x := r.buf(t, f32Bytes(ones))
		y, z := r.zeros(t, 4*n), r.zeros(t, 4*n)
		g := grid(ceilDiv(n, gpu.ElemBlock), 1)
		block := gpu.Dim3{X: gpu.ElemBlock, Y: 1, Z: 1}
		// y = 2x; x = 5 (an upload after the launch); z = 2x.
		if err := dev.Launch("scale", g, block, gpu.P(x, 0), gpu.P(y, 0), gpu.I(n), gpu.F(2)); err != nil {
			t.Fatal(err)
		}
		fives := make([]float32, n)
		for i := range fives {
			fives[i] = 5
		}
		if err := dev.Upload(x, 0, f32Bytes(fives)); err != nil {
			t.Fatal(err)
		}
		if err := dev.Launch("scale", g, block, gpu.P(x, 0), gpu.P(z, 0), gpu.I(n), gpu.F(2)); err != nil {
			t.Fatal(err)
		}
		// 100 in-place additions, more than one command buffer holds.
		for range 100 {
			if err := dev.Launch("add", g, block, gpu.P(z, 0), gpu.P(x, 0), gpu.P(z, 0), gpu.I(n), gpu.I(n)); err != nil {
				t.Fatal(err)
			}
		}
		if err := dev.Sync(); err != nil {
			t.Fatal(err)
		}
		for name, c := range map[string]struct {
			b    gpu.Buf
			want float32
		}{"y": {y, 2}, "z": {z, 10 + 100*5}} {
			got := bytesF32(r.read(t, c.b, 4*n))
			for i, v := range got {
				if v != c.want {
					t.Errorf("%s[%d] = %g, want %g", name, i, v, c.want)
					break
				}
			}
		}
	})

	t.Run("launch validation", func(t *testing.T) {
		x := r.zeros(t, 64)
		block := gpu.Dim3{X: gpu.ElemBlock, Y: 1, Z: 1}
		for name, err := range map[string]error{
			"unknown kernel": dev.Launch("no_such_kernel", grid(1, 1), block),
			"wrong block":    dev.Launch("scale", grid(1, 1), gpu.Dim3{X: 128, Y: 1, Z: 1}, gpu.P(x, 0), gpu.P(x, 0), gpu.I(16), gpu.F(1)),
			"few arguments":  dev.Launch("scale", grid(1, 1), block, gpu.P(x, 0), gpu.P(x, 0), gpu.I(16)),
			"wrong kind":     dev.Launch("scale", grid(1, 1), block, gpu.P(x, 0), gpu.P(x, 0), gpu.I(16), gpu.I(1)),
			"foreign buffer": dev.Launch("scale", grid(1, 1), block, gpu.P(gpu.Buf{Handle: 0xdead0, Size: 64}, 0), gpu.P(x, 0), gpu.I(16), gpu.F(1)),
		} {
			if err == nil || !strings.Contains(err.Error(), ": ") {
				t.Errorf("%s: error %v", name, err)
			}
		}
		if err := dev.Launch("scale", grid(0, 1), block, gpu.P(x, 0), gpu.P(x, 0), gpu.I(16), gpu.F(1)); err != nil {
			t.Errorf("an empty grid: %v", err)
		}
		if err := dev.Sync(); err != nil {
			t.Errorf("Sync after rejected launches: %v", err)
		}
	})

	t.Run("map", func(t *testing.T) {
		// 300 floats at an odd place of a larger allocation, as a weight
		// in a mapped model file.
		const cols, rows = 100, 3
		table := make([]float32, cols*rows)
		for i := range table {
			table[i] = float32(i) * 0.5
		}
		host := make([]byte, 3*65536)
		data := host[65536-40 : 65536-40+4*len(table)]
		copy(data, f32Bytes(table))
		b, off, ok, err := dev.Map(data)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			t.Skipf("%s does not map host memory", dev.Name())
		}
		defer dev.Free(b)
		if off < 0 || off+len(data) > b.Size {
			t.Fatalf("Map returned offset %d in a buffer of %d for %d bytes", off, b.Size, len(data))
		}
		got := make([]byte, len(data))
		if err := dev.Download(b, off, got); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("reading the mapped data back: %v (equal %v)", err, bytes.Equal(got, data))
		}
		ids := []int32{2, 0}
		dst := r.zeros(t, 4*cols*len(ids))
		if err := dev.Launch("get_rows_f32", grid(len(ids), 1), gpu.Dim3{X: gpu.ElemBlock, Y: 1, Z: 1},
			gpu.P(b, off), gpu.P(r.buf(t, i32Bytes(ids)), 0), gpu.P(dst, 0), gpu.I(cols), gpu.I(4*cols)); err != nil {
			t.Fatal(err)
		}
		want := append(append([]float32(nil), table[2*cols:3*cols]...), table[:cols]...)
		compare(t, "get_rows over a mapped table", bytesF32(r.read(t, dst, 4*cols*len(ids))), want, []float64{0}, 0)
		if err := dev.Upload(b, off, make([]byte, 4)); err == nil {
			t.Error("an upload into mapped (caller's) memory passed")
		}
		if math.Float32frombits(uint32(data[4])|uint32(data[5])<<8|uint32(data[6])<<16|uint32(data[7])<<24) != 0.5 {
			t.Error("the mapped data changed")
		}
	})
}
