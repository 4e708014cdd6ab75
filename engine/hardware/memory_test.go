package hardware

import "testing"

func TestCheck(t *testing.T) {
	const gib = 1 << 30
	m := Memory{Total: 16 * gib, Available: 8 * gib}
	for _, tt := range []struct {
		size int64
		want Verdict
	}{
		{1 * gib, Fits},
		{6 * gib, Fits},    // 7.2 GiB + 0.5 GiB
		{7 * gib, Tight},   // 8.4 GiB + 0.5 GiB > 8 available
		{13 * gib, TooBig}, // 15.6 GiB + 0.5 GiB is over the 16 in all
		{20 * gib, TooBig},
	} {
		if got := m.Check(tt.size); got != tt.want {
			t.Errorf("Check(%d GiB) = %v, want %v", tt.size/gib, got, tt.want)
		}
	}
	if m, err := ReadMemory(); err != nil || m.Total == 0 || m.Available > m.Total {
		t.Errorf("ReadMemory() = %+v, %v", m, err)
	}
}
