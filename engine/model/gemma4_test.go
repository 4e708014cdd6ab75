package model

import (
	"context"
	"slices"
	"strings"
	"testing"

	"saji/kernels"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// TestGemma4KVGroups checks that tiny-gemma4's layers that share caches
// take no memory, and that each group has its layers' row lengths: the
// sliding layers two KV heads of 64, the global ones one of 128, each
// shared layer reading the last earlier layer of its kind.
func TestGemma4KVGroups(t *testing.T) {
	f := writeSynth(t, "tiny-gemma4", "q8_0", 1)
	d, err := Describe(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []KVGroup{
		{Window: 16, Layers: []int{0, 1}, KDim: 128, VDim: 128},
		{Window: 0, Layers: []int{2}, KDim: 128, VDim: 128},
	}
	if !slices.EqualFunc(d.KVGroups, want, func(a, b KVGroup) bool {
		return a.Window == b.Window && slices.Equal(a.Layers, b.Layers) && a.KDim == b.KDim && a.VDim == b.VDim
	}) {
		t.Errorf("KV groups %+v, want %+v", d.KVGroups, want)
	}
	if got, want := d.KVGroups[0].CellBytes(quant.TypeF16), 2*2*128*2; got != want {
		t.Errorf("sliding group: %d bytes a cell, want %d", got, want)
	}
	if want := []int{16, 16, 0, 16, 16, 0}; !slices.Equal(d.Windows, want) {
		t.Errorf("windows %v, want %v", d.Windows, want)
	}
	m, err := Load(context.Background(), f, Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	g := m.(runner).arch.(*gemma4)
	if want := []int{0, 1, 2, 1, 1, 2}; !slices.Equal(g.kvFrom, want) {
		t.Errorf("layers read the caches of %v, want %v", g.kvFrom, want)
	}
	c, err := m.NewPagedCache([]int{8, 8}, 1, quant.TypeF16)
	if err != nil {
		t.Fatal(err)
	}
	for i, src := range g.kvFrom {
		if c.k[i] != c.k[src] || c.group[i] != c.group[src] {
			t.Errorf("layer %d does not share the cells of layer %d", i, src)
		}
	}
}

// TestGemma4MoEConfig checks what Describe says of tiny-gemma4moe: the
// experts' length as FFN, the dense network beside them as the shared
// expert, and no layer sharing a cache.
func TestGemma4MoEConfig(t *testing.T) {
	d, err := Describe(writeSynth(t, "tiny-gemma4moe", "q8_0", 1))
	if err != nil {
		t.Fatal(err)
	}
	if d.Experts != 4 || d.ExpertsUsed != 2 || d.FFN != 256 || d.SharedFFN != 512 {
		t.Errorf("experts %d, used %d, FFN %d, shared %d; want 4, 2, 256, 512", d.Experts, d.ExpertsUsed, d.FFN, d.SharedFFN)
	}
	var layers []int
	for _, g := range d.KVGroups {
		layers = append(layers, g.Layers...)
	}
	if len(layers) != d.Layers {
		t.Errorf("KV groups hold layers %v of %d", layers, d.Layers)
	}
}

// TestGemma4SplitDevices checks that a layer and the layer whose cache it
// reads must share a backend: split between two, the load fails with the
// reason; together on the second, the model loads and runs.
func TestGemma4SplitDevices(t *testing.T) {
	f := writeSynth(t, "tiny-gemma4", "q8_0", 1)
	o := cpu.New(1)
	_, err := Load(context.Background(), f, Options{Backend: cpu.New(1), LayerBackends: []kernels.Backend{nil, nil, nil, o, o, o}})
	if err == nil || !strings.Contains(err.Error(), "another device") {
		t.Errorf("layers 3-5 apart from 1 and 2: %v, want an error", err)
	}
	m, err := Load(context.Background(), f, Options{Backend: cpu.New(1), LayerBackends: []kernels.Backend{nil, o, o, o, o, o}})
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.NewCache(8, quant.TypeF32)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Forward(context.Background(), []int32{1, 2, 3}, []int32{0, 1, 2}, c, false); err != nil {
		t.Fatal(err)
	}
}
