package synth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"strings"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// Recipe is how a synthetic reference model is written, as the reference
// figures in the project's testdata/ref record it: the writer is seeded and
// deterministic, so the recipe rewrites the very file that llama.cpp's
// figures came from.
type Recipe struct {
	// Shape is a shape name (LookupShape).
	Shape string `json:"shape"`
	// Type is the file type (ParseFileType), such as "q8_0", or "pure-"
	// and a tensor type, such as "pure-iq2_xxs": every matrix of that
	// type (Options.Pure).
	Type string `json:"type"`
	// Seed selects the random weights.
	Seed uint64 `json:"seed"`
	// Vocab is the vocabulary file, a path inside the shared testdata
	// such as "vocab/tok512-spm.vocab.gguf"; "" is the mini vocabulary
	// with the vision markers a vision shape needs (WriteVisionModel's),
	// which Write makes itself.
	Vocab string `json:"vocab"`
}

// Name is the model's name: SHAPE-TYPE.
func (r Recipe) Name() string { return r.Shape + "-" + r.Type }

// Write writes the recipe's model to path, taking the vocabulary from the
// file vocab (r.Vocab resolved by the caller; not read when r.Vocab is
// ""), and returns the file's sha256 (hex) and size.
func (r Recipe) Write(ctx context.Context, vocab, path string) (sum string, size int64, err error) {
	shape, err := LookupShape(r.Shape)
	if err != nil {
		return "", 0, err
	}
	opts := Options{Shape: shape, Seed: r.Seed}
	if name, ok := strings.CutPrefix(r.Type, "pure-"); ok {
		if opts.Pure, err = quant.ParseType(name); err != nil {
			return "", 0, fmt.Errorf("synth: %w", err)
		}
		opts.FileType = pureFileType(opts.Pure)
	} else if opts.FileType, err = ParseFileType(r.Type); err != nil {
		return "", 0, err
	}
	var v *gguf.File
	if r.Vocab == "" {
		v, err = visionVocab(ctx, r.Shape, "")
	} else {
		v, err = gguf.Open(vocab)
	}
	if err != nil {
		return "", 0, fmt.Errorf("synth: vocabulary: %w", err)
	}
	defer v.Close()
	opts.Vocab = v
	if err := Write(ctx, path, opts); err != nil {
		return "", 0, err
	}
	f, err := os.Open(path)
	if err != nil {
		return "", 0, fmt.Errorf("synth: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	if size, err = io.Copy(h, f); err != nil {
		return "", 0, fmt.Errorf("synth: %w", err)
	}
	return hex.EncodeToString(h.Sum(nil)), size, nil
}

// pureFileType returns the general.file_type of a file whose matrices are
// all of type t: the file type of the same name (IQ2_XXS for IQ2_XXS), or
// ALL_F32 where there is none.
func pureFileType(t quant.Type) gguf.FileType {
	for ft := range gguf.FileType(64) {
		if ft.String() == t.String() {
			return ft
		}
	}
	return gguf.FileTypeAllF32
}
