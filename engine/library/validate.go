package library

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"saji/engine/gguf"
	"saji/engine/model"
)

// Sentinel errors wrapped by Validate (and so by Import) for files Saji
// cannot load.
var (
	// ErrNotGGUF: the file does not start with the GGUF magic.
	ErrNotGGUF = errors.New("library: not a GGUF file")
	// ErrTruncated: the file is shorter than its own header says, as a
	// partial download or copy is.
	ErrTruncated = errors.New("library: truncated GGUF file")
	// ErrMalformed: the file is a GGUF file whose contents are invalid
	// for some reason other than truncation.
	ErrMalformed = errors.New("library: malformed GGUF file")
	// ErrUnsupportedArch: the model's architecture is not one Saji runs.
	ErrUnsupportedArch = errors.New("library: unsupported model architecture")
)

// ggufMagic opens every GGUF file.
var ggufMagic = []byte("GGUF")

// Validate opens path with engine/gguf, reading its header but no
// weights, and checks that it is a model Saji can load (model.Runnable).
// The returned entry describes the file (Name is its base name without the
// extension); the error wraps ErrNotGGUF, ErrTruncated, ErrMalformed or
// ErrUnsupportedArch when the file is unusable for that reason, a
// *model.RunError for a tensor type Saji cannot compute with, or the
// model's error for a key or tensor its architecture lacks.
func Validate(path string) (Entry, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Entry{}, fmt.Errorf("library: %w", err)
	}
	st, err := os.Stat(abs)
	if err != nil {
		return Entry{}, fmt.Errorf("library: %w", err)
	}
	if !st.Mode().IsRegular() {
		return Entry{}, fmt.Errorf("library: %s is not a regular file", abs)
	}
	if err := checkMagic(abs); err != nil {
		return Entry{}, err
	}
	f, err := gguf.Open(abs)
	if err != nil {
		return Entry{}, classify(abs, err)
	}
	sum := f.Summary()
	runErr := model.Runnable(f)
	_ = f.Close()
	e := Entry{
		Name:          modelName(abs),
		Path:          abs,
		Size:          sum.FileSize,
		Modified:      st.ModTime(),
		Arch:          sum.Architecture,
		Parameters:    sum.Parameters,
		ContextLength: int(min(sum.ContextLength, uint64(1<<31-1))),
		Shards:        sum.Shards,
	}
	if sum.HasFileType {
		e.FileType = sum.FileType.String()
	}
	switch {
	case errors.Is(runErr, model.ErrUnknownArch):
		return e, &ArchError{Path: abs, Arch: e.Arch, Supported: model.Architectures()}
	case runErr != nil:
		return e, fmt.Errorf("library: %s: %w", abs, runErr)
	}
	return e, nil
}

// ArchError is Validate's error for a model whose architecture Saji does
// not run, so a caller can name the architecture without reading the
// message. It wraps ErrUnsupportedArch.
type ArchError struct {
	// Path is the model file.
	Path string
	// Arch is the file's general.architecture ("" when it has none).
	Arch string
	// Supported lists the architectures Saji runs.
	Supported []string
}

// Error describes the file, its architecture and the ones Saji runs.
func (e *ArchError) Error() string {
	if e.Arch == "" {
		return fmt.Sprintf("%v: %s has no general.architecture", ErrUnsupportedArch, e.Path)
	}
	return fmt.Sprintf("%v: %s is a %q model; Saji runs %s", ErrUnsupportedArch, e.Path, e.Arch, strings.Join(e.Supported, ", "))
}

// Unwrap returns ErrUnsupportedArch.
func (e *ArchError) Unwrap() error { return ErrUnsupportedArch }

// checkMagic fails with ErrNotGGUF unless the file starts with the GGUF
// magic.
func checkMagic(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	defer f.Close()
	var b [4]byte
	if _, err := io.ReadFull(f, b[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return fmt.Errorf("%w: %s is too short", ErrNotGGUF, path)
		}
		return fmt.Errorf("library: %w", err)
	}
	if !bytes.Equal(b[:], ggufMagic) {
		return fmt.Errorf("%w: %s does not start with the GGUF magic", ErrNotGGUF, path)
	}
	return nil
}

// classify wraps an error of gguf.Open with the matching sentinel.
func classify(path string, err error) error {
	if errors.Is(err, gguf.ErrTruncated) {
		return fmt.Errorf("%w: %s (a partial download or copy?): %w", ErrTruncated, path, err)
	}
	if errors.Is(err, gguf.ErrFormat) {
		return fmt.Errorf("%w: %w", ErrMalformed, err)
	}
	return fmt.Errorf("library: %w", err)
}

// modelName is the library name of a file: its base name without the
// .gguf extension.
func modelName(path string) string {
	base := filepath.Base(path)
	if ext := filepath.Ext(base); strings.EqualFold(ext, ".gguf") {
		base = base[:len(base)-len(ext)]
	}
	return base
}
