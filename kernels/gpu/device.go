package gpu

import (
	"fmt"
	"math"
)

// Buf is a device buffer: a CUDA device pointer, or a retained MTLBuffer.
// The zero Buf is no buffer.
type Buf struct {
	// Handle is the device's name for the buffer (CUdeviceptr, MTLBuffer id).
	Handle uintptr
	// Size is its length in bytes.
	Size int
	// Host, when not nil, is the buffer's memory as the host sees it
	// (Metal's shared buffers); CUDA buffers have none.
	Host []byte
}

// ArgKind is the type of one kernel parameter.
type ArgKind uint8

// The kinds of kernel parameters. Every kernel takes pointers and 32-bit
// scalars only, so the CUDA parameter block and Metal's argument table are
// laid out the same way on every platform.
const (
	// Ptr is a device address: a buffer and a byte offset into it
	// (CUDA passes Handle+Offset, Metal binds the buffer at Offset).
	Ptr ArgKind = iota
	// I32 is a signed 32-bit integer.
	I32
	// F32 is a 32-bit float.
	F32
)

func (k ArgKind) String() string {
	switch k {
	case Ptr:
		return "ptr"
	case I32:
		return "i32"
	case F32:
		return "f32"
	}
	return fmt.Sprintf("ArgKind(%d)", uint8(k))
}

// Arg is one argument of a kernel launch.
type Arg struct {
	Kind ArgKind
	// Buf and Off are a Ptr argument's buffer and byte offset.
	Buf Buf
	Off int
	// Bits holds an I32 or F32 argument's 32 bits.
	Bits uint32
}

// P is a Ptr argument: byte off of buffer b.
func P(b Buf, off int) Arg { return Arg{Kind: Ptr, Buf: b, Off: off} }

// I is an I32 argument.
func I(v int) Arg { return Arg{Kind: I32, Bits: uint32(int32(v))} }

// F is an F32 argument.
func F(v float32) Arg { return Arg{Kind: F32, Bits: math.Float32bits(v)} }

// Dim3 is a grid or thread-block size.
type Dim3 struct{ X, Y, Z uint32 }

// Device is what a GPU driver binding provides to the Backend: memory,
// copies and kernel launches, all ordered on one queue (a CUDA stream, a
// Metal command queue). Launches may run asynchronously; Download waits
// for everything queued before it. A Device must be safe for concurrent
// use: the Backends of several loaded models share one.
type Device interface {
	// Name identifies the device ("cuda:0", "metal").
	Name() string
	// Alloc returns a zeroed buffer of n bytes of device memory.
	Alloc(n int) (Buf, error)
	// Free releases a buffer from Alloc or Map.
	Free(b Buf)
	// Map returns a buffer over host memory that the device reads in place
	// (zero-copy weights), and the offset of data within it; ok is false
	// where the device cannot (then the Backend uploads a copy). data must
	// stay valid and unmodified while the buffer lives.
	Map(data []byte) (b Buf, off int, ok bool, err error)
	// Upload copies src to byte off of dst, in queue order: launches queued
	// before it still see the old contents.
	Upload(dst Buf, off int, src []byte) error
	// Download waits for the queued work and copies bytes of src from byte
	// off to dst.
	Download(src Buf, off int, dst []byte) error
	// Zero sets n bytes of b from byte off to zero, in queue order.
	Zero(b Buf, off, n int) error
	// Launch queues kernel name (a name of Kernels) over grid thread
	// blocks of block threads each.
	Launch(name string, grid, block Dim3, args ...Arg) error
	// Sync waits for the queued work and reports the first error of a
	// kernel that failed since the last Sync.
	Sync() error
	// Free memory and total memory of the device, in bytes.
	Memory() (free, total uint64, err error)
	// Close releases the device; buffers must have been freed.
	Close() error
}

// CheckArgs checks args against kernel k's parameters, for the Backend and
// the device bindings alike: as many arguments as parameters, each of its
// parameter's kind, and each pointer's offset inside its buffer. A pointer
// without a buffer (Handle 0) must have offset 0; the bindings pass it as
// null (CUDA) or a placeholder (Metal) to the nullable parameters, which
// the kernels do not read when their has_* flag is 0.
func CheckArgs(k Kernel, args []Arg) error {
	if len(args) != len(k.Params) {
		return fmt.Errorf("%s takes %d arguments, not %d (%s)", k.Name, len(k.Params), len(args), k.Signature())
	}
	for i, a := range args {
		p := k.Params[i]
		switch {
		case a.Kind != p.Kind:
			return fmt.Errorf("%s: argument %d (%s) is %v, not %v", k.Name, i, p.Name, a.Kind, p.Kind)
		case a.Kind != Ptr:
		case a.Buf.Handle == 0 && a.Off != 0:
			return fmt.Errorf("%s: argument %d (%s) has an offset but no buffer", k.Name, i, p.Name)
		case a.Buf.Handle != 0 && (a.Off < 0 || a.Off > a.Buf.Size):
			return fmt.Errorf("%s: argument %d (%s): offset %d outside its buffer of %d bytes", k.Name, i, p.Name, a.Off, a.Buf.Size)
		}
	}
	return nil
}

// CheckRange checks that n bytes at byte off lie inside a buffer of size
// bytes: the copies of Upload, Download and Zero.
func CheckRange(size, off, n int) error {
	if off < 0 || n < 0 || off > size || n > size-off {
		return fmt.Errorf("bytes [%d, %d) outside a buffer of %d", off, off+n, size)
	}
	return nil
}
