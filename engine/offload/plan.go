package offload

import (
	"fmt"
	"math"

	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/scheduler"
)

// Auto is the GPULayers value that offloads as many layers as fit.
const Auto = -1

// Headroom is the device memory an automatic plan leaves free: the
// driver's and the kernels' own buffers, and a margin for the planner's
// estimates, as llama.cpp's automatic fitting leaves about a gibibyte.
const Headroom = 512 << 20

// Request says how many layers to offload and how the model will be
// served, which sizes the KV cache that goes with the offloaded layers.
type Request struct {
	// GPULayers is the number of layers to put on the GPU: Auto (-1, or
	// any negative number) as many as fit, 0 none, N the last N (all of
	// them, with the embeddings and the output head, from the model's
	// layer count on).
	GPULayers int
	// Context is the longest sequence in tokens (0: the scheduler's
	// default, 4096 or the training context when shorter).
	Context int
	// KVType is the KV cache's element type ("f16" for "").
	KVType string
	// Parallel is the number of sequences the KV cache holds in full: 1
	// for one conversation's contiguous cache, 0 for the scheduler's
	// default pool.
	Parallel int
	// KVBytes, when above 0, is the KV pool's memory budget (the
	// scheduler's Config.KVBytes); it takes the place of Parallel.
	KVBytes int64
}

// ServeRequest is the request for a model served by a scheduler with cfg:
// the planner sizes the same KV pool as the scheduler.
func ServeRequest(gpuLayers int, cfg scheduler.Config) Request {
	r := Request{GPULayers: gpuLayers, Context: cfg.Context, KVType: cfg.KVType, KVBytes: max(0, cfg.KVBytes)}
	if r.KVBytes == 0 && cfg.MaxSeqs > 0 && cfg.MaxSeqs != scheduler.DefaultMaxSeqs {
		// The scheduler's pool for a zero budget: four full contexts,
		// or MaxSeqs quarter contexts when that is more.
		r.Parallel = max(4, (cfg.MaxSeqs+3)/4)
	}
	return r
}

// DeviceMemory is what a plan needs to know of the GPU.
type DeviceMemory struct {
	// Name is the device's name ("cuda:0").
	Name string
	// Free and Total are its memory in bytes.
	Free, Total uint64
	// Unified is set when it works in the machine's RAM.
	Unified bool
}

// Split is where a model's layers go.
type Split struct {
	// Layers is the number of layers on the GPU: the last Layers of Of.
	Layers, Of int
	// Output is set when the embeddings and the output head go to the
	// GPU too: when all the layers do, and (automatic plans) the head
	// fits with them.
	Output bool
	// Note says, in plain words, why fewer layers than asked are on the
	// GPU ("" when the request is met).
	Note string
}

// Plan decides how many of the model's layers go to the GPU dev for req.
// An automatic request asks engine/fit's planner how many layers, with
// their share of the KV cache and the step's buffers, fit in the device's
// free memory less Headroom; a number is taken as it is, up to the
// model's layer count.
func Plan(shape fit.ModelShape, dev DeviceMemory, req Request) (Split, error) {
	layers := shape.Layers
	s := Split{Of: layers}
	if layers <= 0 {
		return s, fmt.Errorf("offload: the model has %d layers", layers)
	}
	switch {
	case req.GPULayers == 0:
		return s, nil
	case req.GPULayers > 0:
		s.Layers = min(req.GPULayers, layers)
		s.Output = s.Layers == layers
		return s, nil
	}
	freeText := gbText(dev.Free)
	if dev.Free <= Headroom {
		s.Note = fmt.Sprintf("only %s is free on %s", freeText, dev.Name)
		return s, nil
	}
	fr, err := fitRequest(shape, req)
	if err != nil {
		return s, err
	}
	// The planner's RAM check is not this decision: the layers that stay
	// behind load whether or not the RAM holds them comfortably.
	machine := hardware.Machine{
		CPU:    hardware.CPU{Threads: 1},
		Memory: hardware.Memory{Total: math.MaxInt64, Available: math.MaxInt64},
		GPUs: []hardware.GPU{{Name: dev.Name, Total: dev.Total, Free: dev.Free - Headroom,
			Unified: dev.Unified}},
	}
	p, err := fit.PlanFor(shape, machine, fr)
	if err != nil {
		return s, fmt.Errorf("offload: %w", err)
	}
	switch p.Verdict.Kind {
	case fit.FullGPU:
		s.Layers, s.Output = layers, true
	case fit.PartialGPU:
		s.Layers = min(p.Verdict.GPULayers, layers)
		s.Note = fmt.Sprintf("%d of the %d layers fit in the %s free on %s", s.Layers, layers, freeText, dev.Name)
		if s.Layers == layers {
			s.Note = fmt.Sprintf("the output head does not fit in the %s free on %s with the layers", freeText, dev.Name)
		}
	default:
		if dev.Unified {
			s.Note = fmt.Sprintf("the model needs more than the %s %s can use", freeText, dev.Name)
		} else {
			s.Note = fmt.Sprintf("not one layer fits in the %s free on %s", freeText, dev.Name)
		}
	}
	return s, nil
}

// fitRequest is req for the planner: a KV budget becomes the number of
// full contexts it holds.
func fitRequest(shape fit.ModelShape, req Request) (fit.Request, error) {
	fr := fit.Request{Context: req.Context, KVType: req.KVType, Parallel: max(0, req.Parallel), GPULayers: Auto}
	if req.KVBytes <= 0 {
		return fr, nil
	}
	cells, err := shape.KVCellBytes(req.KVType)
	if err != nil {
		return fr, fmt.Errorf("offload: %w", err)
	}
	var perToken int64
	for _, c := range cells {
		perToken += c
	}
	ctx := req.Context
	if ctx <= 0 {
		ctx = scheduler.DefaultContext
		if shape.ContextTrain > 0 {
			ctx = min(ctx, shape.ContextTrain)
		}
	}
	if perToken > 0 {
		perContext := perToken * int64(ctx)
		fr.Parallel = int(max(1, (req.KVBytes+perContext-1)/perContext))
	}
	return fr, nil
}

// gbText writes bytes in gigabytes, or megabytes below one.
func gbText(n uint64) string {
	if n < 1e9 {
		return fmt.Sprintf("%d MB", n/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
