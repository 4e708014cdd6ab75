package fit

import (
	"strings"
	"testing"

	"saji/engine/hardware"
)

// TestCompare checks the comparison's arithmetic with and without a
// baseline, and its words.
func TestCompare(t *testing.T) {
	m := hardware.Machine{Memory: hardware.Memory{Total: 16 << 30, Available: 12 << 30}, Bandwidth: 40e9,
		CPU: hardware.CPU{Cores: 4, Threads: 8}}
	p, err := PlanFor(shape(), m, Request{Context: 2048})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name          string
		rss, baseline int64
		wantRSS       int64
		wantPredicted int64
		wantBase      bool
	}{
		{"whole process", 900e6, 0, 900e6, p.ResidentAt(100), false},
		{"over a baseline", 1200e6, 300e6, 900e6, p.ResidentAt(100) - baseOverhead, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := p.Compare(100, tt.rss, tt.baseline, 12.5)
			if got.RSS != tt.wantRSS || got.Predicted != tt.wantPredicted || got.Tokens != 100 || got.DecodeTokensPerSec != 12.5 {
				t.Errorf("Compare = %+v", got)
			}
			if got.PredictedTokensPerSec != p.DecodeTokensPerSecAt(100) || got.PredictedTokensPerSec <= 0 {
				t.Errorf("predicted speed %v, want %v", got.PredictedTokensPerSec, p.DecodeTokensPerSecAt(100))
			}
			want := float64(got.RSS-got.Predicted) / float64(got.Predicted)
			if got.MemoryError() != want {
				t.Errorf("MemoryError = %v, want %v", got.MemoryError(), want)
			}
			lines := got.Lines(p.Breakdown.Total)
			if len(lines) != 2 || !strings.HasPrefix(lines[0], "Measured: resident 900 MB with 100 tokens") ||
				!strings.Contains(lines[1], "decode 12.5 tokens/s at 100 tokens; predicted") ||
				strings.Contains(lines[0], "before loading") != tt.wantBase {
				t.Errorf("Lines = %q", lines)
			}
		})
	}
	p.Machine.Bandwidth, p.DecodeTokensPerSec = 0, 0
	if l := p.Compare(10, 1e6, 0, 3).Lines(0); !strings.Contains(l[1], "not predicted") {
		t.Errorf("no bandwidth: %q", l)
	}
	if (Measurement{}).MemoryError() != 0 {
		t.Error("MemoryError of nothing predicted is not 0")
	}
}

// TestResidentSetSize reads this process's resident memory.
func TestResidentSetSize(t *testing.T) {
	n, err := ResidentSetSize()
	if err != nil {
		t.Skip("gopsutil cannot read the resident memory here:", err)
	}
	if n < 1<<20 {
		t.Errorf("resident set %d bytes, implausibly small", n)
	}
}
