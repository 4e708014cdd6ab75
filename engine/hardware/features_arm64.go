package hardware

import "golang.org/x/sys/cpu"

// cpuFeatures lists the Arm SIMD extensions the kernels dispatch on.
func cpuFeatures() []string {
	a := cpu.ARM64
	var f []string
	for _, c := range []struct {
		has  bool
		name string
	}{
		{a.HasASIMD, "neon"},
		{a.HasASIMDDP, "dotprod"},
		{a.HasI8MM, "i8mm"},
		{a.HasSVE, "sve"},
	} {
		if c.has {
			f = append(f, c.name)
		}
	}
	return f
}
