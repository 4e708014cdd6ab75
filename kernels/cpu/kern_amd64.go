package cpu

import "golang.org/x/sys/cpu"

// The x86-64 kernel sets, from the oldest CPUs to the newest. Each builds
// on the one before: a kernel a newer set lacks is the older set's.
//
//   - "avx2": AVX2 with FMA and F16C (Haswell, Zen 1 and later).
//   - "avx-vnni": the AVX2 set with the VEX-encoded VPDPBUSD on 256-bit
//     registers for the integer dot products (Alder Lake and later Intel
//     client CPUs, which lack AVX-512).
//   - "avx512-vnni": AVX-512 F, BW, VL and DQ with EVEX VPDPBUSD (Ice Lake,
//     Zen 4 and later), over the AVX-VNNI set where the CPU has that too.
const (
	setAVX2    = "avx2"
	setAVXVNNI = "avx-vnni"
	setAVX512  = "avx512-vnni"
)

// kernelSetNames lists the x86-64 sets in order, oldest first.
var kernelSetNames = []string{setAVX2, setAVXVNNI, setAVX512}

// simdAliases maps SAJI_SIMD's short values to set names.
var simdAliases = map[string]string{"avx2": setAVX2, "vnni": setAVXVNNI, "avx-vnni": setAVXVNNI, "avx512": setAVX512, "avx512-vnni": setAVX512}

// lacks returns what this CPU lacks to run the set name ("cpu lacks
// avx512_vnni", in /proc/cpuinfo's words), or "" when it runs it.
func lacks(name string) string {
	x := cpu.X86
	var need []flag
	switch name {
	case setAVX2:
		need = []flag{{"avx2", x.HasAVX2}, {"fma", x.HasFMA}, {"f16c", hasF16C()}}
	case setAVXVNNI:
		need = []flag{{"avx2", x.HasAVX2}, {"fma", x.HasFMA}, {"f16c", hasF16C()}, {"avx_vnni", x.HasAVXVNNI}}
	case setAVX512:
		need = []flag{{"avx2", x.HasAVX2}, {"fma", x.HasFMA}, {"f16c", hasF16C()}, {"avx512f", x.HasAVX512F},
			{"avx512bw", x.HasAVX512BW}, {"avx512vl", x.HasAVX512VL}, {"avx512dq", x.HasAVX512DQ}, {"avx512_vnni", x.HasAVX512VNNI}}
	default:
		return "no kernel set " + name + " on amd64"
	}
	return missing(need)
}

// archSet returns the kernel set name of this architecture, which the CPU
// must run (buildSet completes it).
func archSet(name string) *kernelSet {
	k := newKernelSet(name)
	addAVX2Q8(k)
	addAVX2TQ(k)
	addAVX2IQ1(k)
	addAVX2K(k)
	addAVX2Tiles(k)
	addAVX2FloatTiles(k)
	addAVX2Gemv(k)
	addAVX2Repack(k)
	addAVX2MXFP4(k)
	if name == setAVX2 {
		return k
	}
	if avxVNNI {
		addAVXVNNI(k)
	}
	if name == setAVX512 {
		addAVX512(k)
	}
	return k
}

// avxVNNI reports whether archSet adds the AVX-VNNI kernels to the sets
// above AVX2: whether the CPU has AVX-VNNI. A test clears it to build the
// AVX-512 set as a CPU with AVX-512 VNNI and no AVX-VNNI (Zen 4, Ice
// Lake) builds it, on a CPU that has both.
var avxVNNI = cpu.X86.HasAVXVNNI

// addAVXVNNI adds the AVX-VNNI kernels (VEX VPDPBUSD on 256-bit
// registers) over the AVX2 ones.
func addAVXVNNI(k *kernelSet) {
	addAVXVNNIKernels(k)
}

// addAVX512 adds the AVX-512 kernels over the AVX2 (and AVX-VNNI) ones.
func addAVX512(k *kernelSet) {
	addAVX512K(k)
	addAVX512Float(k)
	addAVX512Q8(k)
	addAVX512MXFP4(k)
}
