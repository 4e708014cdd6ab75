package cpu

import "golang.org/x/sys/cpu"

// The arm64 kernel sets, oldest first; each builds on the one before.
//
//   - "neon": base Advanced SIMD (every arm64 CPU).
//   - "neon+dotprod": with the dot-product extension, SDOT (Armv8.2+:
//     Apple M1, most Arm servers).
const (
	setNEON    = "neon"
	setDotProd = "neon+dotprod"
)

// kernelSetNames lists the arm64 sets in order, oldest first.
var kernelSetNames = []string{setNEON, setDotProd}

// simdAliases maps SAJI_SIMD's short values to set names.
var simdAliases = map[string]string{"neon": setNEON, "dotprod": setDotProd, "neon+dotprod": setDotProd}

// lacks returns what this CPU lacks to run the set name ("cpu lacks
// asimddp", in /proc/cpuinfo's words), or "" when it runs it.
func lacks(name string) string {
	x := cpu.ARM64
	switch name {
	case setNEON:
		return missing([]flag{{"asimd", x.HasASIMD}})
	case setDotProd:
		return missing([]flag{{"asimd", x.HasASIMD}, {"asimddp", x.HasASIMDDP}})
	}
	return "no kernel set " + name + " on arm64"
}

// buildSet returns the kernel set name, which the CPU must run.
func buildSet(name string) *kernelSet {
	dot := name != setNEON
	k := newKernelSet(name)
	addNEON(k, dot)
	addNEONMXFP4(k, dot)
	addNEONTQ(k, dot)
	addNEONIQ1(k, dot)
	return k
}
