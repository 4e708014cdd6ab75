//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cpu

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"saji/kernels/quant"
)

// TestRelease checks a repacked weight whose file bytes were released
// (dropped from memory), on each kernel set's layouts (Q4_K: the
// sixteen-row layout, on AVX2's kernels or AVX-512's; Q8_0:
// AVX2's four interleaved rows and AVX-512's eight): products of one to
// seventeen activation rows, rows gathered and the whole weight read all
// equal those of the same weight in the file's layout, although the
// released bytes are gone (here anonymous memory, which reads as zeros
// after the drop); the rows after the last group keep their file bytes.
func TestRelease(t *testing.T) {
	for _, c := range []struct {
		set string
		typ quant.Type
	}{{setAVX2, quant.TypeQ4_K}, {setAVXVNNI, quant.TypeQ4_K}, {setAVX512, quant.TypeQ4_K}, {setAVX2, quant.TypeQ8_0}, {setAVXVNNI, quant.TypeQ8_0}, {setAVX512, quant.TypeQ8_0}} {
		t.Run(fmt.Sprintf("%s/%v", c.set, c.typ), func(t *testing.T) { testRelease(t, c.set, c.typ) })
	}
}

// testRelease is TestRelease on the kernel set named set, weights of typ.
func testRelease(t *testing.T, set string, typ quant.Type) {
	kernelSetFor(t, set)
	b, err := NewWithKernels(2, set)
	if err != nil {
		t.Fatal(err)
	}
	if !b.k.packed[typ].whole() {
		t.Skip("cpu: this system cannot release the file's bytes")
	}
	rng := rand.New(rand.NewPCG(75, 76))
	const k, m = 2048, 35
	data := make([]byte, m*k/typ.BlockSize()*typ.TypeSize())
	if err := quant.Quantize(typ, randn(rng, k*m, 0.05), data); err != nil {
		t.Fatal(err)
	}
	anon, err := unix.Mmap(-1, 0, len(data), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(anon)
	copy(anon, data)
	plain, err := b.Weight(typ, []int{k, m}, data)
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Weight(typ, []int{k, m}, anon)
	if err != nil {
		t.Fatal(err)
	}
	if w, err = b.Repack(w); err != nil || !Repacked(w) {
		t.Fatalf("not repacked: %v", err)
	}
	b.Release(w, nil)
	if anon[4096] != 0 || anon[2*4096+17] != 0 {
		t.Fatal("the released pages still hold the file's bytes")
	}
	for _, n := range []int{1, 3, 4, 5, 11, 17} {
		x := randn(rng, k*n, 1)
		got, want := productOn(t, b, w, x, k, m, n), productOn(t, b, plain, x, k, m, n)
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("n=%d: output %d = %v, want %v", n, i, got[i], want[i])
			}
		}
	}
	rows := []int32{0, 15, 16, 31, 32, 34}
	gw, gp := f32(t, b, make([]float32, len(rows)*k), k, len(rows)), f32(t, b, make([]float32, len(rows)*k), k, len(rows))
	if err := b.GetRows(gw, w, rows); err != nil {
		t.Fatal(err)
	}
	if err := b.GetRows(gp, plain, rows); err != nil {
		t.Fatal(err)
	}
	hw, hp := make([]float32, len(rows)*k), make([]float32, len(rows)*k)
	_, _ = b.Read(gw, hw), b.Read(gp, hp)
	if !slices.Equal(hw, hp) {
		t.Fatal("rows gathered from the released weight differ")
	}
	all, allPlain := make([]float32, k*m), make([]float32, k*m)
	if err := b.Read(w, all); err != nil {
		t.Fatal(err)
	}
	if err := b.Read(plain, allPlain); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(all, allPlain) {
		t.Fatal("the released weight reads differently")
	}
}
