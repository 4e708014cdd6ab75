package hardware

import (
	"testing"

	"golang.org/x/sys/cpu"
)

func TestCPUFeaturesArm64(t *testing.T) {
	c := CPU{Features: cpuFeatures()}
	t.Logf("features: %v", c.Features)
	tests := []struct {
		name string
		has  bool
	}{
		{"neon", cpu.ARM64.HasASIMD},
		{"dotprod", cpu.ARM64.HasASIMDDP},
		{"i8mm", cpu.ARM64.HasI8MM},
		{"sve", cpu.ARM64.HasSVE},
		{"avx2", false},
	}
	for _, tt := range tests {
		if got := c.HasFeature(tt.name); got != tt.has {
			t.Errorf("HasFeature(%q) = %v, x/sys/cpu says %v", tt.name, got, tt.has)
		}
	}
}
