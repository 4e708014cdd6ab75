package cuda

import (
	"encoding/binary"
	"runtime"
	"unsafe"

	"saji/kernels/gpu"
)

// argSize is the size and alignment in bytes of an argument of kind k:
// a 64-bit device address for Ptr, 32 bits for I32 and F32.
func argSize(k gpu.ArgKind) int {
	if k == gpu.Ptr {
		return 8
	}
	return 4
}

// layoutArgs returns the byte offset of each argument in a parameter
// block that holds each at its natural alignment, and the block's size
// (a multiple of 8).
func layoutArgs(args []gpu.Arg) (offs []int, size int) {
	offs = make([]int, len(args))
	for i, a := range args {
		n := argSize(a.Kind)
		size = (size + n - 1) &^ (n - 1)
		offs[i] = size
		size += n
	}
	return offs, (size + 7) &^ 7
}

// encodeArgs writes the values of args into block (little-endian, as
// every CUDA platform is) at offs: Ptr as the device address Handle+Off,
// I32 and F32 as their 32 bits.
func encodeArgs(block []byte, offs []int, args []gpu.Arg) {
	for i, a := range args {
		if a.Kind == gpu.Ptr {
			binary.LittleEndian.PutUint64(block[offs[i]:], uint64(a.Buf.Handle)+uint64(a.Off))
		} else {
			binary.LittleEndian.PutUint32(block[offs[i]:], a.Bits)
		}
	}
}

// params is the kernelParams array of one cuLaunchKernel call (void**):
// a pointer to each argument's value, all in one 8-byte-aligned block.
// Both are pinned until unpin, so the driver may read them.
type params struct {
	words  []uint64         // the block of values
	ptrs   []unsafe.Pointer // &value of each argument
	pinner runtime.Pinner
}

// packArgs builds and pins the kernelParams of args.
func packArgs(args []gpu.Arg) *params {
	offs, size := layoutArgs(args)
	p := &params{words: make([]uint64, max(size/8, 1)), ptrs: make([]unsafe.Pointer, max(len(args), 1))}
	block := unsafe.Slice((*byte)(unsafe.Pointer(&p.words[0])), len(p.words)*8)
	encodeArgs(block, offs, args)
	p.pinner.Pin(&p.words[0])
	p.pinner.Pin(&p.ptrs[0])
	for i, off := range offs {
		p.ptrs[i] = unsafe.Pointer(&block[off])
	}
	return p
}

// kernelParams is the void** cuLaunchKernel takes.
func (p *params) kernelParams() *unsafe.Pointer { return &p.ptrs[0] }

// unpin releases the block after the launch.
func (p *params) unpin() { p.pinner.Unpin() }
