package kernels

import (
	"errors"
	"testing"
)

func TestFeatures(t *testing.T) {
	for _, c := range []struct {
		name        string
		need, lacks Features
		want        string // "" for no error
	}{
		{"none needed", 0, FeatureYaRN | FeatureSinks, ""},
		{"had", FeatureSwiGLUOAI, FeatureYaRN, ""},
		{"one lacked", FeatureSinks, FeatureSinks | FeatureYaRN, "op: attention sinks: not supported by this backend"},
		{"two lacked", FeatureYaRN | FeatureSwiGLUOAI, FeatureYaRN | FeatureSwiGLUOAI,
			"op: YaRN rope scaling, the swiglu_oai activation: not supported by this backend"},
	} {
		err := CheckFeatures("op", c.need, c.lacks)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || err.Error() != c.want || !errors.Is(err, ErrUnsupported)):
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		got  Features
		want Features
	}{
		{"plain rope", RopeParams{FreqScale: 0.5}.Needs(), 0},
		{"yarn", RopeParams{YaRN: YaRN{ExtFactor: 1}}.Needs(), FeatureYaRN},
		{"attn factor", RopeParams{YaRN: YaRN{AttnFactor: 0.5}}.Needs(), FeatureYaRN},
		{"attn factor 1", RopeParams{YaRN: YaRN{AttnFactor: 1}}.Needs(), 0},
		{"sinks", AttentionParams{Sinks: []float32{}}.Needs(), FeatureSinks},
		{"no sinks", AttentionParams{}.Needs(), 0},
		{"swiglu_oai", SwiGLUOAI.Needs(), FeatureSwiGLUOAI},
		{"silu", SiLU.Needs(), 0},
	} {
		if c.got != c.want {
			t.Errorf("%s: needs %v, want %v", c.name, c.got, c.want)
		}
	}
}

// partialBackend is a backend that lacks some features.
type partialBackend struct {
	Backend
	lacks Features
}

func (partialBackend) Name() string      { return "partial" }
func (p partialBackend) Lacks() Features { return p.lacks }

func TestRequire(t *testing.T) {
	b := partialBackend{lacks: FeatureSinks}
	if err := Require(b, FeatureYaRN); err != nil {
		t.Errorf("a feature the backend has: %v", err)
	}
	if err := Require(b, FeatureYaRN|FeatureSinks); err == nil || err.Error() != "partial: attention sinks: not supported by this backend" {
		t.Errorf("a feature the backend lacks: %v", err)
	}
	if err := Require(struct{ Backend }{}, FeatureSinks); err != nil {
		t.Errorf("a backend without Lacks has every feature: %v", err)
	}
}
