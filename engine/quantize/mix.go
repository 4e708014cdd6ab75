package quantize

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"saji/engine/gguf"
	"saji/kernels/quant"
)

// This file holds llama-quantize's per-tensor type selection
// (llama_tensor_get_type in llama.cpp's src/llama-quant.cpp), restated for
// the file types whose block formats Saji can write. Quantize converts a
// model with it, and package synth types its synthetic models with it.

// Mix chooses the type of each tensor of a model quantized to a file type,
// as llama-quantize does (with an importance matrix when Imatrix is set):
// the file type's default type for most matrices, more bits for the
// sensitive ones (the output, attn_v and ffn_down on some layers), a
// fallback where a row does not divide into the type's blocks, and 1-D
// tensors and norms left as they are.
//
// Left out: the attn_v bump llama.cpp gives only to models it classifies as
// 70B, and llama-quantize's per-tensor overrides (--token-embedding-type,
// --output-tensor-type, --tensor-type, --pure).
type Mix struct {
	// FileType is the target (general.file_type).
	FileType gguf.FileType
	// Arch is general.architecture; Falcon has rules of its own.
	Arch string
	// Layers is the number of blocks (n_layer).
	Layers int
	// GQA is the number of query heads per key/value head (n_gqa).
	GQA int
	// Experts is the number of experts of a mixture-of-experts model (0 or
	// 1 for a dense one).
	Experts int
	// Tied reports that the model has no output.weight: token_embd.weight
	// is also the output matrix and is typed like it.
	Tied bool
	// Imatrix reports that the model is quantized with an importance
	// matrix, which changes some rules (llama.cpp's has_imatrix).
	Imatrix bool
}

// mixFileTypes are the file types Mix handles: every type they can choose
// has a block format in kernels/quant.
var mixFileTypes = []gguf.FileType{
	gguf.FileTypeAllF32, gguf.FileTypeMostlyF16, gguf.FileTypeMostlyBF16,
	gguf.FileTypeMostlyQ4_0, gguf.FileTypeMostlyQ4_1, gguf.FileTypeMostlyQ5_0,
	gguf.FileTypeMostlyQ5_1, gguf.FileTypeMostlyQ8_0,
	gguf.FileTypeMostlyQ2_K, gguf.FileTypeMostlyQ2_K_S,
	gguf.FileTypeMostlyQ3_K_S, gguf.FileTypeMostlyQ3_K_M, gguf.FileTypeMostlyQ3_K_L,
	gguf.FileTypeMostlyQ4_K_S, gguf.FileTypeMostlyQ4_K_M,
	gguf.FileTypeMostlyQ5_K_S, gguf.FileTypeMostlyQ5_K_M, gguf.FileTypeMostlyQ6_K,
	gguf.FileTypeMostlyIQ4NL, gguf.FileTypeMostlyIQ3S, gguf.FileTypeMostlyIQ3M,
	gguf.FileTypeMostlyIQ4XS,
	gguf.FileTypeMostlyTQ1_0, gguf.FileTypeMostlyTQ2_0, gguf.FileTypeMostlyMXFP4,
	gguf.FileTypeMostlyIQ3XS, gguf.FileTypeMostlyIQ3XXS, gguf.FileTypeMostlyIQ2M,
	gguf.FileTypeMostlyIQ2S, gguf.FileTypeMostlyIQ2XS, gguf.FileTypeMostlyIQ2XXS,
	gguf.FileTypeMostlyIQ1M, gguf.FileTypeMostlyIQ1S,
}

// MixFileTypes returns the file types Mix handles, in llama.cpp's order.
func MixFileTypes() []gguf.FileType { return slices.Clone(mixFileTypes) }

// ParseMixFileType reads a llama-quantize type name such as "q4_k_m",
// "Q8_0" or "f16" (case-insensitive) and checks that Mix handles it. It
// accepts more than ParseFileType: the types Mix handles but Quantize does
// not write (Q2_K_S needs an importance matrix).
func ParseMixFileType(s string) (gguf.FileType, error) {
	return parseFileType(s, mixFileTypes, "unknown or unsupported file type")
}

// parseFileType returns the file type of types called s
// (case-insensitive), or an error that says what s is not (what) and
// names the choices.
func parseFileType(s string, types []gguf.FileType, what string) (gguf.FileType, error) {
	for _, ft := range types {
		if strings.EqualFold(ft.String(), s) {
			return ft, nil
		}
	}
	names := make([]string, len(types))
	for i, ft := range types {
		names[i] = ft.String()
	}
	return 0, fmt.Errorf("quantize: %s %q (one of %s)", what, s, strings.Join(names, ", "))
}

// DefaultType returns the tensor type a file type stands for
// (llama_ftype_get_default_type).
func DefaultType(ft gguf.FileType) (quant.Type, error) {
	switch ft {
	case gguf.FileTypeAllF32:
		return quant.TypeF32, nil
	case gguf.FileTypeMostlyF16:
		return quant.TypeF16, nil
	case gguf.FileTypeMostlyBF16:
		return quant.TypeBF16, nil
	case gguf.FileTypeMostlyQ4_0:
		return quant.TypeQ4_0, nil
	case gguf.FileTypeMostlyQ4_1:
		return quant.TypeQ4_1, nil
	case gguf.FileTypeMostlyQ5_0:
		return quant.TypeQ5_0, nil
	case gguf.FileTypeMostlyQ5_1:
		return quant.TypeQ5_1, nil
	case gguf.FileTypeMostlyQ8_0:
		return quant.TypeQ8_0, nil
	case gguf.FileTypeMostlyQ2_K, gguf.FileTypeMostlyQ2_K_S:
		return quant.TypeQ2_K, nil
	case gguf.FileTypeMostlyQ3_K_S, gguf.FileTypeMostlyQ3_K_M, gguf.FileTypeMostlyQ3_K_L:
		return quant.TypeQ3_K, nil
	case gguf.FileTypeMostlyQ4_K_S, gguf.FileTypeMostlyQ4_K_M:
		return quant.TypeQ4_K, nil
	case gguf.FileTypeMostlyQ5_K_S, gguf.FileTypeMostlyQ5_K_M:
		return quant.TypeQ5_K, nil
	case gguf.FileTypeMostlyQ6_K:
		return quant.TypeQ6_K, nil
	case gguf.FileTypeMostlyIQ4NL:
		return quant.TypeIQ4_NL, nil
	case gguf.FileTypeMostlyIQ4XS:
		return quant.TypeIQ4_XS, nil
	case gguf.FileTypeMostlyTQ1_0:
		return quant.TypeTQ1_0, nil
	case gguf.FileTypeMostlyTQ2_0:
		return quant.TypeTQ2_0, nil
	case gguf.FileTypeMostlyMXFP4:
		return quant.TypeMXFP4, nil
	case gguf.FileTypeMostlyIQ3S, gguf.FileTypeMostlyIQ3M, gguf.FileTypeMostlyIQ3XS:
		return quant.TypeIQ3_S, nil
	case gguf.FileTypeMostlyIQ2XXS:
		return quant.TypeIQ2_XXS, nil
	case gguf.FileTypeMostlyIQ2XS, gguf.FileTypeMostlyIQ2S:
		return quant.TypeIQ2_XS, nil
	case gguf.FileTypeMostlyIQ2M:
		return quant.TypeIQ2_S, nil
	case gguf.FileTypeMostlyIQ3XXS:
		return quant.TypeIQ3_XXS, nil
	case gguf.FileTypeMostlyIQ1S:
		return quant.TypeIQ1_S, nil
	case gguf.FileTypeMostlyIQ1M:
		return quant.TypeIQ1_M, nil
	}
	return 0, fmt.Errorf("quantize: file type %s is not supported", ft)
}

// category is llama-quantize's broad role of a tensor.
type category int

const (
	catOther category = iota
	catOutput
	catTokenEmbd
	catAttnQKV
	catAttnKVB
	catAttnV
	catAttnK
	catAttnQ
	catAttnOutput
	catFFNUp
	catFFNGate
	catFFNDown
)

// categorize finds a tensor's role from its name, first match winning.
func categorize(name string) category {
	switch {
	case name == "output.weight":
		return catOutput
	case name == "token_embd.weight" || name == "per_layer_token_embd.weight":
		return catTokenEmbd
	case strings.Contains(name, "attn_qkv.weight"):
		return catAttnQKV
	case strings.Contains(name, "attn_kv_b.weight"):
		return catAttnKVB
	case strings.Contains(name, "attn_v.weight"):
		return catAttnV
	case strings.Contains(name, "attn_k.weight"):
		return catAttnK
	case strings.Contains(name, "attn_q.weight"):
		return catAttnQ
	case strings.Contains(name, "attn_output.weight"):
		return catAttnOutput
	case strings.Contains(name, "ffn_up"):
		return catFFNUp
	case strings.Contains(name, "ffn_gate"):
		return catFFNGate
	case strings.Contains(name, "ffn_down"):
		return catFFNDown
	}
	return catOther
}

// keepAsIs lists name fragments of tensors llama-quantize never quantizes
// (besides 1-D tensors and names not ending in "weight").
var keepAsIs = []string{
	"_norm.weight", "ffn_gate_inp.weight", "ffn_gate_tid2eid.weight", "altup", "laurel",
	"per_layer_model_proj", "ssm_conv1d", "shortconv.conv.weight", "attn_rel_b.weight",
	"indexer.k_proj.weight", "indexer.q_proj.weight", "time_mix_first.weight",
	"time_mix_w0.weight", "time_mix_w1.weight", "time_mix_w2.weight", "time_mix_v0.weight",
	"time_mix_v1.weight", "time_mix_v2.weight", "time_mix_a0.weight", "time_mix_a1.weight",
	"time_mix_a2.weight", "time_mix_g1.weight", "time_mix_g2.weight",
	"time_mix_decay_w1.weight", "time_mix_decay_w2.weight", "time_mix_lerp_fused.weight",
	".position_embd", "sam.pos_embd", "sam.neck.", "sam.net_", ".rel_pos", ".patch_embd",
	".patch_merger", "a.rvq.codebook", "mm.a.code_embd",
}

// quantizable reports whether llama-quantize would convert the tensor at
// all (tensor_allows_quantization).
func quantizable(name string, shape []int64) bool {
	if nDims(shape) < 2 || !strings.HasSuffix(name, "weight") {
		return false
	}
	if name == "position_embd.weight" || name == "token_types.weight" {
		return false
	}
	for _, s := range keepAsIs {
		if strings.Contains(name, s) {
			return false
		}
	}
	return true
}

// nDims is ggml_n_dims: the number of dimensions up to the last that is
// not 1 (at least 1).
func nDims(shape []int64) int {
	n := 1
	for i, d := range shape {
		if d != 1 {
			n = i + 1
		}
	}
	return n
}

// layerOf returns N of a "blk.N." name, or -1.
func layerOf(name string) int {
	rest, ok := strings.CutPrefix(name, "blk.")
	if !ok {
		return -1
	}
	num, _, ok := strings.Cut(rest, ".")
	if !ok {
		return -1
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return -1
	}
	return n
}

// moreBits picks the layers that get more bits: the first and last
// eighths, and every third layer between (llama.cpp's use_more_bits).
func moreBits(i, n int) bool {
	return i < n/8 || i >= 7*n/8 || (i-n/8)%3 == 2
}

// Type returns the type of the tensor called name, of the given shape (in
// ggml order), in a model quantized to m.FileType. src is the tensor's
// type in the source model, which tensors that are not quantized (1-D
// tensors, norms) keep.
func (m Mix) Type(name string, shape []int64, src quant.Type) (quant.Type, error) {
	def, err := DefaultType(m.FileType)
	if err != nil {
		return 0, err
	}
	if !quantizable(name, shape) {
		return src, nil
	}
	if def == quant.TypeF32 || def == quant.TypeF16 || def == quant.TypeBF16 {
		return def, nil
	}
	t := m.refine(def, name, shape)
	return fallback(t, shape), nil
}

// refine applies the mix's rules to the default type t
// (llama_tensor_get_type_impl, without the file types Saji cannot write).
func (m Mix) refine(t quant.Type, name string, shape []int64) quant.Type {
	ft := m.FileType
	falcon := m.Arch == "falcon"
	// iq2sm: the 2-bit IQ files whose sensitive matrices take IQ3_S.
	iq2sm := ft == gguf.FileTypeMostlyIQ2S || ft == gguf.FileTypeMostlyIQ2M
	iq1 := ft == gguf.FileTypeMostlyIQ1S || ft == gguf.FileTypeMostlyIQ1M
	// iq2: the 2-bit (and 1-bit) IQ files, which share their rules.
	iq2 := iq2sm || iq1 || ft == gguf.FileTypeMostlyIQ2XXS || ft == gguf.FileTypeMostlyIQ2XS
	iq3xxs := ft == gguf.FileTypeMostlyIQ3XXS
	cat := categorize(name)
	layer, n := layerOf(name), m.Layers
	switch {
	case cat == catOutput || (m.Tied && cat == catTokenEmbd):
		switch {
		case ft == gguf.FileTypeMostlyMXFP4 || falcon || shape[0]%int64(t.BlockSize()) != 0:
			t = quant.TypeQ8_0
		case iq2 || iq3xxs:
			t = quant.TypeQ5_K
		case t != quant.TypeQ8_0:
			t = quant.TypeQ6_K
		}
	case ft == gguf.FileTypeMostlyMXFP4:
		// MXFP4 for the experts (3-D tensors; of Ling's, only the FFN's),
		// Q8_0 for the rest.
		t = quant.TypeQ8_0
		if len(shape) > 2 && shape[2] > 1 &&
			(m.Arch != "bailingmoe3" || cat == catFFNUp || cat == catFFNGate || cat == catFFNDown) {
			t = quant.TypeMXFP4
		}
	case cat == catTokenEmbd:
		switch {
		case ft == gguf.FileTypeMostlyTQ1_0 || ft == gguf.FileTypeMostlyTQ2_0:
			t = quant.TypeQ4_K
		case iq2sm || iq3xxs:
			t = quant.TypeIQ3_S
		case iq2:
			t = quant.TypeQ2_K
		}
	case iq2:
		// The 2-bit IQ types: more bits for attn_v, the first eighth of
		// ffn_down and attn_output (IQ3_S in IQ2_S and IQ2_M, Q2_K in the
		// others) and, with 8 experts, attn_k and attn_output.
		more := quant.TypeQ2_K
		if iq2sm {
			more = quant.TypeIQ3_S
		}
		switch {
		case cat == catAttnV || cat == catAttnQKV || cat == catAttnKVB:
			t = more
			if m.GQA >= 4 || m.Experts >= 4 {
				t = quant.TypeQ4_K
			}
		case cat == catAttnK && m.Experts == 8:
			t = quant.TypeQ4_K
		case cat == catFFNDown && layer < n/8:
			t = more
		case cat == catAttnOutput && m.Experts == 8:
			t = quant.TypeQ5_K
		case cat == catAttnOutput && iq2sm:
			t = quant.TypeIQ3_S
		case cat == catAttnOutput && iq1:
			t = quant.TypeIQ2_XXS
		}
	case cat == catAttnV || cat == catAttnQKV || cat == catAttnKVB:
		// For a dense model, the i-th attn_v tensor is layer i's.
		switch {
		case ft == gguf.FileTypeMostlyQ2_K:
			t = quant.TypeQ3_K
			if m.GQA >= 4 {
				t = quant.TypeQ4_K
			}
		case ft == gguf.FileTypeMostlyQ2_K_S && m.GQA >= 4:
			t = quant.TypeQ4_K
		case iq3xxs:
			// (IQ3_S without an importance matrix, which IQ3_XXS needs.)
			t = quant.TypeIQ3_XXS
			if m.GQA >= 4 {
				t = quant.TypeQ4_K
			}
		case ft == gguf.FileTypeMostlyQ3_K_M:
			t = quant.TypeQ4_K
			if layer < 2 {
				t = quant.TypeQ5_K
			}
		case ft == gguf.FileTypeMostlyQ3_K_L:
			t = quant.TypeQ5_K
		case (ft == gguf.FileTypeMostlyIQ3S || ft == gguf.FileTypeMostlyIQ3XS) && m.GQA >= 4, ft == gguf.FileTypeMostlyIQ3M:
			t = quant.TypeQ4_K
		case (ft == gguf.FileTypeMostlyIQ4NL || ft == gguf.FileTypeMostlyIQ4XS) && m.GQA >= 4:
			t = quant.TypeQ5_K
		case (ft == gguf.FileTypeMostlyQ4_K_M || ft == gguf.FileTypeMostlyQ5_K_M) && moreBits(layer, n):
			t = quant.TypeQ6_K
		case ft == gguf.FileTypeMostlyQ4_K_S && layer < 4:
			t = quant.TypeQ5_K
		}
		if m.Experts == 8 {
			t = quant.TypeQ8_0
		}
	case cat == catAttnK:
		switch {
		case m.Experts == 8:
			t = quant.TypeQ8_0
		case ft == gguf.FileTypeMostlyIQ3XS:
			t = quant.TypeIQ3_XXS
		case iq3xxs:
			t = quant.TypeIQ2_S
		}
	case cat == catAttnQ:
		switch {
		case ft == gguf.FileTypeMostlyIQ3XS:
			t = quant.TypeIQ3_XXS
		case iq3xxs:
			t = quant.TypeIQ2_S
		}
	case cat == catFFNGate || cat == catFFNUp:
		if ft == gguf.FileTypeMostlyIQ3XS && layer >= n/8 && layer < 7*n/8 {
			t = quant.TypeIQ3_XXS
		}
	case cat == catFFNDown:
		switch {
		case ft == gguf.FileTypeMostlyQ2_K:
			t = quant.TypeQ3_K
		case ft == gguf.FileTypeMostlyQ2_K_S:
			if layer < n/8 {
				t = quant.TypeQ4_K
			}
		case ft == gguf.FileTypeMostlyQ3_K_M:
			switch {
			case layer < n/16:
				t = quant.TypeQ5_K
			case !falcon || moreBits(layer, n):
				t = quant.TypeQ4_K
			default:
				t = quant.TypeQ3_K
			}
		case ft == gguf.FileTypeMostlyIQ3M && (layer < n/8 || m.Experts == 8 && moreBits(layer, n)):
			t = quant.TypeQ4_K
		case ft == gguf.FileTypeMostlyQ3_K_L:
			t = quant.TypeQ5_K
			if falcon {
				t = quant.TypeQ4_K
			}
		case ft == gguf.FileTypeMostlyQ4_K_M:
			switch {
			case falcon && layer < n/16:
				t = quant.TypeQ6_K
			case falcon && moreBits(layer, n):
				t = quant.TypeQ5_K
			case falcon:
				t = quant.TypeQ4_K
			case moreBits(layer, n):
				t = quant.TypeQ6_K
			}
		case layer < n/8 && (ft == gguf.FileTypeMostlyIQ4NL || ft == gguf.FileTypeMostlyIQ4XS) && !m.Imatrix:
			t = quant.TypeQ5_K
		case ft == gguf.FileTypeMostlyQ5_K_M && moreBits(layer, n):
			t = quant.TypeQ6_K
		case ft == gguf.FileTypeMostlyQ4_K_S && !falcon && layer < n/8:
			t = quant.TypeQ5_K
		case ft == gguf.FileTypeMostlyQ4_0 && m.Imatrix && layer < n/8:
			// Guards the first ffn_down layers against Q4_0's outliers
			// (only with an importance matrix, as llama.cpp does).
			t = quant.TypeQ4_1
		case ft == gguf.FileTypeMostlyQ5_0 && m.Imatrix && layer < n/8:
			t = quant.TypeQ5_1
		}
	case cat == catAttnOutput:
		switch {
		case falcon:
			if ft == gguf.FileTypeMostlyQ3_K_L {
				t = quant.TypeQ4_K
			}
		case m.Experts == 8:
			switch ft {
			case gguf.FileTypeMostlyQ2_K, gguf.FileTypeMostlyQ3_K_S, gguf.FileTypeMostlyQ3_K_M,
				gguf.FileTypeMostlyIQ4NL, gguf.FileTypeMostlyQ4_K_S, gguf.FileTypeMostlyQ4_K_M,
				gguf.FileTypeMostlyIQ3S, gguf.FileTypeMostlyIQ3M, gguf.FileTypeMostlyIQ4XS, gguf.FileTypeMostlyIQ3XS,
				gguf.FileTypeMostlyIQ3XXS:
				t = quant.TypeQ5_K
			}
		case ft == gguf.FileTypeMostlyQ2_K:
			t = quant.TypeQ3_K
		case iq3xxs:
			t = quant.TypeIQ3_S
		case ft == gguf.FileTypeMostlyQ3_K_M:
			t = quant.TypeQ4_K
		case ft == gguf.FileTypeMostlyQ3_K_L:
			t = quant.TypeQ5_K
		case ft == gguf.FileTypeMostlyIQ3M:
			t = quant.TypeQ4_K
		}
	}
	return t
}

// fallback replaces a type whose blocks do not divide the rows with a
// compatible one, and with F16 when that does not fit either
// (tensor_type_fallback).
func fallback(t quant.Type, shape []int64) quant.Type {
	cols := int64(1)
	if len(shape) > 0 {
		cols = shape[0]
	}
	if cols%int64(t.BlockSize()) == 0 {
		return t
	}
	switch t {
	case quant.TypeIQ4_XS, quant.TypeIQ3_S, quant.TypeIQ2_XXS, quant.TypeIQ2_XS, quant.TypeIQ2_S, quant.TypeIQ3_XXS,
		quant.TypeIQ1_S, quant.TypeIQ1_M:
		t = quant.TypeIQ4_NL
	case quant.TypeQ2_K, quant.TypeQ3_K, quant.TypeTQ1_0, quant.TypeTQ2_0:
		t = quant.TypeQ4_0
	case quant.TypeQ4_K:
		t = quant.TypeQ5_0
	case quant.TypeQ5_K:
		t = quant.TypeQ5_1
	case quant.TypeQ6_K:
		t = quant.TypeQ8_0
	}
	if cols%int64(t.BlockSize()) != 0 {
		t = quant.TypeF16
	}
	return t
}
