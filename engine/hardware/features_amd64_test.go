package hardware

import (
	"testing"

	"golang.org/x/sys/cpu"
)

func TestCPUFeaturesX86(t *testing.T) {
	c := CPU{Features: cpuFeatures()}
	t.Logf("features: %v", c.Features)
	tests := []struct {
		name string
		has  bool
	}{
		{"avx", cpu.X86.HasAVX},
		{"avx2", cpu.X86.HasAVX2},
		{"fma", cpu.X86.HasFMA},
		{"f16c", cpu.X86.HasF16C},
		{"avx512f", cpu.X86.HasAVX512F},
		{"avx512bw", cpu.X86.HasAVX512BW},
		{"avx512_vnni", cpu.X86.HasAVX512VNNI},
		{"avx_vnni", cpu.X86.HasAVXVNNI},
		{"neon", false},
		{"dotprod", false},
	}
	for _, tt := range tests {
		if got := c.HasFeature(tt.name); got != tt.has {
			t.Errorf("HasFeature(%q) = %v, x/sys/cpu says %v", tt.name, got, tt.has)
		}
	}
	if len(c.Features) > len(tests) {
		t.Errorf("features %v: more than those checked", c.Features)
	}
}
