package units

import "testing"

// TestUnits checks Bytes and Rate: decimal units, one decimal below 10 of
// a unit, none from 10, rounding at the half.
func TestUnits(t *testing.T) {
	for _, tt := range []struct{ got, want string }{
		{Bytes(0), "0 B"},
		{Bytes(1), "1 B"},
		{Bytes(999), "999 B"},
		{Bytes(1000), "1.0 kB"},
		{Bytes(1500), "1.5 kB"},
		{Bytes(9_949), "9.9 kB"},
		{Bytes(9_950), "10 kB"},
		{Bytes(999_499), "999 kB"},
		{Bytes(999_500), "1.0 MB"},
		{Bytes(1_525_248), "1.5 MB"},
		{Bytes(2_671_520), "2.7 MB"},
		{Bytes(491_000_000), "491 MB"},
		{Bytes(999_600_000), "1.0 GB"},
		{Bytes(1_120_000_000), "1.1 GB"},
		{Bytes(1 << 30), "1.1 GB"},
		{Bytes(23_400_000_000), "23 GB"},
		{Bytes(24_000_000_000), "24 GB"},
		{Bytes(4_200_000_000_000), "4.2 TB"},
		{Bytes(-2_500_000), "-2.5 MB"},
		{Rate(0), "0 B/s"},
		{Rate(512.4), "512 B/s"},
		{Rate(10_000_000), "10 MB/s"},
		{Rate(1.25e9), "1.2 GB/s"},
	} {
		if tt.got != tt.want {
			t.Errorf("wrote %q, want %q", tt.got, tt.want)
		}
	}
}
