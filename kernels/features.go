package kernels

import (
	"errors"
	"fmt"
	"strings"
)

// Features are the parts of the Backend contract that not every backend
// implements. A backend that lacks some implements Partial; the others
// have them all.
type Features uint

// The optional features.
const (
	// FeatureYaRN is YaRN rope scaling (RopeParams.YaRN).
	FeatureYaRN Features = 1 << iota
	// FeatureSinks is attention sinks (AttentionParams.Sinks).
	FeatureSinks
	// FeatureSwiGLUOAI is the SwiGLUOAI activation of GLU.
	FeatureSwiGLUOAI
)

// featureNames names each feature, in the order of the constants.
var featureNames = []string{"YaRN rope scaling", "attention sinks", "the swiglu_oai activation"}

// String names the features of f, joined by commas.
func (f Features) String() string {
	var names []string
	for i, n := range featureNames {
		if f&(1<<i) != 0 {
			names = append(names, n)
		}
	}
	return strings.Join(names, ", ")
}

// ErrUnsupported is wrapped by the errors for operations that need a
// feature the backend lacks.
var ErrUnsupported = errors.New("not supported by this backend")

// Partial is implemented by backends that lack some of the Features.
type Partial interface {
	// Lacks returns the features the backend does not implement.
	Lacks() Features
}

// Require returns an error naming the features of need that b lacks, so
// that a model refuses a backend at load rather than at its first step.
func Require(b Backend, need Features) error {
	pb, ok := b.(Partial)
	if !ok {
		return nil
	}
	return CheckFeatures(b.Name(), need, pb.Lacks())
}

// CheckFeatures returns an error naming the features of need in lacks
// (op names the operation or the backend).
func CheckFeatures(op string, need, lacks Features) error {
	if miss := need & lacks; miss != 0 {
		return fmt.Errorf("%s: %v: %w", op, miss, ErrUnsupported)
	}
	return nil
}

// Needs returns the optional features rope with p needs.
func (p RopeParams) Needs() Features {
	if p.YaRN.ExtFactor != 0 || (p.YaRN.AttnFactor != 0 && p.YaRN.AttnFactor != 1) {
		return FeatureYaRN
	}
	return 0
}

// Needs returns the optional features attention with p needs.
func (p AttentionParams) Needs() Features {
	if p.Sinks != nil {
		return FeatureSinks
	}
	return 0
}

// Needs returns the optional features GLU with act needs.
func (act Activation) Needs() Features {
	if act == SwiGLUOAI {
		return FeatureSwiGLUOAI
	}
	return 0
}
