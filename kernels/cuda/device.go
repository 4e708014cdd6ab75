package cuda

import (
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"unsafe"

	"saji/kernels/gpu"
)

// Options selects the device Open opens.
type Options struct {
	// Ordinal is the CUDA device number: 0 for the first GPU.
	Ordinal int
	// Library is the CUDA driver library to load; "" is the installed
	// driver's (libcuda.so.1 on Linux, nvcuda.dll from System32 on
	// Windows). Tests point it at an emulator.
	Library string
}

// Info describes one CUDA device.
type Info struct {
	// Ordinal is the device's number (Options.Ordinal).
	Ordinal int
	// Name is the device's marketing name ("NVIDIA GeForce RTX 4090").
	Name string
	// Memory is the device's total memory in bytes.
	Memory uint64
	// Major and Minor are the compute capability (8, 9 for sm_89).
	Major, Minor int
	// Driver is the CUDA driver API version, 1000·major + 10·minor
	// (12040 for CUDA 12.4).
	Driver int
}

// String reads "NVIDIA GeForce RTX 4090 (cuda:0, 24.0 GiB, compute 8.9, CUDA 12.4)".
func (i Info) String() string {
	return fmt.Sprintf("%s (cuda:%d, %.1f GiB, compute %d.%d, CUDA %d.%d)",
		i.Name, i.Ordinal, float64(i.Memory)/(1<<30), i.Major, i.Minor, i.Driver/1000, i.Driver%1000/10)
}

// Minimum compute capability of Saji's kernels: the PTX targets sm_70.
const minMajor, minMinor = 7, 0

// jitLogSize is the size of each JIT log buffer of the module load.
const jitLogSize = 16 << 10

// Device is one CUDA GPU, implementing gpu.Device over the device's
// primary context, one stream and the module of Saji's kernels. It is safe
// for concurrent use: every call holds a mutex and makes the context
// current on its OS thread, since goroutines move between threads.
type Device struct {
	mu     sync.Mutex
	drv    *driver
	info   Info
	dev    int32   // CUdevice
	ctx    uintptr // the primary context
	stream uintptr
	mod    uintptr
	funcs  map[string]uintptr // kernels looked up so far
	closed bool
}

var _ gpu.Device = (*Device)(nil)

// errClosed is returned by the methods of a closed Device.
var errClosed = errors.New("cuda: the device is closed")

// Open opens CUDA device opts.Ordinal: it loads the driver, retains the
// device's primary context, creates a stream and loads the kernels' PTX
// (compiled by the driver for the device). Close releases it all.
func Open(opts Options) (*Device, error) {
	drv, err := loadDriver(opts.Library)
	if err != nil {
		return nil, err
	}
	info, dev, err := drv.describe(opts.Ordinal)
	if err != nil {
		return nil, err
	}
	if info.Major < minMajor || info.Major == minMajor && info.Minor < minMinor {
		return nil, fmt.Errorf("cuda: %s has compute capability %d.%d; Saji's kernels need %d.%d or later",
			info.Name, info.Major, info.Minor, minMajor, minMinor)
	}
	d := &Device{drv: drv, info: info, dev: dev, funcs: map[string]uintptr{}}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := drv.check("cuDevicePrimaryCtxRetain", drv.primaryCtxRetain(&d.ctx, dev)); err != nil {
		return nil, err
	}
	if err := d.setUp(); err != nil {
		d.release()
		return nil, err
	}
	slog.Debug("cuda: opened", "device", info.String())
	return d, nil
}

// setUp makes the context current, creates the stream and loads the module.
func (d *Device) setUp() error {
	drv := d.drv
	if err := drv.check("cuCtxSetCurrent", drv.ctxSetCurrent(d.ctx)); err != nil {
		return err
	}
	if err := drv.check("cuStreamCreate", drv.streamCreate(&d.stream, 0)); err != nil {
		return err
	}
	return d.loadModule(ptxSource)
}

// loadModule loads the PTX module with JIT log buffers, so that a failed
// compilation says why.
func (d *Device) loadModule(ptx []byte) error {
	if len(ptx) == 0 {
		return errors.New("cuda: this build has no kernels (the embedded PTX is empty)")
	}
	image := make([]byte, len(ptx)+1) // NUL-terminated
	copy(image, ptx)
	infoLog := make([]byte, jitLogSize)
	errLog := make([]byte, jitLogSize)
	var pin runtime.Pinner
	defer pin.Unpin()
	pin.Pin(&infoLog[0])
	pin.Pin(&errLog[0])
	options := []int32{jitInfoLogBuffer, jitInfoLogBufferSizeBytes, jitErrorLogBuffer, jitErrorLogBufferSize}
	values := []uintptr{
		uintptr(unsafe.Pointer(&infoLog[0])), jitLogSize,
		uintptr(unsafe.Pointer(&errLog[0])), jitLogSize,
	}
	r := d.drv.moduleLoadDataEx(&d.mod, unsafe.Pointer(&image[0]), uint32(len(options)), &options[0], &values[0])
	runtime.KeepAlive(image)
	if err := d.drv.check("cuModuleLoadDataEx", r); err != nil {
		d.mod = 0
		if log := cBuffer(errLog); log != "" {
			return fmt.Errorf("%w; the PTX compiler says: %s", err, log)
		}
		return err
	}
	if log := cBuffer(infoLog); log != "" {
		slog.Debug("cuda: PTX compiled", "device", d.Name(), "log", log)
	}
	return nil
}

// describe returns the Info of device ordinal and its CUdevice.
func (drv *driver) describe(ordinal int) (Info, int32, error) {
	if err := drv.check("cuInit", drv.init(0)); err != nil {
		return Info{}, 0, err
	}
	var version, count int32
	if err := drv.check("cuDriverGetVersion", drv.driverGetVersion(&version)); err != nil {
		return Info{}, 0, err
	}
	if err := drv.check("cuDeviceGetCount", drv.deviceGetCount(&count)); err != nil {
		return Info{}, 0, err
	}
	if ordinal < 0 || ordinal >= int(count) {
		return Info{}, 0, fmt.Errorf("cuda: no CUDA device %d (the driver reports %d)", ordinal, count)
	}
	var dev int32
	if err := drv.check("cuDeviceGet", drv.deviceGet(&dev, int32(ordinal))); err != nil {
		return Info{}, 0, err
	}
	info := Info{Ordinal: ordinal, Driver: int(version)}
	var name [256]byte
	if err := drv.check("cuDeviceGetName", drv.deviceGetName(&name[0], int32(len(name)), dev)); err != nil {
		return Info{}, 0, err
	}
	info.Name = cBuffer(name[:])
	if info.Name == "" {
		info.Name = fmt.Sprintf("CUDA device %d", ordinal)
	}
	if err := drv.check("cuDeviceTotalMem", drv.deviceTotalMem(&info.Memory, dev)); err != nil {
		return Info{}, 0, err
	}
	var major, minor int32
	if err := drv.check("cuDeviceGetAttribute", drv.deviceGetAttribute(&major, attrComputeCapabilityMajor, dev)); err != nil {
		return Info{}, 0, err
	}
	if err := drv.check("cuDeviceGetAttribute", drv.deviceGetAttribute(&minor, attrComputeCapabilityMinor, dev)); err != nil {
		return Info{}, 0, err
	}
	info.Major, info.Minor = int(major), int(minor)
	return info, dev, nil
}

// Probe lists the CUDA devices of driver library lib ("" for the
// installed driver's), for messages and planning; it opens none of them.
func Probe(lib string) ([]Info, error) {
	drv, err := loadDriver(lib)
	if err != nil {
		return nil, err
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := drv.check("cuInit", drv.init(0)); err != nil {
		return nil, err
	}
	var count int32
	if err := drv.check("cuDeviceGetCount", drv.deviceGetCount(&count)); err != nil {
		return nil, err
	}
	infos := make([]Info, 0, count)
	for i := range int(count) {
		info, _, err := drv.describe(i)
		if err != nil {
			return infos, err
		}
		infos = append(infos, info)
	}
	return infos, nil
}

// Info describes the device.
func (d *Device) Info() Info { return d.info }

// Name returns "cuda:N", N the device's ordinal.
func (d *Device) Name() string { return fmt.Sprintf("cuda:%d", d.info.Ordinal) }

// enter locks the device for one call: the mutex, the OS thread, and the
// context made current on it. leave undoes it.
func (d *Device) enter() error {
	d.mu.Lock()
	if d.closed {
		d.mu.Unlock()
		return errClosed
	}
	runtime.LockOSThread()
	if err := d.drv.check("cuCtxSetCurrent", d.drv.ctxSetCurrent(d.ctx)); err != nil {
		d.leave()
		return err
	}
	return nil
}

// leave ends a call begun with enter.
func (d *Device) leave() {
	runtime.UnlockOSThread()
	d.mu.Unlock()
}

// Alloc returns a zeroed buffer of n bytes of device memory. A buffer of
// 0 bytes has no memory (Handle 0).
func (d *Device) Alloc(n int) (gpu.Buf, error) {
	if n < 0 {
		return gpu.Buf{}, fmt.Errorf("cuda: allocating %d bytes", n)
	}
	if err := d.enter(); err != nil {
		return gpu.Buf{}, err
	}
	defer d.leave()
	if n == 0 {
		return gpu.Buf{}, nil
	}
	var ptr uint64
	if err := d.drv.check("cuMemAlloc", d.drv.memAlloc(&ptr, uint64(n))); err != nil {
		return gpu.Buf{}, fmt.Errorf("%w (allocating %d bytes on %s)", err, n, d.Name())
	}
	if err := d.drv.check("cuMemsetD8Async", d.drv.memsetD8Async(ptr, 0, uint64(n), d.stream)); err != nil {
		d.drv.memFree(ptr)
		return gpu.Buf{}, err
	}
	return gpu.Buf{Handle: uintptr(ptr), Size: n}, nil
}

// Free releases a buffer from Alloc. A failure (which only a broken
// context gives) is logged: nothing can be done about it.
func (d *Device) Free(b gpu.Buf) {
	if b.Handle == 0 {
		return
	}
	if err := d.enter(); err != nil {
		slog.Warn("cuda: freeing a buffer", "device", d.Name(), "err", err)
		return
	}
	defer d.leave()
	if err := d.drv.check("cuMemFree", d.drv.memFree(uint64(b.Handle))); err != nil {
		slog.Warn("cuda: freeing a buffer", "device", d.Name(), "err", err)
	}
}

// Map returns ok false: CUDA copies the weights into device memory once.
func (d *Device) Map(data []byte) (b gpu.Buf, off int, ok bool, err error) {
	return gpu.Buf{}, 0, false, nil
}

// span checks that n bytes at off lie inside b (gpu.CheckRange).
func span(op string, b gpu.Buf, off, n int) error {
	if err := gpu.CheckRange(b.Size, off, n); err != nil {
		return fmt.Errorf("cuda: %s: %w", op, err)
	}
	return nil
}

// Upload copies src to byte off of dst in stream order. The driver stages
// pageable memory before it returns, so src may be reused at once.
func (d *Device) Upload(dst gpu.Buf, off int, src []byte) error {
	if err := span("upload", dst, off, len(src)); err != nil {
		return err
	}
	if len(src) == 0 {
		return nil
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	return d.drv.check("cuMemcpyHtoDAsync", d.drv.memcpyHtoDAsync(uint64(dst.Handle)+uint64(off),
		unsafe.Pointer(&src[0]), uint64(len(src)), d.stream))
}

// Download waits for the queued work and copies len(dst) bytes of src
// from byte off to dst.
func (d *Device) Download(src gpu.Buf, off int, dst []byte) error {
	if err := span("download", src, off, len(dst)); err != nil {
		return err
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	if len(dst) > 0 {
		r := d.drv.memcpyDtoHAsync(unsafe.Pointer(&dst[0]), uint64(src.Handle)+uint64(off), uint64(len(dst)), d.stream)
		if err := d.drv.check("cuMemcpyDtoHAsync", r); err != nil {
			return err
		}
	}
	return d.drv.check("cuStreamSynchronize", d.drv.streamSynchronize(d.stream))
}

// Zero sets n bytes of b from byte off to zero, in stream order.
func (d *Device) Zero(b gpu.Buf, off, n int) error {
	if err := span("zero", b, off, n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	return d.drv.check("cuMemsetD8Async", d.drv.memsetD8Async(uint64(b.Handle)+uint64(off), 0, uint64(n), d.stream))
}

// Launch queues kernel name over grid blocks of block threads. The
// arguments must match the kernel's parameters in gpu.Kernels, and block
// the kernel's block size.
func (d *Device) Launch(name string, grid, block gpu.Dim3, args ...gpu.Arg) error {
	k, ok := gpu.Lookup(name)
	if !ok {
		return fmt.Errorf("cuda: launch: no kernel named %q", name)
	}
	if err := gpu.CheckArgs(k, args); err != nil {
		return fmt.Errorf("cuda: launch: %w", err)
	}
	if block != (gpu.Dim3{X: k.Block, Y: 1, Z: 1}) {
		return fmt.Errorf("cuda: launch %s: block %dx%dx%d, the kernel needs %dx1x1", name, block.X, block.Y, block.Z, k.Block)
	}
	if grid.X == 0 || grid.Y == 0 || grid.Z == 0 {
		return fmt.Errorf("cuda: launch %s: empty grid %dx%dx%d", name, grid.X, grid.Y, grid.Z)
	}
	return d.launch(name, grid, block, args)
}

// launch launches kernel name of the module, whatever its parameters.
func (d *Device) launch(name string, grid, block gpu.Dim3, args []gpu.Arg) error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	fn, err := d.function(name)
	if err != nil {
		return err
	}
	p := packArgs(args)
	defer p.unpin()
	r := d.drv.launchKernel(fn, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, 0, d.stream, p.kernelParams(), nil)
	if err := d.drv.check("cuLaunchKernel", r); err != nil {
		return fmt.Errorf("%w (kernel %s, grid %dx%dx%d)", err, name, grid.X, grid.Y, grid.Z)
	}
	return nil
}

// function returns kernel name's CUfunction, looked up once.
func (d *Device) function(name string) (uintptr, error) {
	if fn, ok := d.funcs[name]; ok {
		return fn, nil
	}
	cname := append([]byte(name), 0)
	var fn uintptr
	if err := d.drv.check("cuModuleGetFunction", d.drv.moduleGetFunction(&fn, d.mod, &cname[0])); err != nil {
		return 0, fmt.Errorf("%w (kernel %s)", err, name)
	}
	d.funcs[name] = fn
	return fn, nil
}

// Sync waits for the queued work and reports the error of a kernel that
// failed.
func (d *Device) Sync() error {
	if err := d.enter(); err != nil {
		return err
	}
	defer d.leave()
	return d.drv.check("cuStreamSynchronize", d.drv.streamSynchronize(d.stream))
}

// Memory returns the device's free and total memory in bytes.
func (d *Device) Memory() (free, total uint64, err error) {
	if err := d.enter(); err != nil {
		return 0, 0, err
	}
	defer d.leave()
	if err := d.drv.check("cuMemGetInfo", d.drv.memGetInfo(&free, &total)); err != nil {
		return 0, 0, err
	}
	return free, total, nil
}

// Close unloads the kernels, destroys the stream and releases the primary
// context. Buffers must have been freed. Closing twice does nothing.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	return d.release()
}

// release undoes Open's set-up, as far as it got.
func (d *Device) release() error {
	drv := d.drv
	var errs []error
	if err := drv.check("cuCtxSetCurrent", drv.ctxSetCurrent(d.ctx)); err != nil {
		errs = append(errs, err)
	}
	if d.stream != 0 {
		errs = append(errs, drv.check("cuStreamSynchronize", drv.streamSynchronize(d.stream)))
	}
	if d.mod != 0 {
		errs = append(errs, drv.check("cuModuleUnload", drv.moduleUnload(d.mod)))
		d.mod = 0
	}
	if d.stream != 0 {
		errs = append(errs, drv.check("cuStreamDestroy", drv.streamDestroy(d.stream)))
		d.stream = 0
	}
	errs = append(errs, drv.check("cuDevicePrimaryCtxRelease", drv.primaryCtxRelease(d.dev)))
	d.funcs = nil
	return errors.Join(errs...)
}
