package hardware

import "golang.org/x/sys/cpu"

// cpuFeatures lists the x86 SIMD extensions the kernels dispatch on.
func cpuFeatures() []string {
	x := cpu.X86
	var f []string
	for _, c := range []struct {
		has  bool
		name string
	}{
		{x.HasAVX, "avx"},
		{x.HasAVX2, "avx2"},
		{x.HasFMA, "fma"},
		{x.HasF16C, "f16c"},
		{x.HasAVX512F, "avx512f"},
		{x.HasAVX512BW, "avx512bw"},
		{x.HasAVX512VNNI, "avx512_vnni"},
		{x.HasAVXVNNI, "avx_vnni"},
	} {
		if c.has {
			f = append(f, c.name)
		}
	}
	return f
}
