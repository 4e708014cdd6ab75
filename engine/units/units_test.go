package units

import "testing"

func TestBytes(t *testing.T) {
	tests := []struct {
		n    int64
		want string
	}{
		{0, "0 B"},
		{1, "1 B"},
		{999, "999 B"},
		{1000, "1.0 kB"},
		{1500, "1.5 kB"},
		{9_949, "9.9 kB"},
		{9_950, "10 kB"},
		{999_499, "999 kB"},
		{999_500, "1.0 MB"},
		{491_000_000, "491 MB"},
		{1_120_000_000, "1.1 GB"},
		{1 << 30, "1.1 GB"},
		{24_000_000_000, "24 GB"},
		{1_525_248, "1.5 MB"},
		{2_671_520, "2.7 MB"},
		{999_600_000, "1.0 GB"},
		{23_400_000_000, "23 GB"},
		{4_200_000_000_000, "4.2 TB"},
		{-2_500_000, "-2.5 MB"},
	}
	for _, tt := range tests {
		if got := Bytes(tt.n); got != tt.want {
			t.Errorf("Bytes(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestRate(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0 B/s"},
		{512.4, "512 B/s"},
		{10_000_000, "10 MB/s"},
		{1.25e9, "1.2 GB/s"},
	}
	for _, tt := range tests {
		if got := Rate(tt.v); got != tt.want {
			t.Errorf("Rate(%v) = %q, want %q", tt.v, got, tt.want)
		}
	}
}
