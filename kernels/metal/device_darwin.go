//go:build darwin

package metal

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego/objc"
	"golang.org/x/sys/unix"

	"saji/kernels/gpu"
)

// Device is the system's default Metal GPU as a gpu.Device. Its methods
// are safe for concurrent use; they run one at a time on the device's own
// OS thread.
//
// Launches (and uploads while the GPU is busy, as blits) are encoded into
// a command buffer, committed every commitEvery launches without waiting
// and when the host reads (Download, Sync); the host waits only there.
type Device struct {
	mu     sync.Mutex // serializes requests; guards closed
	closed bool
	reqs   chan request
	done   chan struct{} // closed when the Metal goroutine has ended
}

var _ gpu.Device = (*Device)(nil)

// request is a closure for the Metal goroutine and where its result goes.
type request struct {
	fn  func(*state) error
	res chan error
}

// commitEvery is the number of launches after which the current command
// buffer is committed without waiting, so that the GPU starts on a long
// sequence of kernels while the rest is still being encoded.
const commitEvery = 64

// errClosed is returned by the methods of a closed Device.
var errClosed = errors.New("metal: the device is closed")

// buffer is what the Metal goroutine knows of a buffer it handed out.
type buffer struct {
	id     objc.ID
	size   int    // bytes the caller asked for (Buf.Size)
	host   []byte // the buffer's memory, at least size bytes
	mapped bool   // wraps the caller's memory (Map): never written
}

// state is the Metal goroutine's: only it touches these fields.
type state struct {
	rt          *runtimeLib
	dev         objc.ID
	queue       objc.ID
	lib         objc.ID
	placeholder objc.ID // bound for Ptr arguments without a buffer
	maxBuffer   int
	page        int
	pipes       map[string]objc.ID
	bufs        map[uintptr]*buffer
	cmd         objc.ID   // the command buffer being encoded (retained)
	enc         objc.ID   // its compute encoder (retained)
	launches    int       // dispatches encoded into cmd
	sent        []objc.ID // committed command buffers not yet waited for (retained)
	err         error     // the first kernel failure since the last Sync
}

// Open opens the system's default Metal GPU and compiles the kernels. It
// fails on a Mac without a Metal GPU, on macOS before 12, and on a GPU
// whose SIMD groups are not 32 threads wide (when a kernel is first used).
func Open() (*Device, error) {
	osVersion, err := unix.Sysctl("kern.osproductversion")
	if err != nil {
		return nil, fmt.Errorf("metal: reading the macOS version: %w", err)
	}
	version, versionName, err := languageVersion(osVersion)
	if err != nil {
		return nil, err
	}
	rt, err := loadRuntime()
	if err != nil {
		return nil, err
	}
	d := &Device{reqs: make(chan request), done: make(chan struct{})}
	ready := make(chan error, 1)
	go d.serve(rt, version, ready)
	if err := <-ready; err != nil {
		<-d.done
		return nil, err
	}
	var name string
	if err := d.call(func(st *state) error { name = deviceName(st.dev); return nil }); err == nil {
		slog.Debug("metal: device open", "gpu", name, "msl", versionName, "macos", osVersion)
	}
	return d, nil
}

// serve is the Metal goroutine: it opens the device, then runs requests
// until reqs is closed. It stays on one OS thread for its whole life.
func (d *Device) serve(rt *runtimeLib, version uint64, ready chan<- error) {
	runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
	defer close(d.done)
	st := &state{
		rt:    rt,
		page:  os.Getpagesize(),
		pipes: make(map[string]objc.ID),
		bufs:  make(map[uintptr]*buffer),
	}
	if err := st.do(func(st *state) error { return st.open(version) }); err != nil {
		_ = st.do(func(st *state) error { st.close(); return nil })
		ready <- err
		return
	}
	ready <- nil
	for req := range d.reqs {
		req.res <- st.do(req.fn)
	}
}

// do runs fn inside an autorelease pool, turning a panic into an error.
func (st *state) do(fn func(*state) error) (err error) {
	pool := st.rt.newPool()
	defer drainPool(pool)
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("metal: internal error: %v", r)
		}
	}()
	return fn(st)
}

// call runs fn on the Metal goroutine and returns its error.
func (d *Device) call(fn func(*state) error) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return errClosed
	}
	res := make(chan error, 1)
	d.reqs <- request{fn: fn, res: res}
	return <-res
}

// open creates the device, its queue and library.
func (st *state) open(version uint64) error {
	st.dev = st.rt.createDevice()
	if st.dev == 0 {
		return errors.New("metal: no Metal device (MTLCreateSystemDefaultDevice returned nil)")
	}
	st.maxBuffer = int(objc.Send[uint64](st.dev, selMaxBufferLength))
	st.queue = st.dev.Send(selNewCommandQueue)
	if st.queue == 0 {
		return errors.New("metal: newCommandQueue failed")
	}
	opts := st.rt.newCompileOptions(version)
	defer release(opts)
	lib, err := st.rt.newLibrary(st.dev, mslSource, opts)
	if err != nil {
		return err
	}
	st.lib = lib
	st.placeholder = newBuffer(st.dev, 16)
	if st.placeholder == 0 {
		return errors.New("metal: allocating a placeholder buffer failed")
	}
	// One pipeline now, so that a GPU the kernels cannot run on (SIMD
	// groups not 32 wide) fails Open rather than the first forward pass;
	// the others are built, and checked, on first use.
	if k, ok := gpu.Lookup(probeKernel); ok {
		if _, err := st.pipeline(k); err != nil {
			return err
		}
	}
	return nil
}

// probeKernel is the kernel whose pipeline Open builds to check the GPU.
const probeKernel = "mul_mat_vec_q4_k"

// close waits for the queued work and releases every object; it returns
// the number of buffers the caller had not freed.
func (st *state) close() (leaked int) {
	_ = st.finish()
	for _, p := range st.pipes {
		release(p)
	}
	clear(st.pipes)
	for h, b := range st.bufs {
		release(b.id)
		delete(st.bufs, h)
		leaked++
	}
	release(st.placeholder)
	release(st.lib)
	release(st.queue)
	release(st.dev)
	st.placeholder, st.lib, st.queue, st.dev = 0, 0, 0, 0
	return leaked
}

// Name returns "metal".
func (d *Device) Name() string { return "metal" }

// Alloc returns a zeroed shared buffer of n bytes.
func (d *Device) Alloc(n int) (gpu.Buf, error) {
	if n < 0 {
		return gpu.Buf{}, fmt.Errorf("metal: allocating %d bytes", n)
	}
	var b gpu.Buf
	err := d.call(func(st *state) error {
		// Always longer than n, so that a pointer to the end of the
		// buffer is still a valid offset for setBuffer.
		length := (n + 16) &^ 15
		if st.maxBuffer > 0 && length > st.maxBuffer {
			return fmt.Errorf("metal: a buffer of %d bytes is over this GPU's limit of %d", n, st.maxBuffer)
		}
		id := newBuffer(st.dev, length)
		if id == 0 {
			return fmt.Errorf("metal: allocating a buffer of %d bytes failed", n)
		}
		host := contents(id, length)
		if host == nil {
			release(id)
			return fmt.Errorf("metal: a shared buffer of %d bytes has no contents", n)
		}
		clear(host)
		st.bufs[uintptr(id)] = &buffer{id: id, size: n, host: host}
		b = gpu.Buf{Handle: uintptr(id), Size: n, Host: host[:n:n]}
		return nil
	})
	return b, err
}

// Free releases a buffer from Alloc or Map. A mapped buffer waits for the
// queued work first, since its memory is the caller's.
func (d *Device) Free(b gpu.Buf) {
	if b.Handle == 0 {
		return
	}
	_ = d.call(func(st *state) error {
		buf := st.bufs[b.Handle]
		if buf == nil {
			return nil
		}
		if buf.mapped {
			_ = st.finish() // a failure stays in st.err for Sync
		}
		release(buf.id)
		delete(st.bufs, b.Handle)
		return nil
	})
}

// Map wraps the pages that hold data in a buffer without copying
// (newBufferWithBytesNoCopy) and returns it with the offset of data in it.
// ok is false where Metal declines (the Backend then uploads a copy).
func (d *Device) Map(data []byte) (b gpu.Buf, off int, ok bool, err error) {
	if len(data) == 0 {
		return gpu.Buf{}, 0, false, nil
	}
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(data)))
	err = d.call(func(st *state) error {
		base, length, o := pageSpan(addr, len(data), st.page)
		if st.maxBuffer > 0 && length > st.maxBuffer {
			return nil
		}
		id := newBufferNoCopy(st.dev, base, length)
		if id == 0 {
			return nil
		}
		host := contents(id, length)
		st.bufs[uintptr(id)] = &buffer{id: id, size: length, host: host, mapped: true}
		b, off, ok = gpu.Buf{Handle: uintptr(id), Size: length, Host: host}, o, true
		return nil
	})
	runtime.KeepAlive(data)
	return b, off, ok, err
}

// lookup returns the record of b and checks that bytes [off, off+n) lie
// within it.
func (st *state) lookup(b gpu.Buf, off, n int) (*buffer, error) {
	buf := st.bufs[b.Handle]
	if buf == nil {
		return nil, errors.New("metal: not a buffer of this device")
	}
	if err := gpu.CheckRange(buf.size, off, n); err != nil {
		return nil, fmt.Errorf("metal: %w", err)
	}
	return buf, nil
}

// Upload copies src to byte off of dst in queue order: launches queued
// before it still see the old contents. When the GPU is idle it writes the
// shared memory directly; otherwise it copies src now into a staging
// buffer and queues a blit from it, so that the host need not wait (for
// an offset or length that is not a multiple of 4, which blits on macOS
// cannot take, it waits for the queued work and writes directly).
func (d *Device) Upload(dst gpu.Buf, off int, src []byte) error {
	return d.call(func(st *state) error {
		buf, err := st.lookup(dst, off, len(src))
		if err != nil {
			return fmt.Errorf("metal: upload: %w", err)
		}
		if buf.mapped {
			return errors.New("metal: upload into a mapped buffer (its memory is the caller's)")
		}
		if len(src) == 0 {
			return nil
		}
		if !st.idle() && blittable(off, len(src)) {
			staging := newBufferCopy(st.dev, src)
			if staging == 0 {
				return fmt.Errorf("metal: upload: a staging buffer of %d bytes failed", len(src))
			}
			defer release(staging) // the command buffer keeps it until it has run
			cb, err := st.blitBuffer()
			if err != nil {
				return err
			}
			return blitCopy(cb, staging, buf.id, off, len(src))
		}
		_ = st.finish() // a kernel's failure stays in st.err for Sync
		copy(buf.host[off:], src)
		return nil
	})
}

// blittable reports whether a blit can copy or fill n bytes at off: on
// macOS both must be multiples of 4.
func blittable(off, n int) bool { return off%4 == 0 && n%4 == 0 }

// Download waits for the queued work and copies len(dst) bytes of src from
// byte off.
func (d *Device) Download(src gpu.Buf, off int, dst []byte) error {
	return d.call(func(st *state) error {
		buf, err := st.lookup(src, off, len(dst))
		if err != nil {
			return fmt.Errorf("metal: download: %w", err)
		}
		if err := st.finish(); err != nil {
			return err
		}
		copy(dst, buf.host[off:])
		return nil
	})
}

// Zero sets n bytes of b from byte off to zero in queue order: directly
// when the GPU is idle, else by a queued blit fill (or, for an offset or
// length not a multiple of 4, after waiting for the queued work).
func (d *Device) Zero(b gpu.Buf, off, n int) error {
	return d.call(func(st *state) error {
		buf, err := st.lookup(b, off, n)
		if err != nil {
			return fmt.Errorf("metal: zero: %w", err)
		}
		if buf.mapped {
			return errors.New("metal: zeroing a mapped buffer (its memory is the caller's)")
		}
		if n == 0 {
			return nil
		}
		if !st.idle() && blittable(off, n) {
			cb, err := st.blitBuffer()
			if err != nil {
				return err
			}
			return blitZero(cb, buf.id, off, n)
		}
		_ = st.finish() // a kernel's failure stays in st.err for Sync
		clear(buf.host[off : off+n])
		return nil
	})
}

// Launch encodes kernel name over grid thread groups of block threads into
// the current command buffer.
func (d *Device) Launch(name string, grid, block gpu.Dim3, args ...gpu.Arg) error {
	k, ok := gpu.Lookup(name)
	if !ok {
		return fmt.Errorf("metal: no kernel %q", name)
	}
	run, err := checkLaunch(k, grid, block)
	if err != nil || !run {
		return err
	}
	bs, err := bindArgs(k, args)
	if err != nil {
		return err
	}
	return d.call(func(st *state) error { return st.launch(k, grid, block, bs) })
}

func (st *state) launch(k gpu.Kernel, grid, block gpu.Dim3, bs []binding) error {
	for _, b := range bs {
		if b.kind == gpu.Ptr && b.buf != 0 && st.bufs[b.buf] == nil {
			return fmt.Errorf("metal: %s: argument %d (%s) is not a buffer of this device", k.Name, b.index, k.Params[b.index].Name)
		}
	}
	p, err := st.pipeline(k)
	if err != nil {
		return err
	}
	enc, err := st.encoder()
	if err != nil {
		return err
	}
	enc.Send(selSetComputePipeline, p)
	for _, b := range bs {
		switch b.kind {
		case gpu.Ptr:
			buf, off := objc.ID(b.buf), b.off
			if buf == 0 {
				buf, off = st.placeholder, 0
			}
			setBuffer(enc, buf, off, b.index)
		default:
			setBytes(enc, b.bits, b.index)
		}
	}
	dispatch(enc, sizeOf(grid), sizeOf(block))
	st.launches++
	if st.launches >= commitEvery {
		st.submit()
	}
	return nil
}

// pipeline returns kernel k's compute pipeline, built on first use.
func (st *state) pipeline(k gpu.Kernel) (objc.ID, error) {
	if p := st.pipes[k.Name]; p != 0 {
		return p, nil
	}
	p, maxThreads, width, err := st.rt.newPipeline(st.dev, st.lib, k.Name)
	if err != nil {
		return 0, err
	}
	if err := checkPipeline(k, maxThreads, width); err != nil {
		release(p)
		return 0, err
	}
	st.pipes[k.Name] = p
	return p, nil
}

// commandBuffer returns the command buffer being encoded, starting one
// when there is none.
func (st *state) commandBuffer() (objc.ID, error) {
	if st.cmd == 0 {
		cb := st.queue.Send(selCommandBuffer)
		if cb == 0 {
			return 0, errors.New("metal: the command queue gave no command buffer")
		}
		st.cmd = retain(cb) // autoreleased: it must outlive this request's pool
	}
	return st.cmd, nil
}

// encoder returns the current compute encoder, starting a command buffer
// and an encoder when there is none.
func (st *state) encoder() (objc.ID, error) {
	if st.enc != 0 {
		return st.enc, nil
	}
	cb, err := st.commandBuffer()
	if err != nil {
		return 0, err
	}
	enc := cb.Send(selComputeCommandEncoder)
	if enc == 0 {
		return 0, errors.New("metal: the command buffer gave no compute encoder")
	}
	st.enc = retain(enc)
	return st.enc, nil
}

// endCompute ends the current compute encoder, if any.
func (st *state) endCompute() {
	if st.enc != 0 {
		st.enc.Send(selEndEncoding)
		release(st.enc)
		st.enc = 0
	}
}

// blitBuffer returns the command buffer to encode a blit into, after the
// launches encoded so far (their compute encoder ended).
func (st *state) blitBuffer() (objc.ID, error) {
	st.endCompute()
	cb, err := st.commandBuffer()
	if err != nil {
		return 0, err
	}
	st.launches++
	return cb, nil
}

// idle reports whether the GPU has no queued work: nothing encoded, and
// every committed command buffer completed (those are released, their
// failures kept in st.err).
func (st *state) idle() bool {
	if st.cmd != 0 {
		return false
	}
	for _, cb := range st.sent {
		if s := commandBufferStatus(cb); s != commandBufferStatusCompleted && s != commandBufferStatusError {
			return false
		}
	}
	_ = st.finish()
	return true
}

// submit ends the encoder and commits the current command buffer without
// waiting for it.
func (st *state) submit() {
	st.endCompute()
	if st.cmd != 0 {
		st.cmd.Send(selCommit)
		st.sent = append(st.sent, st.cmd)
		st.cmd = 0
	}
	st.launches = 0
}

// finish commits the current command buffer and waits for every committed
// one. It returns the first kernel failure among them, which also stays in
// st.err for Sync.
func (st *state) finish() error {
	st.submit()
	var first error
	for _, cb := range st.sent {
		cb.Send(selWaitUntilCompleted)
		if err := commandBufferError(cb); err != nil && first == nil {
			first = err
		}
		release(cb)
	}
	st.sent = st.sent[:0]
	if first != nil && st.err == nil {
		st.err = first
	}
	return first
}

// Sync waits for the queued work and returns the first kernel failure
// since the last Sync.
func (d *Device) Sync() error {
	return d.call(func(st *state) error {
		_ = st.finish()
		err := st.err
		st.err = nil
		return err
	})
}

// Memory returns the memory Metal recommends a process's working set stay
// within (total) and how much of it is not allocated yet (free).
func (d *Device) Memory() (free, total uint64, err error) {
	err = d.call(func(st *state) error {
		total = objc.Send[uint64](st.dev, selRecommendedMaxWorking)
		used := objc.Send[uint64](st.dev, selCurrentAllocatedSize)
		free = total - min(used, total)
		return nil
	})
	return free, total, err
}

// Close waits for the queued work, releases the device and ends its
// goroutine. Buffers not freed are released too, and reported.
func (d *Device) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed {
		return nil
	}
	d.closed = true
	res := make(chan error, 1)
	d.reqs <- request{res: res, fn: func(st *state) error {
		if n := st.close(); n > 0 {
			return fmt.Errorf("metal: closed with %d buffers not freed", n)
		}
		return nil
	}}
	err := <-res
	close(d.reqs)
	<-d.done
	return err
}
