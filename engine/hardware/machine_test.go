package hardware

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

func TestDetectSkipAll(t *testing.T) {
	m, err := Detect(context.Background(), DetectOptions{SkipBandwidth: true, SkipGPU: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%+v", m)
	if m.CPU.Threads != runtime.NumCPU() || m.CPU.Cores != PhysicalCores() || m.CPU.Arch != runtime.GOARCH {
		t.Errorf("CPU %+v", m.CPU)
	}
	if m.CPU.Cores < 1 || m.CPU.Cores > m.CPU.Threads {
		t.Errorf("%d cores for %d threads", m.CPU.Cores, m.CPU.Threads)
	}
	if !reflect.DeepEqual(m.CPU.Features, cpuFeatures()) {
		t.Errorf("features %v, want %v", m.CPU.Features, cpuFeatures())
	}
	if m.Memory.Total == 0 || m.Memory.Available > m.Memory.Total {
		t.Errorf("memory %+v", m.Memory)
	}
	if m.GPUs != nil || m.Bandwidth != 0 {
		t.Errorf("skipped parts detected: GPUs %+v, bandwidth %v", m.GPUs, m.Bandwidth)
	}
	if m.CPU.Model == "" && len(m.Notes) == 0 {
		t.Error("no CPU model and no note saying why")
	}
}

func TestDetectProbe(t *testing.T) {
	mem, err := ReadMemory()
	if err != nil {
		t.Fatal(err)
	}
	huge := mem.Total * 2
	tests := []struct {
		name      string
		probe     func(context.Context) ([]GPU, []string, error)
		wantGPUs  []GPU
		wantNotes []string // substrings, in order
	}{
		{
			name: "nvidia",
			probe: func(context.Context) ([]GPU, []string, error) {
				return []GPU{{Vendor: "nvidia", Name: "A", Total: 8 << 30, Free: 7 << 30}}, nil, nil
			},
			wantGPUs: []GPU{{Vendor: "nvidia", Name: "A", Total: 8 << 30, Free: 7 << 30}},
		},
		{
			name: "unified memory is capped by the available RAM",
			probe: func(context.Context) ([]GPU, []string, error) {
				return []GPU{{Vendor: "apple", Name: "M", Total: huge, Free: huge, Unified: true}}, nil, nil
			},
			wantGPUs: []GPU{{Vendor: "apple", Name: "M", Total: huge, Free: min(huge, mem.Available), Unified: true}},
		},
		{
			name: "no driver",
			probe: func(context.Context) ([]GPU, []string, error) {
				return nil, []string{"no NVIDIA driver (libnvidia-ml.so.1 not found)"}, nil
			},
			wantNotes: []string{"no NVIDIA driver"},
		},
		{
			name: "crash",
			probe: func(context.Context) ([]GPU, []string, error) {
				return nil, nil, &probeError{ErrProbeCrashed, "signal: segmentation fault"}
			},
			wantNotes: []string{"crashed while being queried; GPU offload is off (signal: segmentation fault)"},
		},
		{
			name: "other error",
			probe: func(context.Context) ([]GPU, []string, error) {
				return nil, []string{"first"}, errors.New("hardware: something")
			},
			wantNotes: []string{"first", "could not be detected; GPU offload is off (something)"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := Detect(context.Background(), DetectOptions{SkipBandwidth: true, Probe: tt.probe})
			if err != nil {
				t.Fatal(err)
			}
			if len(m.GPUs) != len(tt.wantGPUs) {
				t.Fatalf("GPUs %+v, want %+v", m.GPUs, tt.wantGPUs)
			}
			for i := range m.GPUs {
				// Free of a unified GPU depends on the RAM available now.
				if tt.wantGPUs[i].Unified {
					if m.GPUs[i].Free > mem.Total {
						t.Errorf("unified GPU's free memory %d is more than the RAM %d", m.GPUs[i].Free, mem.Total)
					}
					m.GPUs[i].Free = tt.wantGPUs[i].Free
				}
				if m.GPUs[i] != tt.wantGPUs[i] {
					t.Errorf("GPU %d: %+v, want %+v", i, m.GPUs[i], tt.wantGPUs[i])
				}
			}
			notes := m.Notes[len(m.Notes)-len(tt.wantNotes):]
			for i, want := range tt.wantNotes {
				if !strings.Contains(notes[i], want) {
					t.Errorf("notes %q, want %q", m.Notes, tt.wantNotes)
				}
			}
		})
	}
}

// TestDetectDefaultProbeInTest: without a Probe, a test binary starts no
// child (it has no hwprobe command) and says so.
func TestDetectDefaultProbeInTest(t *testing.T) {
	m, err := Detect(context.Background(), DetectOptions{SkipBandwidth: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.GPUs) != 0 || len(m.Notes) == 0 || !strings.Contains(m.Notes[len(m.Notes)-1], "test binary") {
		t.Errorf("GPUs %+v, notes %q", m.GPUs, m.Notes)
	}
}

func TestDetectCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Detect(ctx, DetectOptions{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want context.Canceled", err)
	}
}

func TestMachineJSON(t *testing.T) {
	in := Machine{
		CPU:       CPU{Model: "X", Cores: 8, Threads: 16, Arch: "amd64", Features: []string{"avx2"}},
		Memory:    Memory{Total: 32 << 30, Available: 20 << 30},
		GPUs:      []GPU{{Vendor: "nvidia", Name: "G", Total: 8 << 30, Free: 6 << 30, Index: 1}},
		Bandwidth: 60e9,
		Notes:     []string{"n"},
	}
	data, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), `"memory":{"total":34359738368,"available":21474836480}`) {
		t.Errorf("JSON %s", data)
	}
	var out Machine
	if err := json.Unmarshal(data, &out); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(in, out) {
		t.Errorf("round trip: %+v, want %+v", out, in)
	}
	if err := json.Unmarshal([]byte(`{"memory":{"total":"x"}}`), &out); err == nil {
		t.Error("a bad memory size: no error")
	}
}
