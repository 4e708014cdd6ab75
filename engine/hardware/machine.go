package hardware

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime"
	"testing"
	"time"
)

// Machine is what Detect found: the processor, the memory, the GPUs and
// the measured memory bandwidth, with a note for each thing it could not
// find out.
type Machine struct {
	CPU    CPU    `json:"cpu"`
	Memory Memory `json:"memory"`
	// GPUs are the GPUs a model can be offloaded to, in the driver's
	// order; none when there is no usable GPU (Notes says why).
	GPUs []GPU `json:"gpus"`
	// Bandwidth is the measured main-memory read bandwidth in bytes per
	// second with all cores reading; 0 when it is unknown (not measured).
	Bandwidth float64 `json:"bandwidth"`
	// Notes say, for a person, what could not be detected and why, such as
	// "no NVIDIA driver (libnvidia-ml.so.1 not found)".
	Notes []string `json:"notes,omitempty"`
}

// CPU describes the processor.
type CPU struct {
	// Model is the processor's marketing name ("AMD Ryzen 7 7840U w/
	// Radeon 780M Graphics", "Apple M2 Pro"); empty when unknown.
	Model string `json:"model"`
	// Cores is the number of physical cores; Threads the number of logical
	// CPUs (hardware threads) the process may use.
	Cores   int `json:"cores"`
	Threads int `json:"threads"`
	// Arch is the Go architecture name ("amd64", "arm64").
	Arch string `json:"arch"`
	// Features are the SIMD extensions the matrix kernels care about, of
	// "avx", "avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512_vnni",
	// "avx_vnni" (amd64) and "neon", "dotprod", "i8mm", "sve" (arm64).
	Features []string `json:"features"`
}

// HasFeature reports whether the CPU has the named feature (one of those
// listed for Features).
func (c CPU) HasFeature(name string) bool {
	for _, f := range c.Features {
		if f == name {
			return true
		}
	}
	return false
}

// GPU is one GPU a model's layers can be offloaded to.
type GPU struct {
	// Vendor is the backend family that drives the GPU: "nvidia" (CUDA,
	// found through NVML) or "apple" (Metal).
	Vendor string `json:"vendor"`
	// Name is the driver's name for the device ("NVIDIA GeForce RTX 4090",
	// "Apple M2 Pro").
	Name string `json:"name"`
	// Total and Free are the device memory in bytes. For an Apple GPU,
	// Total is the Metal device's recommended working set size and Free
	// the part of it the machine's available RAM can back.
	Total uint64 `json:"total"`
	Free  uint64 `json:"free"`
	// Unified is true when the GPU shares the machine's RAM (Apple
	// silicon): its memory is not in addition to Memory.
	Unified bool `json:"unified"`
	// Index is the device's index in its driver's enumeration.
	Index int `json:"index"`
}

// DetectOptions tunes Detect.
type DetectOptions struct {
	// CacheDir is the folder of the bandwidth cache (bandwidth.json); ""
	// measures every time and keeps nothing.
	CacheDir string
	// SkipBandwidth leaves Machine.Bandwidth at 0 (no measurement, no
	// cache read).
	SkipBandwidth bool
	// SkipGPU leaves Machine.GPUs empty and queries no driver.
	SkipGPU bool
	// Probe, when set, replaces the GPU probe. The default runs this
	// executable's hidden 'hwprobe --gpu' command in a child process (see
	// ChildProbe), so that a driver that crashes cannot take the caller
	// down. An error it returns becomes a note, not a failure.
	Probe func(ctx context.Context) ([]GPU, []string, error)
}

// Detect describes the machine. What cannot be detected, including a GPU
// driver that is missing, fails or crashes, becomes a note in
// Machine.Notes; the error is only that of a context that ended.
func Detect(ctx context.Context, opts DetectOptions) (Machine, error) {
	var m Machine
	m.CPU, m.Notes = detectCPU(ctx)
	mem, err := ReadMemory()
	if err != nil {
		m.Notes = append(m.Notes, fmt.Sprintf("the RAM size is unknown (%v)", err))
	} else {
		m.Memory = mem
	}
	if err := ctx.Err(); err != nil {
		return m, fmt.Errorf("hardware: detecting the machine: %w", err)
	}

	if !opts.SkipGPU {
		gpus, notes := probeGPUs(ctx, opts.Probe)
		if err := ctx.Err(); err != nil {
			return m, fmt.Errorf("hardware: detecting the GPUs: %w", err)
		}
		for i := range gpus {
			// Unified memory is the machine's RAM: what is free for the
			// GPU is at most what is available to any program.
			if gpus[i].Unified && m.Memory.Available > 0 {
				gpus[i].Free = min(gpus[i].Free, m.Memory.Available)
			}
		}
		m.GPUs = gpus
		m.Notes = append(m.Notes, notes...)
	}

	if !opts.SkipBandwidth {
		key := bandwidthKey(m.CPU, m.Memory)
		size := bandwidthSize(m.Memory)
		bw, cached, err := cachedBandwidth(ctx, opts.CacheDir, key, time.Now(), func(ctx context.Context) (float64, error) {
			return MeasureBandwidth(ctx, size)
		})
		if err := ctx.Err(); err != nil {
			return m, fmt.Errorf("hardware: measuring the memory bandwidth: %w", err)
		}
		if err != nil {
			m.Notes = append(m.Notes, fmt.Sprintf("the memory bandwidth is unknown (%v)", err))
		} else {
			m.Bandwidth = bw
			slog.Debug("hardware: memory bandwidth", "GB/s", bw/1e9, "cached", cached)
		}
	}
	return m, nil
}

// probeGPUs runs probe, or the default child-process probe, and turns a
// failure into a note.
func probeGPUs(ctx context.Context, probe func(context.Context) ([]GPU, []string, error)) ([]GPU, []string) {
	if probe == nil {
		var note string
		probe, note = defaultProbe()
		if probe == nil {
			return nil, []string{note}
		}
	}
	gpus, notes, err := probe(ctx)
	if err != nil {
		if ctx.Err() == nil {
			slog.Warn("hardware: GPU probe failed", "err", err)
		}
		return nil, append(notes, probeNote(err))
	}
	return gpus, notes
}

// defaultProbe is the child-process probe of this executable, or nil and a
// note where there is none to run.
func defaultProbe() (func(context.Context) ([]GPU, []string, error), string) {
	if os.Getenv(childEnv) != "" {
		// Already inside a probe child: never start another.
		return nil, "GPU detection skipped inside the GPU probe"
	}
	if testing.Testing() {
		// A test binary has no hwprobe command: running it with those
		// arguments would run its tests again.
		return nil, "GPU detection skipped in a test binary (set DetectOptions.Probe)"
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Sprintf("GPU detection skipped: this program's path is unknown (%v)", err)
	}
	return func(ctx context.Context) ([]GPU, []string, error) {
		return ChildProbe(ctx, ProbeTimeout, exe, "hwprobe", "--gpu")
	}, ""
}

// detectCPU describes the processor, with notes for what is unknown.
func detectCPU(ctx context.Context) (CPU, []string) {
	c := CPU{
		Cores:    PhysicalCores(),
		Threads:  runtime.NumCPU(),
		Arch:     runtime.GOARCH,
		Features: cpuFeatures(),
	}
	var notes []string
	model, err := cpuModel(ctx)
	if err != nil {
		notes = append(notes, fmt.Sprintf("the CPU model is unknown (%v)", err))
	}
	c.Model = model
	return c, notes
}
