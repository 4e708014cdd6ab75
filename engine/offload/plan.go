package offload

import (
	"fmt"
	"math"

	"saji/engine/fit"
	"saji/engine/hardware"
	"saji/engine/scheduler"
	"saji/engine/units"
)

// Auto is the GPULayers value that offloads as many layers as fit.
const Auto = -1

// Headroom is the device memory an automatic plan leaves free: the
// driver's and the kernels' own buffers, and a margin for the planner's
// estimates, as llama.cpp's automatic fitting leaves about a gibibyte.
const Headroom = 512 << 20

// Request says how many layers to offload (GPULayers: Auto, or any
// negative number, as many as fit; 0 none; N the last N, all of them with
// the embeddings and the output head from the model's layer count on) and
// how the model will be served, which sizes the KV cache that goes with the
// offloaded layers: the planner's request, whose owner is engine/fit.
type Request = fit.Request

// ServeRequest is the request for a model served by a scheduler with cfg:
// the planner sizes the same KV pool as the scheduler.
func ServeRequest(gpuLayers int, cfg scheduler.Config) Request {
	return fit.SchedulerRequest(cfg, gpuLayers)
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
	freeText := units.Bytes(int64(min(dev.Free, math.MaxInt64)))
	if dev.Free <= Headroom {
		s.Note = fmt.Sprintf("only %s is free on %s", freeText, dev.Name)
		return s, nil
	}
	fr := fitRequest(req)
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

// fitRequest is req as the planner chooses the split with it: every layer
// a candidate, the KV budget in bytes as it is.
func fitRequest(req Request) fit.Request {
	req.GPULayers, req.Parallel, req.KVBytes, req.MaxSeqs = Auto, max(0, req.Parallel), max(0, req.KVBytes), max(0, req.MaxSeqs)
	return req
}
