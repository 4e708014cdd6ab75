package cuda

import (
	"encoding/binary"
	"math"
	"testing"
	"unsafe"

	"saji/kernels/gpu"
)

func TestLayoutArgs(t *testing.T) {
	buf := gpu.Buf{Handle: 0x7f0000001000, Size: 4096}
	tests := []struct {
		name string
		args []gpu.Arg
		offs []int
		size int
	}{
		{"none", nil, []int{}, 0},
		{"one i32", []gpu.Arg{gpu.I(1)}, []int{0}, 8},
		{"ptr", []gpu.Arg{gpu.P(buf, 0)}, []int{0}, 8},
		{"i32 then ptr aligns to 8", []gpu.Arg{gpu.I(1), gpu.P(buf, 0)}, []int{0, 8}, 16},
		{"ptrs then scalars pack", []gpu.Arg{gpu.P(buf, 0), gpu.P(buf, 4), gpu.I(1), gpu.F(2), gpu.I(3)}, []int{0, 8, 16, 20, 24}, 32},
		{"scalar between ptrs", []gpu.Arg{gpu.P(buf, 0), gpu.F(1), gpu.P(buf, 8), gpu.I(2), gpu.I(3)}, []int{0, 8, 16, 24, 28}, 32},
		{"three i32", []gpu.Arg{gpu.I(1), gpu.I(2), gpu.I(3)}, []int{0, 4, 8}, 16},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			offs, size := layoutArgs(tt.args)
			if size != tt.size {
				t.Errorf("size %d, want %d", size, tt.size)
			}
			if len(offs) != len(tt.offs) {
				t.Fatalf("offsets %v, want %v", offs, tt.offs)
			}
			for i := range offs {
				if offs[i] != tt.offs[i] {
					t.Fatalf("offsets %v, want %v", offs, tt.offs)
				}
				if offs[i]%argSize(tt.args[i].Kind) != 0 {
					t.Errorf("argument %d at %d is misaligned", i, offs[i])
				}
			}
		})
	}
}

func TestPackArgs(t *testing.T) {
	a := gpu.Buf{Handle: 0x7f0000001000, Size: 4096}
	b := gpu.Buf{Handle: 0x10000, Size: 64}
	tests := []struct {
		name string
		args []gpu.Arg
		want []uint64 // each argument's value as the kernel reads it
	}{
		{"ptr with offset", []gpu.Arg{gpu.P(a, 100)}, []uint64{0x7f0000001000 + 100}},
		{"null ptr", []gpu.Arg{gpu.P(gpu.Buf{}, 0)}, []uint64{0}},
		{"negative i32", []gpu.Arg{gpu.I(-7)}, []uint64{uint64(uint32(0xfffffff9))}},
		{"f32", []gpu.Arg{gpu.F(1.5)}, []uint64{uint64(math.Float32bits(1.5))}},
		{"mixed", []gpu.Arg{gpu.I(3), gpu.P(b, 8), gpu.F(-0.25), gpu.P(a, 0), gpu.I(1 << 30)},
			[]uint64{3, 0x10008, uint64(math.Float32bits(-0.25)), 0x7f0000001000, 1 << 30}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := packArgs(tt.args)
			defer p.unpin()
			kp := unsafe.Slice(p.kernelParams(), len(tt.args))
			for i, arg := range tt.args {
				var got uint64
				if arg.Kind == gpu.Ptr {
					if uintptr(kp[i])%8 != 0 {
						t.Errorf("argument %d: pointer value at a misaligned address", i)
					}
					got = *(*uint64)(kp[i])
				} else {
					if uintptr(kp[i])%4 != 0 {
						t.Errorf("argument %d: 32-bit value at a misaligned address", i)
					}
					got = uint64(*(*uint32)(kp[i]))
				}
				if got != tt.want[i] {
					t.Errorf("argument %d = %#x, want %#x", i, got, tt.want[i])
				}
			}
		})
	}
}

func TestEncodeArgsLittleEndian(t *testing.T) {
	args := []gpu.Arg{gpu.I(0x01020304), gpu.P(gpu.Buf{Handle: 0x1122334455, Size: 16}, 1)}
	offs, size := layoutArgs(args)
	block := make([]byte, size)
	encodeArgs(block, offs, args)
	if got := binary.LittleEndian.Uint32(block[0:]); got != 0x01020304 {
		t.Errorf("i32 = %#x", got)
	}
	if block[4] != 0 || block[5] != 0 || block[6] != 0 || block[7] != 0 {
		t.Errorf("padding %v is not zero", block[4:8])
	}
	if got := binary.LittleEndian.Uint64(block[8:]); got != 0x1122334456 {
		t.Errorf("ptr = %#x", got)
	}
}
