package fit

import (
	"testing"

	"saji/engine/hardware"
)

func TestPaceOf(t *testing.T) {
	tests := []struct {
		v    Verdict
		tps  float64
		want Pace
	}{
		{Verdict{Kind: CPUOnly}, 12, Comfortable},
		{Verdict{Kind: CPUOnly}, ComfortableTokensPerSec, Comfortable},
		{Verdict{Kind: CPUOnly}, 7.9, Slow},
		{Verdict{Kind: CPUOnly}, 1.5, Slow},
		{Verdict{Kind: CPUOnly}, 0, Comfortable}, // the speed is not known
		{Verdict{Kind: FullGPU}, 0, Comfortable},
		{Verdict{Kind: CPUOnly, Tight: true}, 20, Tight},
		{Verdict{Kind: CPUOnly, Tight: true}, 1, Tight},
		{Verdict{Kind: WontFit}, 20, TooBig},
	}
	for _, tt := range tests {
		if got := PaceOf(tt.v, tt.tps); got != tt.want {
			t.Errorf("PaceOf(%+v, %v) = %d, want %d", tt.v, tt.tps, got, tt.want)
		}
	}
}

func TestAdvice(t *testing.T) {
	const gb = 1_000_000_000
	ram := hardware.Memory{Total: 24 * gb, Available: 23 * gb}
	gpu := hardware.GPU{Name: "Test GPU", Total: 8 * gb, Free: 7 * gb}
	tests := []struct {
		name string
		p    Plan
		want string
	}{
		{"comfortable", Plan{Machine: hardware.Machine{Memory: ram}, Verdict: Verdict{Kind: CPUOnly},
			Breakdown: Breakdown{RAM: 5_100_000_000}, DecodeTokensPerSec: 12.4},
			"Fits: about 12 tokens/s, 5.1 GB of 23 GB free."},
		{"slow", Plan{Machine: hardware.Machine{Memory: ram}, Verdict: Verdict{Kind: CPUOnly},
			Breakdown: Breakdown{RAM: 8_200_000_000}, DecodeTokensPerSec: 1.53},
			"Runs, slowly: about 1.5 tokens/s, 8.2 GB of 23 GB free."},
		{"no speed", Plan{Machine: hardware.Machine{Memory: ram}, Verdict: Verdict{Kind: CPUOnly},
			Breakdown: Breakdown{RAM: 2 * gb}},
			"Fits: 2.0 GB of 23 GB free."},
		{"unknown memory", Plan{Verdict: Verdict{Kind: CPUOnly}, Breakdown: Breakdown{RAM: 2 * gb}},
			"Fits: needs 2.0 GB."},
		{"gpu", Plan{Machine: hardware.Machine{Memory: ram, GPUs: []hardware.GPU{gpu}}, Verdict: Verdict{Kind: FullGPU, GPULayers: 32},
			Breakdown: Breakdown{RAM: 100e6, GPU: 5 * gb}},
			"Fits on the GPU: 5.0 GB of 7.0 GB free."},
		{"partial", Plan{Model: ModelShape{Layers: 32}, Machine: hardware.Machine{Memory: ram, GPUs: []hardware.GPU{gpu}},
			Verdict: Verdict{Kind: PartialGPU, GPULayers: 20}, Breakdown: Breakdown{RAM: 4 * gb, GPU: 7 * gb}},
			"Fits partly on the GPU (20 of 32 layers): 4.0 GB of 23 GB free."},
		{"tight", Plan{Machine: hardware.Machine{Memory: hardware.Memory{Total: 24 * gb, Available: 12 * gb}},
			Verdict: Verdict{Kind: CPUOnly, Tight: true}, Breakdown: Breakdown{RAM: 20 * gb}, DecodeTokensPerSec: 3},
			"Tight: needs 20 GB, 12 GB free; close other programs first."},
		{"too big", Plan{Machine: hardware.Machine{Memory: ram}, Verdict: Verdict{Kind: WontFit},
			Breakdown: Breakdown{Total: 48 * gb}}, "Too big: needs 48 GB, this computer has 24 GB."},
	}
	for _, tt := range tests {
		if got := tt.p.Advice(); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestPaceOfClasses plans the size classes on a machine like the one the
// issue was found on (2 cores, 25 GB/s measured, 23 GB free): a 1B model
// is comfortable, a 14B one runs slowly, 70B does not fit.
func TestPaceOfClasses(t *testing.T) {
	m := hardware.Machine{CPU: hardware.CPU{Cores: 2, Threads: 2}, Bandwidth: 25e9,
		Memory: hardware.Memory{Total: 24e9, Available: 23e9}}
	want := map[string]Pace{"1B": Comfortable, "3B": Comfortable, "8B": Slow, "14B": Slow, "32B": Slow, "70B": TooBig}
	for _, c := range Classes {
		p, err := PlanFor(c.Shape(), m, Desktop(4096))
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Pace(); got != want[c.Name] {
			t.Errorf("%s: pace %d (%s), want %d", c.Name, got, p.Advice(), want[c.Name])
		}
	}
}

func TestFastEnough(t *testing.T) {
	tests := []struct {
		size      int64
		bandwidth float64
		want      bool
	}{
		{1e9, 20e9, true},
		{2.5e9, 20e9, true},
		{2.6e9, 20e9, false},
		{8e9, 20e9, false},
		{8e9, 0, true}, // not measured
		{0, 20e9, true},
	}
	for _, tt := range tests {
		if got := FastEnough(tt.size, tt.bandwidth); got != tt.want {
			t.Errorf("FastEnough(%d, %g) = %v, want %v", tt.size, tt.bandwidth, got, tt.want)
		}
	}
}
