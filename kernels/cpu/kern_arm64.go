package cpu

import "golang.org/x/sys/cpu"

// The arm64 kernel sets, oldest first; each builds on the one before.
//
//   - "neon": base Advanced SIMD (every arm64 CPU).
//   - "neon+dotprod": with the dot-product extension, SDOT (Armv8.2+:
//     Apple M1, most Arm servers).
//   - "neon+i8mm": the dotprod set with the int8 matrix multiplies, SMMLA
//     (Armv8.6+: Apple M2 and later, Snapdragon X, Graviton 3 and later).
const (
	setNEON    = "neon"
	setDotProd = "neon+dotprod"
	setI8MM    = "neon+i8mm"
)

// kernelSetNames lists the arm64 sets in order, oldest first.
var kernelSetNames = []string{setNEON, setDotProd, setI8MM}

// simdAliases maps SAJI_SIMD's short values to set names.
var simdAliases = map[string]string{"neon": setNEON, "dotprod": setDotProd, "neon+dotprod": setDotProd,
	"i8mm": setI8MM, "neon+i8mm": setI8MM}

// lacks returns what this CPU lacks to run the set name ("cpu lacks
// asimddp", in /proc/cpuinfo's words), or "" when it runs it.
func lacks(name string) string {
	x := cpu.ARM64
	switch name {
	case setNEON:
		return missing([]flag{{"asimd", x.HasASIMD}})
	case setDotProd:
		return missing([]flag{{"asimd", x.HasASIMD}, {"asimddp", x.HasASIMDDP}})
	case setI8MM: // i8mm first: a CPU without it says so, dotprod or not
		return missing([]flag{{"asimd", x.HasASIMD}, {"i8mm", x.HasI8MM}, {"asimddp", x.HasASIMDDP}})
	}
	return "no kernel set " + name + " on arm64"
}

// archSet returns the kernel set name of this architecture, which the CPU
// must run (buildSet completes it).
func archSet(name string) *kernelSet {
	dot := name != setNEON
	k := newKernelSet(name)
	addNEON(k, dot)
	addNEONMXFP4(k, dot)
	addNEONTQ(k, dot)
	addNEONIQ1(k, dot)
	if dot {
		addSDOTTiles(k)
	}
	if name == setI8MM {
		addI8MM(k)
	}
	return k
}
