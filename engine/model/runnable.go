package model

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"saji/engine/gguf"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// Whether Saji can run a file is read off the registries of the code that
// runs it: the architectures registered here, the CPU backend's matrix
// products (cpu.CanMatMul) and the block codecs (quant.Supported). The
// check needs the file's header alone, so Load, Describe (and through it
// engine/fit's reading of a remote header before a download) and the
// library give the same answer, in the same sentence.

// ErrUnsupportedType is wrapped by the error for a tensor whose type Saji
// cannot compute with in the way the model uses it.
var ErrUnsupportedType = errors.New("model: unsupported tensor type")

// RunError says why Saji cannot run a model file: an architecture no
// loader is registered for, or a tensor of a type Saji cannot compute
// with. It wraps ErrUnknownArch or ErrUnsupportedType.
type RunError struct {
	// Reason is one sentence, without the final stop, that names the
	// architecture, key or tensor at fault: `Saji cannot run "gpt-neox"
	// models yet`, "blk.0.ffn_up.weight is IQ2_XXS, a type Saji cannot
	// compute with yet".
	Reason string
	// Err is ErrUnknownArch or ErrUnsupportedType.
	Err error
}

// Error returns the reason, prefixed with the package's name.
func (e *RunError) Error() string { return "model: " + e.Reason }

// Unwrap returns ErrUnknownArch or ErrUnsupportedType.
func (e *RunError) Unwrap() error { return e.Err }

// Runnable says why Saji cannot run the model in f, or returns nil when it
// can. It reads f's metadata and tensor table only, so the header of a
// remote file is enough: the architecture must be registered, every
// tensor's type one that the way the model uses it computes with, and the
// architecture's loader must find the keys and tensors it needs, with the
// shapes it needs (Describe). An architecture or a tensor type Saji cannot
// run is a *RunError.
func Runnable(f *gguf.File) error {
	_, err := Describe(f)
	return err
}

// checkTypes checks every tensor of f against the use the forward pass
// makes of it: a one-dimensional tensor (a norm, a bias, rope factors) is
// read as F32 by element-wise operations; the token embeddings are looked
// up by row (any type with a codec), and multiplied with too when they
// serve as the output head (no output.weight); every other tensor is a
// matrix that multiplies activations.
func checkTypes(f *gguf.File) error {
	_, untied := f.Tensor("output.weight")
	for _, t := range f.Tensors() {
		if err := checkType(t, !untied); err != nil {
			return err
		}
	}
	return nil
}

// checkType checks one tensor (checkTypes); tied says that the token
// embeddings are the output head too.
func checkType(t gguf.TensorInfo, tied bool) error {
	name, typ := printable(t.Name), t.Type
	cannot := func(format string) error {
		return &RunError{Reason: fmt.Sprintf(format, name, typ), Err: ErrUnsupportedType}
	}
	switch {
	case dims(t.Shape) <= 1:
		if typ != quant.TypeF32 {
			return cannot("%s is %v, but Saji reads norms and biases as F32 only")
		}
	case t.Name == "token_embd.weight":
		if !quant.Supported(typ) {
			return cannot("%s is %v, a type Saji cannot read yet")
		}
		if tied && !cpu.CanMatMul(typ) {
			return cannot("%s is %v, a type Saji cannot compute the output with yet")
		}
	case !cpu.CanMatMul(typ):
		return cannot("%s is %v, a type Saji cannot compute with yet")
	}
	return nil
}

// dims returns the number of dimensions of shape, ignoring trailing 1s.
func dims(shape []int64) int {
	n := len(shape)
	for n > 0 && shape[n-1] == 1 {
		n--
	}
	return n
}

// printable returns s, quoted when it holds characters that do not print
// (a hostile file's names go into messages).
func printable(s string) string {
	if strings.IndexFunc(s, func(r rune) bool { return !unicode.IsPrint(r) }) >= 0 {
		return strconv.Quote(s)
	}
	return s
}

// unknownArch is the error for an architecture no loader is registered
// for, or a file that names none.
func unknownArch(arch string, err error) error {
	if err != nil {
		if !errors.Is(err, gguf.ErrNotFound) {
			return fmt.Errorf("model: %w", err)
		}
		return &RunError{Reason: "the file has no general.architecture, so Saji cannot tell which model it holds", Err: ErrUnknownArch}
	}
	return &RunError{Reason: fmt.Sprintf("Saji cannot run %q models yet (it runs %s)", arch, strings.Join(Architectures(), ", ")),
		Err: ErrUnknownArch}
}
