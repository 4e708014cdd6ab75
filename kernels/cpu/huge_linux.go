package cpu

import "golang.org/x/sys/unix"

func init() {
	// Transparent huge pages are often enabled only for memory that asks
	// (the "madvise" setting); other systems have no such advice.
	adviseHugePages = func(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
}
