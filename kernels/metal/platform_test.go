package metal

import "testing"

func TestLanguageVersion(t *testing.T) {
	for _, tc := range []struct {
		os      string
		version uint64
		name    string
		ok      bool
	}{
		{"15.1", languageVersion3_0, "3.0", true},
		{"14.2.1", languageVersion3_0, "3.0", true},
		{"13.0", languageVersion3_0, "3.0", true},
		{"26.0\n", languageVersion3_0, "3.0", true},
		{"12.7.6", languageVersion2_4, "2.4", true},
		{"11.7.10", 0, "", false},
		{"10.15.7", 0, "", false},
		{"", 0, "", false},
		{"x.1", 0, "", false},
	} {
		v, name, err := languageVersion(tc.os)
		if (err == nil) != tc.ok || v != tc.version || name != tc.name {
			t.Errorf("languageVersion(%q) = %#x, %q, %v; want %#x, %q, ok %v", tc.os, v, name, err, tc.version, tc.name, tc.ok)
		}
	}
	// The values of Apple's MTLLanguageVersion enumeration.
	if languageVersion2_4 != 131076 || languageVersion3_0 != 196608 {
		t.Errorf("MTLLanguageVersion2_4 = %d, 3_0 = %d; want 131076 and 196608", languageVersion2_4, languageVersion3_0)
	}
}

func TestPageSpan(t *testing.T) {
	const page = 16384
	for _, tc := range []struct {
		addr        uintptr
		n           int
		base        uintptr
		length, off int
	}{
		{0x10000, 1, 0x10000, page, 0},
		{0x10000, page, 0x10000, page, 0},
		{0x10000, page + 1, 0x10000, 2 * page, 0},
		{0x10010, 100, 0x10000, page, 0x10},
		{0x13ff0, 0x20, 0x10000, 2 * page, 0x3ff0},    // straddles a page boundary
		{0x17fff, 1, 0x14000, page, 0x3fff},           // the last byte of a page
		{0x14000 - 1, 2, 0x10000, 2 * page, page - 1}, // one byte on each side
	} {
		base, length, off := pageSpan(tc.addr, tc.n, page)
		if base != tc.base || length != tc.length || off != tc.off {
			t.Errorf("pageSpan(%#x, %d) = %#x, %d, %d; want %#x, %d, %d", tc.addr, tc.n, base, length, off, tc.base, tc.length, tc.off)
		}
		if base%page != 0 || length%page != 0 || uintptr(off) != tc.addr-base || base+uintptr(length) < tc.addr+uintptr(tc.n) {
			t.Errorf("pageSpan(%#x, %d) = %#x, %d, %d does not cover the data in whole pages", tc.addr, tc.n, base, length, off)
		}
	}
}
