package metal

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"

	"saji/kernels/gpu"
)

// This file runs kernels.metal on the CPU: emuDevice is a gpu.Device whose
// launches run a C++ build of the kernels (testdata/msl: a stand-in for
// Metal's standard library that runs each thread group's threads as fibers
// with real barriers and SIMD-group reductions). The kernel tests of
// kernels_test.go run against it on linux, and against the real GPU on a
// Mac, so the kernels' arithmetic, indexing and synchronization are tested
// here even though Metal's compiler is not.

// threadgroupDecl matches a kernel-scope threadgroup array declaration,
// and anyDecl any threadgroup declaration statement.
var (
	threadgroupDecl = regexp.MustCompile(`(?m)^(\s*)threadgroup(\s+\w+\s+\w+\s*\[[^\]\n]*\]\s*;)`)
	anyDecl         = regexp.MustCompile(`(?m)^\s*threadgroup\b[^;(){}]*;`)
)

// emuSource returns kernels.metal with its threadgroup arrays made
// function-scope statics, which the fibers of a thread group share.
func emuSource(src string) (string, error) {
	out := threadgroupDecl.ReplaceAllString(src, "${1}static${2}")
	// Any threadgroup declaration left would be per-thread in C++.
	if d := anyDecl.FindString(stripComments(out)); d != "" {
		return "", fmt.Errorf("a threadgroup declaration the emulator cannot share: %q", strings.TrimSpace(d))
	}
	return out, nil
}

// builtinExprs are the emulator's values of the kernels' builtin
// parameters.
var builtinExprs = map[string]string{
	"threadgroup_position_in_grid":   "msl_emu::tg_pos()",
	"thread_index_in_threadgroup":    "msl_emu::tid()",
	"simdgroup_index_in_threadgroup": "msl_emu::sg()",
	"thread_index_in_simdgroup":      "msl_emu::lane()",
}

// emuDispatch returns the C++ table that calls each kernel with the
// arguments of a launch and the builtins of the running thread.
func emuDispatch(ks []mslKernel) (string, error) {
	var b strings.Builder
	b.WriteString("static const EmuKernel emu_kernels[] = {\n")
	for _, k := range ks {
		var args []string
		for _, p := range k.params {
			if p.attr != "buffer" {
				e, ok := builtinExprs[p.attr]
				if !ok {
					return "", fmt.Errorf("%s: no emulator value for [[%s]]", k.name, p.attr)
				}
				args = append(args, e)
				continue
			}
			kind, ok := kindOf(p.typ)
			if !ok {
				return "", fmt.Errorf("%s: parameter %s of type %s", k.name, p.name, p.typ)
			}
			switch kind {
			case gpu.Ptr:
				ctype := strings.TrimPrefix(p.typ, "device ")
				args = append(args, fmt.Sprintf("(%s)a[%d].p", ctype, p.buffer))
			case gpu.I32:
				args = append(args, fmt.Sprintf("a[%d].i", p.buffer))
			case gpu.F32:
				args = append(args, fmt.Sprintf("a[%d].f", p.buffer))
			}
		}
		fmt.Fprintf(&b, "    {%q, [](EmuArg* a) { ::%s(%s); }},\n", k.name, k.name, strings.Join(args, ", "))
	}
	b.WriteString("};\n")
	return b.String(), nil
}

// buildEmulator compiles the emulator into a temporary directory and
// returns its path, or skips t where it cannot run.
func buildEmulator(t *testing.T) string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("the MSL emulator runs on linux")
	}
	cxx, flags := cxxCompiler(t)
	ks, err := parseMSL(mslSource)
	if err != nil {
		t.Fatal(err)
	}
	src, err := emuSource(mslSource)
	if err != nil {
		t.Fatal(err)
	}
	table, err := emuDispatch(ks)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"kernels.inc": src, "dispatch.inc": table} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shim, err := filepath.Abs(filepath.Join("testdata", "msl"))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "driver")
	args := append([]string{"-std=c++17", "-O1", "-w", "-I", shim, "-I", dir}, flags...)
	args = append(args, "-o", bin, filepath.Join(shim, "driver.cpp"))
	if out, err := exec.Command(cxx, args...).CombinedOutput(); err != nil {
		t.Fatalf("building the MSL emulator: %s %s: %v\n%s", cxx, strings.Join(args, " "), err, out)
	}
	return bin
}

// emuDevice is a gpu.Device over host memory whose Launch runs the
// emulator, synchronously.
type emuDevice struct {
	driver string
	dir    string
	bufs   map[uintptr][]byte
	next   uintptr
}

var _ gpu.Device = (*emuDevice)(nil)

func newEmuDevice(t *testing.T) *emuDevice {
	return &emuDevice{driver: buildEmulator(t), dir: t.TempDir(), bufs: make(map[uintptr][]byte), next: 1}
}

func (e *emuDevice) Name() string { return "metal-emulator" }

func (e *emuDevice) Alloc(n int) (gpu.Buf, error) {
	if n < 0 {
		return gpu.Buf{}, fmt.Errorf("emu: allocating %d bytes", n)
	}
	h := e.next
	e.next++
	e.bufs[h] = make([]byte, n)
	return gpu.Buf{Handle: h, Size: n}, nil
}

func (e *emuDevice) Free(b gpu.Buf) { delete(e.bufs, b.Handle) }

func (e *emuDevice) Map([]byte) (gpu.Buf, int, bool, error) { return gpu.Buf{}, 0, false, nil }

func (e *emuDevice) span(b gpu.Buf, off, n int) ([]byte, error) {
	mem, ok := e.bufs[b.Handle]
	if !ok {
		return nil, fmt.Errorf("emu: unknown buffer %#x", b.Handle)
	}
	if err := gpu.CheckRange(len(mem), off, n); err != nil {
		return nil, fmt.Errorf("emu: %w", err)
	}
	return mem[off : off+n], nil
}

func (e *emuDevice) Upload(dst gpu.Buf, off int, src []byte) error {
	mem, err := e.span(dst, off, len(src))
	if err == nil {
		copy(mem, src)
	}
	return err
}

func (e *emuDevice) Download(src gpu.Buf, off int, dst []byte) error {
	mem, err := e.span(src, off, len(dst))
	if err == nil {
		copy(dst, mem)
	}
	return err
}

func (e *emuDevice) Zero(b gpu.Buf, off, n int) error {
	mem, err := e.span(b, off, n)
	if err == nil {
		clear(mem)
	}
	return err
}

// Launch checks the launch as the Metal device does and runs it.
func (e *emuDevice) Launch(name string, grid, block gpu.Dim3, args ...gpu.Arg) error {
	k, ok := gpu.Lookup(name)
	if !ok {
		return fmt.Errorf("emu: no kernel %q", name)
	}
	run, err := checkLaunch(k, grid, block)
	if err != nil || !run {
		return err
	}
	bs, err := bindArgs(k, args)
	if err != nil {
		return err
	}
	var job bytes.Buffer
	fmt.Fprintf(&job, "kernel %s\ngrid %d %d %d\nblock %d %d %d\n", name, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z)
	index := make(map[uintptr]int)
	var order []uintptr
	for _, b := range bs {
		if b.kind != gpu.Ptr || b.buf == 0 {
			continue
		}
		if _, ok := e.bufs[b.buf]; !ok {
			return fmt.Errorf("emu: %s: argument %d is not a buffer of this device", name, b.index)
		}
		if _, seen := index[b.buf]; !seen {
			index[b.buf] = len(order)
			order = append(order, b.buf)
		}
	}
	fmt.Fprintf(&job, "buffers %d\nargs %d\n", len(order), len(bs))
	for _, b := range bs {
		switch b.kind {
		case gpu.Ptr:
			if b.buf == 0 {
				fmt.Fprintf(&job, "p -1 0\n")
			} else {
				fmt.Fprintf(&job, "p %d %d\n", index[b.buf], b.off)
			}
		case gpu.I32:
			fmt.Fprintf(&job, "i %d\n", int32(b.bits))
		case gpu.F32:
			fmt.Fprintf(&job, "f %d\n", b.bits)
		}
	}
	files := map[string][]byte{"job.txt": job.Bytes()}
	for i, h := range order {
		files[fmt.Sprintf("buf%d", i)] = e.bufs[h]
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(e.dir, name), data, 0o644); err != nil {
			return err
		}
	}
	if out, err := exec.Command(e.driver, e.dir).CombinedOutput(); err != nil {
		return fmt.Errorf("emu: %s over %v×%v: %v\n%s", name, grid, block, err, out)
	}
	for i, h := range order {
		data, err := os.ReadFile(filepath.Join(e.dir, fmt.Sprintf("buf%d", i)))
		if err != nil {
			return err
		}
		if len(data) != len(e.bufs[h]) {
			return fmt.Errorf("emu: buffer %d came back %d bytes long, not %d", i, len(data), len(e.bufs[h]))
		}
		copy(e.bufs[h], data)
	}
	return nil
}

func (e *emuDevice) Sync() error { return nil }

func (e *emuDevice) Memory() (free, total uint64, err error) {
	return math.MaxInt64, math.MaxInt64, nil
}

func (e *emuDevice) Close() error { return nil }

func TestEmuSource(t *testing.T) {
	src := "kernel void f() {\n    threadgroup float a[64 * 33];\n\tthreadgroup float b[4];\n    float c[4];\n}\n" +
		"inline void g(threadgroup float* p) {}\n"
	got, err := emuSource(src)
	if err != nil {
		t.Fatal(err)
	}
	want := "kernel void f() {\n    static float a[64 * 33];\n\tstatic float b[4];\n    float c[4];\n}\n" +
		"inline void g(threadgroup float* p) {}\n"
	if got != want {
		t.Errorf("emuSource =\n%s\nwant\n%s", got, want)
	}
	if _, err := emuSource("kernel void f() {\n    threadgroup float a[4], b[4];\n}\n"); err == nil {
		t.Error("a declaration of two threadgroup arrays passed")
	}
	if _, err := emuSource(mslSource); err != nil {
		t.Errorf("kernels.metal: %v", err)
	}
}

// TestEmulated runs the kernel, device and backend tests on the
// emulator's device (one build of the emulator for all): every kernel
// against the CPU backend, the Device contract, and gpu.Backend's
// operations end to end.
func TestEmulated(t *testing.T) {
	dev := newEmuDevice(t)
	t.Run("kernels", func(t *testing.T) { testKernels(t, dev) })
	t.Run("device", func(t *testing.T) { testDevice(t, dev) })
	t.Run("backend", func(t *testing.T) { testBackend(t, dev) })
}
