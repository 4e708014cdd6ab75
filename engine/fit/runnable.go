package fit

import (
	"fmt"
	"strings"

	"saji/engine/gguf"
	"saji/engine/model"
	"saji/engine/quantize"
	"saji/kernels/cpu"
	"saji/kernels/quant"
)

// LevelRunnable says why Saji cannot run the files of a quantization level
// it knows by name only ("IQ2_XXS", "Q4_K_M", "UD-IQ1_S": a hub level
// before its header is read), or returns nil. The name stands for the
// tensor type most of the level's weights have (levelType), which the CPU
// backend must multiply with (cpu.CanMatMul, the registry model.Runnable
// asks of a header). A name that implies no type is given the benefit of
// the doubt: the header, read before a download, decides. The error is a
// *model.RunError.
func LevelRunnable(level string) error {
	t, ok := levelType(level)
	if !ok || cpu.CanMatMul(t) {
		return nil
	}
	return &model.RunError{Reason: fmt.Sprintf("%s files are mostly %v, a type Saji cannot compute with yet", level, t),
		Err: model.ErrUnsupportedType}
}

// maxFileType bounds llama.cpp's file type numbers (llama_ftype).
const maxFileType = 64

// levelType returns the tensor type most weights of a level's files have,
// and whether the name says: llama-quantize's default type for the file
// type of that name (quantize.DefaultType), else the type of that name
// (MXFP4, IQ2_XXS). The IQ mixes llama-quantize names after their size
// (IQ3_M, IQ3_XS, IQ2_M) are mostly the _S type of their family when
// quantize does not know them yet (llama_model_quantize_impl's default
// types). Unsloth's "UD-" prefix is dropped.
func levelType(level string) (quant.Type, bool) {
	name := strings.ToUpper(level)
	name = strings.TrimPrefix(name, "UD-")
	for ft := range gguf.FileType(maxFileType) {
		if ft.Known() && ft.String() == name {
			if t, err := quantize.DefaultType(ft); err == nil {
				return t, true
			}
		}
	}
	if t, err := quant.ParseType(name); err == nil {
		return t, true
	}
	if strings.HasPrefix(name, "IQ") {
		for _, size := range []string{"_M", "_XS"} {
			if base, ok := strings.CutSuffix(name, size); ok {
				if t, err := quant.ParseType(base + "_S"); err == nil {
					return t, true
				}
			}
		}
	}
	return 0, false
}
