//go:build linux || windows

package hardware

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unsafe"
)

// TestNVMLNoDriver: on a machine without the NVIDIA driver (such as CI's),
// the probe finds no GPU and says why, without an error.
func TestNVMLNoDriver(t *testing.T) {
	if _, err := loadNVML(); err == nil {
		t.Skip("this machine has an NVIDIA driver")
	}
	rep := ProbeGPUs(context.Background())
	want := "no NVIDIA driver (" + nvmlLibrary + " not found)"
	if len(rep.GPUs) != 0 || len(rep.Notes) != 1 || !strings.HasPrefix(rep.Notes[0], want) {
		t.Errorf("report %+v, want no GPU and the note %q", rep, want)
	}
}

// fakeNVML is an NVML stand-in with devices whose memory calls may fail.
type fakeNVML struct {
	initRet, countRet uint32
	names             []string
	mems              []nvmlMemory
	memRet            []uint32
	handleRet         []uint32
	shutdowns         int
}

func (f *fakeNVML) api() *nvmlAPI {
	return &nvmlAPI{
		init:        func() uint32 { return f.initRet },
		shutdown:    func() uint32 { f.shutdowns++; return 0 },
		errorString: func(ret uint32) string { return map[uint32]string{9: "Driver Not Loaded", 15: "GPU is lost"}[ret] },
		deviceCount: func(n *uint32) uint32 { *n = uint32(len(f.names)); return f.countRet },
		deviceByIndex: func(i uint32, dev *uintptr) uint32 {
			*dev = uintptr(i) + 100
			if f.handleRet != nil {
				return f.handleRet[i]
			}
			return 0
		},
		deviceName: func(dev uintptr, name *byte, length uint32) uint32 {
			if length < nvmlDeviceNameBufferSize {
				return 7 // NVML_ERROR_INSUFFICIENT_SIZE
			}
			s := f.names[dev-100]
			if s == "" {
				return 3
			}
			buf := unsafeBytes(name, length)
			copy(buf, s+"\x00")
			return 0
		},
		deviceMemory: func(dev uintptr, m *nvmlMemory) uint32 {
			i := dev - 100
			if f.memRet != nil && f.memRet[i] != 0 {
				return f.memRet[i]
			}
			*m = f.mems[i]
			return 0
		},
	}
}

func TestNVMLDevices(t *testing.T) {
	tests := []struct {
		name      string
		fake      fakeNVML
		want      []GPU
		wantNotes []string
		shutdowns int
	}{
		{
			name: "two GPUs",
			fake: fakeNVML{
				names: []string{"NVIDIA GeForce RTX 4090", "NVIDIA RTX A4000"},
				mems:  []nvmlMemory{{Total: 24 << 30, Free: 23 << 30, Used: 1 << 30}, {Total: 16 << 30, Free: 16 << 30}},
			},
			want: []GPU{
				{Vendor: "nvidia", Name: "NVIDIA GeForce RTX 4090", Total: 24 << 30, Free: 23 << 30, Index: 0},
				{Vendor: "nvidia", Name: "NVIDIA RTX A4000", Total: 16 << 30, Free: 16 << 30, Index: 1},
			},
			shutdowns: 1,
		},
		{
			name:      "driver not loaded",
			fake:      fakeNVML{initRet: 9},
			wantNotes: []string{"no NVIDIA driver loaded (NVML: Driver Not Loaded (9))"},
		},
		{
			name:      "init fails otherwise",
			fake:      fakeNVML{initRet: 999},
			wantNotes: []string{"could not be initialized (NVML: error 999)"},
		},
		{
			name:      "count fails",
			fake:      fakeNVML{countRet: 15},
			wantNotes: []string{"could not be counted (NVML: GPU is lost (15))"},
			shutdowns: 1,
		},
		{
			name:      "no device",
			fake:      fakeNVML{},
			wantNotes: []string{"reports no GPU"},
			shutdowns: 1,
		},
		{
			name: "a lost GPU, a nameless one and one without memory info",
			fake: fakeNVML{
				names:     []string{"lost", "", "NVIDIA T4"},
				mems:      []nvmlMemory{{}, {Total: 4 << 30, Free: 5 << 30}, {Total: 16 << 30, Free: 15 << 30}},
				handleRet: []uint32{15, 0, 0},
				memRet:    []uint32{0, 0, 15},
			},
			want:      []GPU{{Vendor: "nvidia", Name: "NVIDIA GPU 1", Total: 4 << 30, Free: 4 << 30, Index: 1}},
			wantNotes: []string{"NVIDIA GPU 0 is unusable (NVML: GPU is lost (15))", "NVIDIA T4's memory is unknown"},
			shutdowns: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			gpus, notes := tt.fake.api().gpus(context.Background())
			if len(gpus) != len(tt.want) {
				t.Fatalf("GPUs %+v, want %+v", gpus, tt.want)
			}
			for i := range gpus {
				if gpus[i] != tt.want[i] {
					t.Errorf("GPU %d: %+v, want %+v", i, gpus[i], tt.want[i])
				}
			}
			if len(notes) != len(tt.wantNotes) {
				t.Fatalf("notes %q, want %q", notes, tt.wantNotes)
			}
			for i := range notes {
				if !strings.Contains(notes[i], tt.wantNotes[i]) {
					t.Errorf("note %q, want %q", notes[i], tt.wantNotes[i])
				}
			}
			if tt.fake.shutdowns != tt.shutdowns {
				t.Errorf("%d shutdowns, want %d", tt.fake.shutdowns, tt.shutdowns)
			}
		})
	}
}

func TestNVMLMissingSymbol(t *testing.T) {
	if _, err := librarySymbol(0, "nvmlNoSuchFunction"); err == nil {
		t.Skip("the lookup of a missing symbol succeeded")
	} else if errors.Unwrap(err) == nil {
		t.Errorf("error %v wraps nothing", err)
	}
}

// unsafeBytes is the C buffer of length bytes at p.
func unsafeBytes(p *byte, length uint32) []byte { return unsafe.Slice(p, length) }
