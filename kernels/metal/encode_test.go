package metal

import (
	"math"
	"reflect"
	"strings"
	"testing"

	"saji/kernels/gpu"
)

func mustKernel(t *testing.T, name string) gpu.Kernel {
	t.Helper()
	k, ok := gpu.Lookup(name)
	if !ok {
		t.Fatalf("no kernel %s in gpu.Kernels", name)
	}
	return k
}

func TestBindArgs(t *testing.T) {
	x := gpu.Buf{Handle: 0x100, Size: 4096}
	w := gpu.Buf{Handle: 0x200, Size: 64}
	y := gpu.Buf{Handle: 0x300, Size: 4096}
	rms := mustKernel(t, "rms_norm")

	bs, err := bindArgs(rms, []gpu.Arg{gpu.P(x, 512), gpu.P(w, 0), gpu.P(y, 4096), gpu.I(96), gpu.F(1e-6), gpu.I(1)})
	if err != nil {
		t.Fatal(err)
	}
	want := []binding{
		{index: 0, kind: gpu.Ptr, buf: 0x100, off: 512},
		{index: 1, kind: gpu.Ptr, buf: 0x200},
		{index: 2, kind: gpu.Ptr, buf: 0x300, off: 4096}, // the end of a buffer is a valid offset
		{index: 3, kind: gpu.I32, bits: 96},
		{index: 4, kind: gpu.F32, bits: math.Float32bits(1e-6)},
		{index: 5, kind: gpu.I32, bits: 1},
	}
	if !reflect.DeepEqual(bs, want) {
		t.Errorf("bindArgs =\n%+v\nwant\n%+v", bs, want)
	}

	// A nullable pointer without a buffer: bound to the placeholder (buf 0).
	bs, err = bindArgs(rms, []gpu.Arg{gpu.P(x, 0), gpu.P(gpu.Buf{}, 0), gpu.P(y, 0), gpu.I(96), gpu.F(1e-6), gpu.I(0)})
	if err != nil {
		t.Fatal(err)
	}
	if bs[1] != (binding{index: 1, kind: gpu.Ptr}) {
		t.Errorf("a Ptr without a buffer binds %+v", bs[1])
	}

	// Negative integers keep their two's-complement bits.
	add := mustKernel(t, "scale")
	bs, err = bindArgs(add, []gpu.Arg{gpu.P(x, 0), gpu.P(y, 0), gpu.I(-3), gpu.F(-0.5)})
	if err != nil {
		t.Fatal(err)
	}
	if bs[2].bits != 0xfffffffd || bs[3].bits != 0xbf000000 {
		t.Errorf("scalars bind bits %#x, %#x; want 0xfffffffd, 0xbf000000", bs[2].bits, bs[3].bits)
	}

	for _, tc := range []struct {
		name string
		args []gpu.Arg
		want string
	}{
		{"too few", []gpu.Arg{gpu.P(x, 0), gpu.P(w, 0), gpu.P(y, 0), gpu.I(96), gpu.F(1e-6)}, "takes 6 arguments, not 5"},
		{"too many", []gpu.Arg{gpu.P(x, 0), gpu.P(w, 0), gpu.P(y, 0), gpu.I(96), gpu.F(1e-6), gpu.I(1), gpu.I(2)}, "takes 6 arguments, not 7"},
		{"int for float", []gpu.Arg{gpu.P(x, 0), gpu.P(w, 0), gpu.P(y, 0), gpu.I(96), gpu.I(1), gpu.I(1)}, "argument 4 (eps) is i32, not f32"},
		{"ptr for int", []gpu.Arg{gpu.P(x, 0), gpu.P(w, 0), gpu.P(y, 0), gpu.P(x, 0), gpu.F(1e-6), gpu.I(1)}, "argument 3 (n) is ptr, not i32"},
		{"int for ptr", []gpu.Arg{gpu.I(0), gpu.P(w, 0), gpu.P(y, 0), gpu.I(96), gpu.F(1e-6), gpu.I(1)}, "argument 0 (x) is i32, not ptr"},
		{"offset past the end", []gpu.Arg{gpu.P(x, 4097), gpu.P(w, 0), gpu.P(y, 0), gpu.I(96), gpu.F(1e-6), gpu.I(1)}, "offset 4097 outside its buffer of 4096 bytes"},
		{"negative offset", []gpu.Arg{gpu.P(x, -4), gpu.P(w, 0), gpu.P(y, 0), gpu.I(96), gpu.F(1e-6), gpu.I(1)}, "offset -4 outside"},
		{"offset without buffer", []gpu.Arg{gpu.P(x, 0), gpu.P(gpu.Buf{}, 8), gpu.P(y, 0), gpu.I(96), gpu.F(1e-6), gpu.I(1)}, "has an offset but no buffer"},
		{"unknown kind", []gpu.Arg{gpu.P(x, 0), gpu.P(w, 0), gpu.P(y, 0), gpu.I(96), {Kind: gpu.F32 + 1}, gpu.I(1)}, "is ArgKind(3), not f32"},
	} {
		_, err := bindArgs(rms, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "metal: ") {
			t.Errorf("%s: bindArgs error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
}

// TestBindArgsEveryKernel binds a well-formed argument list of every
// kernel: parameter i at index i, each as its kind.
func TestBindArgsEveryKernel(t *testing.T) {
	b := gpu.Buf{Handle: 0x1000, Size: 1 << 20}
	for _, k := range gpu.Kernels {
		args := make([]gpu.Arg, len(k.Params))
		for i, p := range k.Params {
			switch p.Kind {
			case gpu.Ptr:
				args[i] = gpu.P(b, 16*i)
			case gpu.I32:
				args[i] = gpu.I(i)
			case gpu.F32:
				args[i] = gpu.F(float32(i) / 2)
			}
		}
		bs, err := bindArgs(k, args)
		if err != nil {
			t.Errorf("%s: %v", k.Name, err)
			continue
		}
		for i, bd := range bs {
			ok := bd.index == i && bd.kind == k.Params[i].Kind
			switch bd.kind {
			case gpu.Ptr:
				ok = ok && bd.buf == b.Handle && bd.off == 16*i
			case gpu.I32:
				ok = ok && bd.bits == uint32(i)
			case gpu.F32:
				ok = ok && bd.bits == math.Float32bits(float32(i)/2)
			}
			if !ok {
				t.Errorf("%s: parameter %d (%s) binds %+v", k.Name, i, k.Params[i].Name, bd)
			}
		}
	}
}

func TestCheckLaunch(t *testing.T) {
	mv := mustKernel(t, "mul_mat_vec_q4_k") // 128 threads
	for _, tc := range []struct {
		grid, block gpu.Dim3
		run         bool
		err         string
	}{
		{gpu.Dim3{X: 3, Y: 2, Z: 1}, gpu.Dim3{X: 128, Y: 1, Z: 1}, true, ""},
		{gpu.Dim3{X: 3, Y: 2, Z: 1}, gpu.Dim3{X: 32, Y: 4, Z: 1}, true, ""},
		{gpu.Dim3{X: 0, Y: 2, Z: 1}, gpu.Dim3{X: 128, Y: 1, Z: 1}, false, ""},
		{gpu.Dim3{X: 1, Y: 1, Z: 0}, gpu.Dim3{X: 128, Y: 1, Z: 1}, false, ""},
		{gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 256, Y: 1, Z: 1}, false, "runs thread groups of 128 threads, not 256×1×1"},
		{gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 128, Y: 1, Z: 0}, false, "not 128×1×0"},
		{gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 1 << 31, Y: 1 << 31, Z: 2}, false, "runs thread groups of 128"},
	} {
		run, err := checkLaunch(mv, tc.grid, tc.block)
		if run != tc.run || (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("checkLaunch(%v, %v) = %v, %v; want %v, %q", tc.grid, tc.block, run, err, tc.run, tc.err)
		}
	}
}

func TestCheckPipeline(t *testing.T) {
	mm := mustKernel(t, "mul_mat_q6_k") // 256 threads
	for _, tc := range []struct {
		maxThreads, width uint64
		err               string
	}{
		{1024, 32, ""},
		{256, 32, ""},
		{192, 32, "at most 192 threads per thread group"},
		{1024, 64, "SIMD groups are 64 threads wide"},
		{1024, 16, "SIMD groups are 16 threads wide"},
	} {
		err := checkPipeline(mm, tc.maxThreads, tc.width)
		if (err == nil) != (tc.err == "") || (err != nil && !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("checkPipeline(%d, %d) = %v, want %q", tc.maxThreads, tc.width, err, tc.err)
		}
	}
}
