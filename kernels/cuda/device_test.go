//go:build linux

package cuda

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ebitengine/purego"

	"saji/kernels/cuda/emu"
	"saji/kernels/gpu"
	"saji/kernels/gpu/gputest"
)

// schedKernels are the kernels of emu/testdata/sched.cu, which test the
// emulator itself and the binding without depending on kernels.cu.
var schedKernels = []string{"emu_ids", "emu_params", "emu_block_sum", "emu_warp_sum",
	"emu_exit_early", "emu_shfl_exited", "emu_deadlock", "emu_store"}

var schedLib = sync.OnceValues(func() (string, error) {
	return emu.Cached(filepath.Join("emu", "testdata", "sched.cu"), schedKernels)
})

// schedDevice opens a device on the emulator of sched.cu, closed with t.
func schedDevice(t *testing.T) *Device {
	t.Helper()
	emu.Require(t)
	lib, err := schedLib()
	if err != nil {
		t.Fatal(err)
	}
	d, err := Open(Options{Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := d.Close(); err != nil {
			t.Error(err)
		}
	})
	return d
}

func TestOpenMissingLibrary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "libcuda-missing.so")
	_, err := Open(Options{Library: path})
	if err == nil || !strings.Contains(err.Error(), "cuda: cannot load the CUDA driver library "+path) {
		t.Fatalf("error %v, want one naming %s", err, path)
	}
	if _, err := Probe(path); err == nil || !strings.Contains(err.Error(), path) {
		t.Fatalf("Probe: error %v, want one naming %s", err, path)
	}
	// The installed driver's library, where there is none, is named too.
	d, err := Open(Options{})
	if err == nil {
		d.Close()
		t.Skip("this machine has a CUDA driver")
	}
	if !strings.Contains(err.Error(), "libcuda.so.1") {
		t.Fatalf("error %v does not name libcuda.so.1", err)
	}
}

func TestOpenEmulator(t *testing.T) {
	d := schedDevice(t)
	if d.Name() != "cuda:0" {
		t.Errorf("name %q", d.Name())
	}
	info := d.Info()
	if info.Name != "Saji CUDA emulator" || info.Major != 8 || info.Minor != 0 || info.Driver != 12040 || info.Memory != 8<<30 {
		t.Errorf("info %+v", info)
	}
	infos, err := Probe(d.drv.lib)
	if err != nil || len(infos) != 1 || infos[0] != info {
		t.Errorf("Probe = %+v, %v; want [%+v]", infos, err, info)
	}
	free, total, err := d.Memory()
	if err != nil || total != 8<<30 || free != total {
		t.Errorf("Memory = %d, %d, %v", free, total, err)
	}
}

func TestOpenErrors(t *testing.T) {
	emu.Require(t)
	lib, err := schedLib()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		env     string
		value   string
		ordinal int
		want    string
	}{
		{"no such device", "", "", 1, "cuda: no CUDA device 1 (the driver reports 1)"},
		{"old GPU", "SAJI_CUDA_EMU_CC", "6.1", 0, "cuda: Saji CUDA emulator has compute capability 6.1; Saji's kernels need 7.0 or later"},
		{"PTX does not compile", "SAJI_CUDA_EMU_JIT_ERROR", "ptxas fatal: unknown directive .foo", 0,
			"cuda: cuModuleLoadDataEx: CUDA_ERROR_INVALID_PTX (a PTX JIT compilation failed); the PTX compiler says: ptxas fatal: unknown directive .foo"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.env != "" {
				t.Setenv(tt.env, tt.value)
			}
			d, err := Open(Options{Library: lib, Ordinal: tt.ordinal})
			if err == nil {
				d.Close()
				t.Fatalf("opened, want %q", tt.want)
			}
			if err.Error() != tt.want {
				t.Fatalf("error %q, want %q", err, tt.want)
			}
		})
	}
	// The failed opens released the primary context: one more opens and
	// closes cleanly.
	d, err := Open(Options{Library: lib})
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
}

func TestMemoryRoundTrip(t *testing.T) {
	d := schedDevice(t)
	b, err := d.Alloc(1000)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(b)
	if b.Size != 1000 || b.Handle == 0 || b.Host != nil {
		t.Fatalf("buffer %+v", b)
	}
	got := make([]byte, 1000)
	if err := d.Download(b, 0, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, make([]byte, 1000)) {
		t.Fatal("a new buffer is not zeroed")
	}
	data := make([]byte, 600)
	for i := range data {
		data[i] = byte(i*7 + 1)
	}
	if err := d.Upload(b, 300, data); err != nil {
		t.Fatal(err)
	}
	for i := range data {
		data[i] = 0 // the upload was staged: the slice may be reused
	}
	if err := d.Zero(b, 400, 100); err != nil {
		t.Fatal(err)
	}
	if err := d.Download(b, 0, got); err != nil {
		t.Fatal(err)
	}
	for i, v := range got {
		want := byte(0)
		if i >= 300 && i < 900 && (i < 400 || i >= 500) {
			want = byte((i-300)*7 + 1)
		}
		if v != want {
			t.Fatalf("byte %d = %d, want %d", i, v, want)
		}
	}
	part := make([]byte, 10)
	if err := d.Download(b, 890, part); err != nil || part[9] != byte((599*7+1)%256) {
		t.Fatalf("tail: %v %v", part, err)
	}
	free, _, err := d.Memory()
	if err != nil || free != 8<<30-1000 {
		t.Errorf("free %d after allocating 1000 bytes (%v)", free, err)
	}
}

func TestMemoryErrors(t *testing.T) {
	d := schedDevice(t)
	b, err := d.Alloc(64)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(b)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"upload past the end", func() error { return d.Upload(b, 60, make([]byte, 8)) }, "cuda: upload: bytes [60, 68) outside a buffer of 64"},
		{"upload at a negative offset", func() error { return d.Upload(b, -1, make([]byte, 1)) }, "cuda: upload: bytes [-1, 0)"},
		{"download past the end", func() error { return d.Download(b, 0, make([]byte, 65)) }, "cuda: download: bytes [0, 65) outside"},
		{"zero past the end", func() error { return d.Zero(b, 64, 1) }, "cuda: zero: bytes [64, 65) outside"},
		{"negative size", func() error { _, err := d.Alloc(-1); return err }, "cuda: allocating -1 bytes"},
		{"out of memory", func() error { _, err := d.Alloc(1 << 40); return err },
			"cuda: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory) (allocating 1099511627776 bytes on cuda:0)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	if _, err := d.Alloc(1 << 40); !errors.Is(err, ErrOutOfMemory) {
		t.Errorf("%v is not ErrOutOfMemory", err)
	}
	// Empty operations succeed; an empty buffer has no memory.
	e, err := d.Alloc(0)
	if err != nil || e.Handle != 0 {
		t.Fatalf("Alloc(0) = %+v, %v", e, err)
	}
	d.Free(e)
	if err := d.Upload(b, 64, nil); err != nil {
		t.Error(err)
	}
	if err := d.Zero(b, 0, 0); err != nil {
		t.Error(err)
	}
	if err := d.Download(b, 64, nil); err != nil {
		t.Error(err)
	}
	if _, _, ok, err := d.Map(make([]byte, 16)); ok || err != nil {
		t.Errorf("Map: ok %v, err %v", ok, err)
	}
}

func TestClosed(t *testing.T) {
	d := schedDevice(t)
	if err := d.Close(); err != nil {
		t.Fatal(err)
	}
	if err := d.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	if _, err := d.Alloc(8); !errors.Is(err, errClosed) {
		t.Errorf("Alloc after Close: %v", err)
	}
	if err := d.Sync(); !errors.Is(err, errClosed) {
		t.Errorf("Sync after Close: %v", err)
	}
	d.Free(gpu.Buf{Handle: 1, Size: 1}) // logged, not a crash
}

func TestLaunchValidation(t *testing.T) {
	d := schedDevice(t)
	b, err := d.Alloc(256)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Free(b)
	block := gpu.Dim3{X: 256, Y: 1, Z: 1}
	args := []gpu.Arg{gpu.P(b, 0), gpu.P(b, 0), gpu.I(64), gpu.F(2)}
	tests := []struct {
		name        string
		kernel      string
		grid, block gpu.Dim3
		args        []gpu.Arg
		want        string
	}{
		{"unknown kernel", "no_such", gpu.Dim3{X: 1, Y: 1, Z: 1}, block, args, `cuda: launch: no kernel named "no_such"`},
		{"wrong count", "scale", gpu.Dim3{X: 1, Y: 1, Z: 1}, block, args[:3], "cuda: launch: scale takes 4 arguments, not 3"},
		{"wrong kind", "scale", gpu.Dim3{X: 1, Y: 1, Z: 1}, block, []gpu.Arg{gpu.P(b, 0), gpu.P(b, 0), gpu.F(64), gpu.F(2)},
			"cuda: launch: scale: argument 2 (n) is f32, not i32"},
		{"wrong block", "scale", gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 128, Y: 1, Z: 1}, args,
			"cuda: launch scale: block 128x1x1, the kernel needs 256x1x1"},
		{"empty grid", "scale", gpu.Dim3{X: 1}, block, args, "cuda: launch scale: empty grid 1x0x0"},
		// The spec's kernel is not in this emulator: the driver says so.
		{"kernel missing from the module", "scale", gpu.Dim3{X: 1, Y: 1, Z: 1}, block, args,
			"cuda: cuModuleGetFunction: CUDA_ERROR_NOT_FOUND (named symbol not found) (kernel scale)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := d.Launch(tt.kernel, tt.grid, tt.block, tt.args...)
			if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
}

// floatBytes returns the little-endian bytes of v.
func floatBytes(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// downloadWords reads n float32s (or int32s as their bits) from b.
func downloadWords(t *testing.T, d *Device, b gpu.Buf, n int) []uint32 {
	t.Helper()
	raw := make([]byte, 4*n)
	if err := d.Download(b, 0, raw); err != nil {
		t.Fatal(err)
	}
	w := make([]uint32, n)
	for i := range w {
		w[i] = binary.LittleEndian.Uint32(raw[4*i:])
	}
	return w
}

func TestEmulatorIndices(t *testing.T) {
	d := schedDevice(t)
	const gx, gy, bx = 3, 2, 64
	out := gputest.Upload(t, d, make([]byte, 4*6*gx*gy*bx))
	if err := d.launch("emu_ids", gpu.Dim3{X: gx, Y: gy, Z: 1}, gpu.Dim3{X: bx, Y: 1, Z: 1}, []gpu.Arg{gpu.P(out, 0)}); err != nil {
		t.Fatal(err)
	}
	w := downloadWords(t, d, out, 6*gx*gy*bx)
	for y := range gy {
		for x := range gx {
			for tid := range bx {
				i := (y*gx+x)*bx + tid
				want := []uint32{uint32(tid), uint32(x), uint32(y), bx, gx, gy}
				for k, v := range want {
					if w[6*i+k] != v {
						t.Fatalf("thread %d of block (%d,%d): %v, want %v", tid, x, y, w[6*i:6*i+6], want)
					}
				}
			}
		}
	}
}

func TestEmulatorParams(t *testing.T) {
	d := schedDevice(t)
	a := gputest.Upload(t, d, floatBytes([]float32{0, 0, 42.5}))
	out := gputest.Upload(t, d, make([]byte, 16))
	args := []gpu.Arg{gpu.P(a, 8), gpu.I(-123456), gpu.F(0.375), gpu.P(out, 0), gpu.I(7)}
	if err := d.launch("emu_params", gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 32, Y: 1, Z: 1}, args); err != nil {
		t.Fatal(err)
	}
	w := downloadWords(t, d, out, 4)
	want := []float32{42.5, -123456, 0.375, 7}
	for i := range want {
		if got := math.Float32frombits(w[i]); got != want[i] {
			t.Errorf("value %d = %v, want %v", i, got, want[i])
		}
	}
}

func TestEmulatorBarriersAndShuffles(t *testing.T) {
	d := schedDevice(t)
	for _, bx := range []int{32, 128, 256, 1024} {
		const blocks = 3
		x := make([]float32, blocks*bx)
		for i := range x {
			x[i] = float32(i%17) - 3
		}
		in := gputest.Upload(t, d, floatBytes(x))
		sums := gputest.Upload(t, d, make([]byte, 4*blocks))
		lanes := gputest.Upload(t, d, make([]byte, 4*len(x)))
		grid := gpu.Dim3{X: blocks, Y: 1, Z: 1}
		block := gpu.Dim3{X: uint32(bx), Y: 1, Z: 1}
		if err := d.launch("emu_block_sum", grid, block, []gpu.Arg{gpu.P(in, 0), gpu.P(sums, 0)}); err != nil {
			t.Fatal(err)
		}
		if err := d.launch("emu_warp_sum", grid, block, []gpu.Arg{gpu.P(in, 0), gpu.P(lanes, 0)}); err != nil {
			t.Fatal(err)
		}
		got := downloadWords(t, d, sums, blocks)
		for b := range blocks {
			want := float32(0)
			for _, v := range x[b*bx : (b+1)*bx] {
				want += v
			}
			if s := math.Float32frombits(got[b]); s != want {
				t.Errorf("block %d of %d: sum %v, want %v", b, bx, s, want)
			}
		}
		gotLanes := downloadWords(t, d, lanes, len(x))
		for w := 0; w < len(x); w += 32 {
			want := float32(0)
			for _, v := range x[w : w+32] {
				want += v
			}
			for l := range 32 {
				if s := math.Float32frombits(gotLanes[w+l]); s != want {
					t.Fatalf("block size %d, lane %d: warp sum %v, want %v", bx, w+l, s, want)
				}
			}
		}
	}
}

func TestEmulatorExitedThreadsPassBarriers(t *testing.T) {
	d := schedDevice(t)
	out := gputest.Upload(t, d, make([]byte, 4*256))
	if err := d.launch("emu_exit_early", gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 256, Y: 1, Z: 1}, []gpu.Arg{gpu.P(out, 0), gpu.I(100)}); err != nil {
		t.Fatal(err)
	}
	w := downloadWords(t, d, out, 256)
	for i := range 100 {
		if got := math.Float32frombits(w[i]); got != float32(99-i) {
			t.Fatalf("out[%d] = %v, want %d", i, got, 99-i)
		}
	}
}

func TestEmulatorFailures(t *testing.T) {
	d := schedDevice(t)
	out := gputest.Upload(t, d, make([]byte, 4*256))
	tests := []struct {
		kernel string
		want   string
	}{
		{"emu_shfl_exited", "cuda: cuLaunchKernel: CUDA_ERROR_LAUNCH_FAILED (unspecified launch failure) (kernel emu_shfl_exited, grid 2x1x1)"},
		{"emu_deadlock", "cuda: cuLaunchKernel: CUDA_ERROR_LAUNCH_TIMEOUT (the launch timed out and was terminated) (kernel emu_deadlock, grid 2x1x1)"},
	}
	for _, tt := range tests {
		t.Run(tt.kernel, func(t *testing.T) {
			err := d.launch(tt.kernel, gpu.Dim3{X: 2, Y: 1, Z: 1}, gpu.Dim3{X: 128, Y: 1, Z: 1}, []gpu.Arg{gpu.P(out, 0)})
			if err == nil || err.Error() != tt.want {
				t.Fatalf("error %v, want %q", err, tt.want)
			}
		})
	}
	// A pointer that is not device memory is refused before the kernel runs.
	host := []gpu.Arg{gpu.P(gpu.Buf{Handle: 0x1000, Size: 16}, 0)}
	if err := d.launch("emu_ids", gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 1, Y: 1, Z: 1}, host); err == nil ||
		!strings.Contains(err.Error(), "CUDA_ERROR_INVALID_VALUE") {
		t.Fatalf("launch with a host pointer: %v", err)
	}
	// The device still works after failed launches.
	if err := d.launch("emu_ids", gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 32, Y: 1, Z: 1}, []gpu.Arg{gpu.P(out, 0)}); err != nil {
		t.Fatal(err)
	}
	if err := d.Sync(); err != nil {
		t.Fatal(err)
	}
}

// TestConcurrentUse runs the device from several goroutines at once: the
// binding serializes them and makes the context current on each thread.
func TestConcurrentUse(t *testing.T) {
	d := schedDevice(t)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			x := make([]float32, 128)
			for i := range x {
				x[i] = float32(g)
			}
			for range 10 {
				in, err := d.Alloc(4 * 128)
				if err != nil {
					errs <- err
					return
				}
				sums, err := d.Alloc(4)
				if err != nil {
					errs <- err
					return
				}
				err = d.Upload(in, 0, floatBytes(x))
				if err == nil {
					err = d.launch("emu_block_sum", gpu.Dim3{X: 1, Y: 1, Z: 1}, gpu.Dim3{X: 128, Y: 1, Z: 1}, []gpu.Arg{gpu.P(in, 0), gpu.P(sums, 0)})
				}
				got := make([]byte, 4)
				if err == nil {
					err = d.Download(sums, 0, got)
				}
				d.Free(in)
				d.Free(sums)
				if err != nil {
					errs <- err
					return
				}
				if s := math.Float32frombits(binary.LittleEndian.Uint32(got)); s != float32(128*g) {
					errs <- errors.New("wrong sum")
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestEmulatorSignatures checks the parameter kinds of every kernel as
// kernels.cu declares it (deduced by the emulator's registry) against the
// spec: the emulator reads each argument with the kernel's own type.
func TestEmulatorSignatures(t *testing.T) {
	lib := emu.Library(t)
	h, err := purego.Dlopen(lib, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		t.Fatal(err)
	}
	sym, err := purego.Dlsym(h, "sajiEmuSignature")
	if err != nil {
		t.Fatal(err)
	}
	var signature func(name string) string
	purego.RegisterFunc(&signature, sym)
	kinds := map[gpu.ArgKind]byte{gpu.Ptr: 'p', gpu.I32: 'i', gpu.F32: 'f'}
	for _, k := range gpu.Kernels {
		want := make([]byte, len(k.Params))
		for i, p := range k.Params {
			want[i] = kinds[p.Kind]
		}
		if got := signature(k.Name); got != string(want) {
			t.Errorf("%s: kernels.cu declares %q, the spec %q (%s)", k.Name, got, want, k.Signature())
		}
	}
	if got := signature("no_such_kernel"); got != "" {
		t.Errorf("an unknown kernel has signature %q", got)
	}
}

// TestEmulatorGuardPages checks that a kernel writing past its buffer
// crashes (in a child process: the crash takes the process down), and
// that one writing its last value does not.
func TestEmulatorGuardPages(t *testing.T) {
	if os.Getenv("SAJI_EMU_GUARD_CHILD") == "1" {
		d := schedDevice(t)
		b, err := d.Alloc(4 * 100)
		if err != nil {
			t.Fatal(err)
		}
		one := gpu.Dim3{X: 1, Y: 1, Z: 1}
		if err := d.launch("emu_store", one, one, []gpu.Arg{gpu.P(b, 0), gpu.I(99)}); err != nil {
			t.Fatal(err)
		}
		fmt.Println("last value written")
		// 100 floats round up to 512 bytes: 1024 is past the guard.
		_ = d.launch("emu_store", one, one, []gpu.Arg{gpu.P(b, 0), gpu.I(256)})
		fmt.Println("no crash")
		return
	}
	emu.Require(t)
	if _, err := schedLib(); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestEmulatorGuardPages$", "-test.v")
	cmd.Env = append(os.Environ(), "SAJI_EMU_GUARD_CHILD=1")
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "last value written") || strings.Contains(string(out), "no crash") ||
		!strings.Contains(string(out), "SIGSEGV") {
		t.Fatalf("child: %v\n%s", err, out)
	}
}
