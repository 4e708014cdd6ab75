//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package cpu

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"golang.org/x/sys/unix"

	"saji/kernels/quant"
)

// TestRelease checks a repacked Q4_K weight whose file bytes were released
// (dropped from memory), on each kernel set's layout (AVX2's and AVX-VNNI's
// four interleaved rows, opt-in; AVX-512's sixteen): products of one to eleven
// activation rows, rows gathered and the whole weight read all equal those
// of the same weight in the file's layout, although the released bytes are
// gone (here anonymous memory, which reads as zeros after the drop); the
// rows after the last group keep their file bytes.
func TestRelease(t *testing.T) {
	for _, set := range []string{setAVX2, setAVXVNNI, setAVX512} {
		t.Run(set, func(t *testing.T) { testRelease(t, set) })
	}
}

// testRelease is TestRelease on the kernel set named set.
func testRelease(t *testing.T, set string) {
	kernelSetFor(t, set)
	b, err := NewWithKernels(2, set)
	if err != nil {
		t.Fatal(err)
	}
	if !b.k.packed[quant.TypeQ4_K].whole() {
		t.Skip("cpu: this system cannot release the file's bytes")
	}
	if b.k.packed[quant.TypeQ4_K].optIn {
		t.Setenv("SAJI_REPACK", "on")
	}
	rng := rand.New(rand.NewPCG(75, 76))
	const k, m = 2048, 35
	data := make([]byte, m*k/256*144)
	if err := quant.Quantize(quant.TypeQ4_K, randn(rng, k*m, 0.05), data); err != nil {
		t.Fatal(err)
	}
	anon, err := unix.Mmap(-1, 0, len(data), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANON|unix.MAP_PRIVATE)
	if err != nil {
		t.Fatal(err)
	}
	defer unix.Munmap(anon)
	copy(anon, data)
	plain, err := b.Weight(quant.TypeQ4_K, []int{k, m}, data)
	if err != nil {
		t.Fatal(err)
	}
	w, err := b.Weight(quant.TypeQ4_K, []int{k, m}, anon)
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
	for _, n := range []int{1, 3, 4, 5, 11} {
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
