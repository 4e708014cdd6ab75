package metal

import (
	"fmt"
	"strconv"
	"strings"
)

// MTLLanguageVersion values: the major version in the high 16 bits, the
// minor in the low ones.
const (
	languageVersion2_4 = 2<<16 | 4 // MTLLanguageVersion2_4, macOS 12
	languageVersion3_0 = 3 << 16   // MTLLanguageVersion3_0, macOS 13
)

// languageVersion returns the Metal Shading Language version the kernels
// are compiled as on macOS version osVersion ("14.2.1", as the sysctl
// kern.osproductversion reports it), and its name.
//
// The version is always set explicitly, so that an OS update never changes
// the language the kernels are compiled as. MSL 3.0 (Metal 3) where the OS
// has it, macOS 13 and later; MSL 2.4 on macOS 12. The kernels use nothing
// newer than MSL 2.1 (SIMD-group functions), so both compile them alike;
// 3.0 is preferred where available because it is the version Apple's
// current compilers and tools validate first. Older systems, whose Metal
// compilers predate 2.4, are refused rather than run untested.
func languageVersion(osVersion string) (version uint64, name string, err error) {
	major, _, _ := strings.Cut(strings.TrimSpace(osVersion), ".")
	n, err := strconv.Atoi(major)
	if err != nil || n <= 0 {
		return 0, "", fmt.Errorf("metal: cannot read the macOS version %q", osVersion)
	}
	switch {
	case n >= 13:
		return languageVersion3_0, "3.0", nil
	case n == 12:
		return languageVersion2_4, "2.4", nil
	}
	return 0, "", fmt.Errorf("metal: macOS %s is too old: the Metal kernels need macOS 12 or later", osVersion)
}

// pageSpan returns the span of whole pages (page a power of two) that
// covers the n bytes at addr, as newBufferWithBytesNoCopy needs it: its
// start (addr rounded down), its length (a multiple of page, covering the
// end of the data rounded up) and the offset of addr within it.
func pageSpan(addr uintptr, n, page int) (base uintptr, length, off int) {
	mask := uintptr(page - 1)
	base = addr &^ mask
	end := (addr + uintptr(n) + mask) &^ mask
	return base, int(end - base), int(addr - base)
}
