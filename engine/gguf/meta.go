package gguf

import (
	"errors"
	"fmt"
	"math"
)

// Well-known metadata keys. Keys that start with "%s." are per
// architecture: ArchKey fills in the architecture.
const (
	KeyArchitecture        = "general.architecture"
	KeyName                = "general.name"
	KeyFileType            = "general.file_type"
	KeyQuantizationVersion = "general.quantization_version"

	KeyTokenizerModel     = "tokenizer.ggml.model"
	KeyTokenizerPre       = "tokenizer.ggml.pre"
	KeyTokens             = "tokenizer.ggml.tokens"
	KeyScores             = "tokenizer.ggml.scores"
	KeyTokenType          = "tokenizer.ggml.token_type"
	KeyMerges             = "tokenizer.ggml.merges"
	KeyBOSTokenID         = "tokenizer.ggml.bos_token_id"
	KeyEOSTokenID         = "tokenizer.ggml.eos_token_id"
	KeyEOTTokenID         = "tokenizer.ggml.eot_token_id"
	KeyEOMTokenID         = "tokenizer.ggml.eom_token_id"
	KeyUNKTokenID         = "tokenizer.ggml.unknown_token_id"
	KeySEPTokenID         = "tokenizer.ggml.seperator_token_id" // sic: llama.cpp's spelling
	KeyPADTokenID         = "tokenizer.ggml.padding_token_id"
	KeyCLSTokenID         = "tokenizer.ggml.cls_token_id"
	KeyMASKTokenID        = "tokenizer.ggml.mask_token_id"
	KeyAddBOSToken        = "tokenizer.ggml.add_bos_token"
	KeyAddEOSToken        = "tokenizer.ggml.add_eos_token"
	KeyAddSEPToken        = "tokenizer.ggml.add_sep_token"
	KeyAddSpacePrefix     = "tokenizer.ggml.add_space_prefix"
	KeyRemoveExtraSpaces  = "tokenizer.ggml.remove_extra_whitespaces"
	KeyPrecompiledCharmap = "tokenizer.ggml.precompiled_charsmap"
	KeyChatTemplate       = "tokenizer.chat_template"

	KeyVocabSize             = "%s.vocab_size"
	KeyContextLength         = "%s.context_length"
	KeyEmbeddingLength       = "%s.embedding_length"
	KeyBlockCount            = "%s.block_count"
	KeyFeedForwardLength     = "%s.feed_forward_length"
	KeyExpertCount           = "%s.expert_count"
	KeyExpertUsedCount       = "%s.expert_used_count"
	KeyHeadCount             = "%s.attention.head_count"
	KeyHeadCountKV           = "%s.attention.head_count_kv"
	KeyKeyLength             = "%s.attention.key_length"
	KeyValueLength           = "%s.attention.value_length"
	KeyLayerNormEpsilon      = "%s.attention.layer_norm_epsilon"
	KeyLayerNormRMSEpsilon   = "%s.attention.layer_norm_rms_epsilon"
	KeySlidingWindow         = "%s.attention.sliding_window"
	KeyRopeDimensionCount    = "%s.rope.dimension_count"
	KeyRopeFreqBase          = "%s.rope.freq_base"
	KeyRopeFreqBaseSWA       = "%s.rope.freq_base_swa"
	KeyRopeScalingType       = "%s.rope.scaling.type"
	KeyRopeScalingFactor     = "%s.rope.scaling.factor"
	KeyRopeScalingOrigCtxLen = "%s.rope.scaling.original_context_length"
	KeyAttnLogitSoftcapping  = "%s.attn_logit_softcapping"
	KeyFinalLogitSoftcapping = "%s.final_logit_softcapping"
)

// ArchKey returns key with its "%s" replaced by the file's architecture,
// such as "llama.context_length" for KeyContextLength. Keys without "%s"
// are returned unchanged.
func (f *File) ArchKey(key string) (string, error) {
	if len(key) < 3 || key[:3] != "%s." {
		return key, nil
	}
	arch, err := f.Architecture()
	if err != nil {
		return "", err
	}
	return arch + key[2:], nil
}

// lookup returns the value under key or an ErrNotFound error.
func (f *File) lookup(key string) (Value, error) {
	v, ok := f.Value(key)
	if !ok {
		return Value{}, fmt.Errorf("%w: %q", ErrNotFound, key)
	}
	return v, nil
}

// get looks up key (after ArchKey) and converts it with conv, wrapping
// errors with the key.
func get[T any](f *File, key string, conv func(Value) (T, error)) (T, error) {
	var zero T
	k, err := f.ArchKey(key)
	if err != nil {
		return zero, err
	}
	v, err := f.lookup(k)
	if err != nil {
		return zero, err
	}
	x, err := conv(v)
	if err != nil {
		return zero, fmt.Errorf("gguf: key %q: %w", k, err)
	}
	return x, nil
}

// String returns the string under key. Keys of the form "%s.x" are looked
// up under the architecture's prefix, here and in every typed getter.
func (f *File) String(key string) (string, error) { return get(f, key, Value.AsString) }

// Uint returns the integer of any width under key as a uint64.
func (f *File) Uint(key string) (uint64, error) { return get(f, key, Value.AsUint) }

// Int returns the integer of any width under key as an int64.
func (f *File) Int(key string) (int64, error) { return get(f, key, Value.AsInt) }

// Float returns the number under key as a float64.
func (f *File) Float(key string) (float64, error) { return get(f, key, Value.AsFloat) }

// Bool returns the bool under key.
func (f *File) Bool(key string) (bool, error) { return get(f, key, Value.AsBool) }

// Strings returns the array of strings under key (shared, not a copy).
func (f *File) Strings(key string) ([]string, error) { return get(f, key, Value.AsStrings) }

// Int32s returns the array of integers under key as []int32.
func (f *File) Int32s(key string) ([]int32, error) { return get(f, key, Value.AsInt32s) }

// Uint32s returns the array of integers under key as []uint32.
func (f *File) Uint32s(key string) ([]uint32, error) { return get(f, key, Value.AsUint32s) }

// Uints returns the array of integers under key as []uint64.
func (f *File) Uints(key string) ([]uint64, error) { return get(f, key, Value.AsUints) }

// Ints returns the array of integers under key as []int64.
func (f *File) Ints(key string) ([]int64, error) { return get(f, key, Value.AsInts) }

// Float32s returns the array of floats under key as []float32.
func (f *File) Float32s(key string) ([]float32, error) { return get(f, key, Value.AsFloat32s) }

// Bools returns the array of bools under key.
func (f *File) Bools(key string) ([]bool, error) { return get(f, key, Value.AsBools) }

// Uint32 returns the integer under key, which must fit a uint32.
func (f *File) Uint32(key string) (uint32, error) {
	n, err := f.Uint(key)
	if err != nil {
		return 0, err
	}
	if n > math.MaxUint32 {
		return 0, fmt.Errorf("gguf: key %q: %w: %d does not fit a uint32", key, ErrType, n)
	}
	return uint32(n), nil
}

// maxLayers bounds a file's block count (BlockCount): every reader of a
// model does per-layer work before any tensor is checked, and a hostile
// count of a billion hung a load and grew without bound.
const maxLayers = 1 << 16

// LayerUints returns a per-layer integer under key (such as
// KeyHeadCountKV) as one value per block: a scalar is repeated BlockCount
// times; an array must have BlockCount elements.
func (f *File) LayerUints(key string) ([]uint64, error) {
	n, err := f.BlockCount()
	if err != nil {
		return nil, err
	}
	k, err := f.ArchKey(key)
	if err != nil {
		return nil, err
	}
	v, err := f.lookup(k)
	if err != nil {
		return nil, err
	}
	if !v.IsArray() {
		x, err := v.AsUint()
		if err != nil {
			return nil, fmt.Errorf("gguf: key %q: %w", k, err)
		}
		out := make([]uint64, n)
		for i := range out {
			out[i] = x
		}
		return out, nil
	}
	out, err := v.AsUints()
	if err != nil {
		return nil, fmt.Errorf("gguf: key %q: %w", k, err)
	}
	if uint64(len(out)) != n {
		return nil, fmt.Errorf("gguf: key %q: %w: %d values for %d blocks", k, ErrType, len(out), n)
	}
	return out, nil
}

// Architecture returns general.architecture, such as "llama" or "qwen2".
func (f *File) Architecture() (string, error) {
	v, err := f.lookup(KeyArchitecture)
	if err != nil {
		return "", err
	}
	s, err := v.AsString()
	if err != nil {
		return "", fmt.Errorf("gguf: key %q: %w", KeyArchitecture, err)
	}
	if s == "" {
		return "", fmt.Errorf("gguf: key %q is empty", KeyArchitecture)
	}
	return s, nil
}

// Name returns general.name.
func (f *File) Name() (string, error) { return f.String(KeyName) }

// FileType returns general.file_type.
func (f *File) FileType() (FileType, error) {
	n, err := f.Uint32(KeyFileType)
	return FileType(n), err
}

// ContextLength returns <arch>.context_length, the training context.
func (f *File) ContextLength() (uint64, error) { return f.Uint(KeyContextLength) }

// EmbeddingLength returns <arch>.embedding_length (n_embd).
func (f *File) EmbeddingLength() (uint64, error) { return f.Uint(KeyEmbeddingLength) }

// BlockCount returns <arch>.block_count, the number of layers: at most
// maxLayers, a larger count being a malformed file.
func (f *File) BlockCount() (uint64, error) {
	n, err := f.Uint(KeyBlockCount)
	if err == nil && n > maxLayers {
		return 0, fmt.Errorf("gguf: %w: block count %d is more than %d layers", ErrFormat, n, maxLayers)
	}
	return n, err
}

// FeedForwardLength returns <arch>.feed_forward_length (n_ff). Some
// architectures store one value per layer: use LayerUints for those.
func (f *File) FeedForwardLength() (uint64, error) { return f.Uint(KeyFeedForwardLength) }

// HeadCount returns <arch>.attention.head_count.
func (f *File) HeadCount() (uint64, error) { return f.Uint(KeyHeadCount) }

// HeadCountKV returns <arch>.attention.head_count_kv, which defaults to
// the head count when absent, as in llama.cpp. Per-layer arrays need
// LayerUints.
func (f *File) HeadCountKV() (uint64, error) {
	n, err := f.Uint(KeyHeadCountKV)
	if isNotFound(err) {
		return f.HeadCount()
	}
	return n, err
}

// KeyLength returns <arch>.attention.key_length (head dimension of K).
func (f *File) KeyLength() (uint64, error) { return f.Uint(KeyKeyLength) }

// ValueLength returns <arch>.attention.value_length (head dimension of V).
func (f *File) ValueLength() (uint64, error) { return f.Uint(KeyValueLength) }

// RopeDimensionCount returns <arch>.rope.dimension_count.
func (f *File) RopeDimensionCount() (uint64, error) { return f.Uint(KeyRopeDimensionCount) }

// RopeFreqBase returns <arch>.rope.freq_base.
func (f *File) RopeFreqBase() (float64, error) { return f.Float(KeyRopeFreqBase) }

// RMSEpsilon returns <arch>.attention.layer_norm_rms_epsilon.
func (f *File) RMSEpsilon() (float64, error) { return f.Float(KeyLayerNormRMSEpsilon) }

// LayerNormEpsilon returns <arch>.attention.layer_norm_epsilon.
func (f *File) LayerNormEpsilon() (float64, error) { return f.Float(KeyLayerNormEpsilon) }

// SlidingWindow returns <arch>.attention.sliding_window.
func (f *File) SlidingWindow() (uint64, error) { return f.Uint(KeySlidingWindow) }

// VocabSize returns <arch>.vocab_size, or else the number of tokens in
// tokenizer.ggml.tokens.
func (f *File) VocabSize() (uint64, error) {
	n, err := f.Uint(KeyVocabSize)
	if !isNotFound(err) {
		return n, err
	}
	v, err := f.lookup(KeyTokens)
	if err != nil {
		return 0, err
	}
	if !v.IsArray() {
		return 0, fmt.Errorf("gguf: key %q: %w", KeyTokens, typeErr(v, "array of string"))
	}
	return uint64(v.Len()), nil
}

// TokenizerModel returns tokenizer.ggml.model ("llama", "gpt2", ...).
func (f *File) TokenizerModel() (string, error) { return f.String(KeyTokenizerModel) }

// TokenizerPre returns tokenizer.ggml.pre, the pre-tokenizer name.
func (f *File) TokenizerPre() (string, error) { return f.String(KeyTokenizerPre) }

// Tokens returns tokenizer.ggml.tokens (shared, not a copy).
func (f *File) Tokens() ([]string, error) { return f.Strings(KeyTokens) }

// Scores returns tokenizer.ggml.scores.
func (f *File) Scores() ([]float32, error) { return f.Float32s(KeyScores) }

// TokenTypes returns tokenizer.ggml.token_type.
func (f *File) TokenTypes() ([]int32, error) { return f.Int32s(KeyTokenType) }

// Merges returns tokenizer.ggml.merges (shared, not a copy).
func (f *File) Merges() ([]string, error) { return f.Strings(KeyMerges) }

// BOSTokenID returns tokenizer.ggml.bos_token_id.
func (f *File) BOSTokenID() (uint32, error) { return f.Uint32(KeyBOSTokenID) }

// EOSTokenID returns tokenizer.ggml.eos_token_id.
func (f *File) EOSTokenID() (uint32, error) { return f.Uint32(KeyEOSTokenID) }

// UNKTokenID returns tokenizer.ggml.unknown_token_id.
func (f *File) UNKTokenID() (uint32, error) { return f.Uint32(KeyUNKTokenID) }

// SEPTokenID returns tokenizer.ggml.seperator_token_id.
func (f *File) SEPTokenID() (uint32, error) { return f.Uint32(KeySEPTokenID) }

// PADTokenID returns tokenizer.ggml.padding_token_id.
func (f *File) PADTokenID() (uint32, error) { return f.Uint32(KeyPADTokenID) }

// AddBOSToken returns tokenizer.ggml.add_bos_token.
func (f *File) AddBOSToken() (bool, error) { return f.Bool(KeyAddBOSToken) }

// AddEOSToken returns tokenizer.ggml.add_eos_token.
func (f *File) AddEOSToken() (bool, error) { return f.Bool(KeyAddEOSToken) }

// ChatTemplate returns tokenizer.chat_template.
func (f *File) ChatTemplate() (string, error) { return f.String(KeyChatTemplate) }

// FileType is llama.cpp's llama_ftype: the predominant tensor type of a
// model, as stored in general.file_type.
type FileType uint32

// The llama.cpp file types. Retired numbers (4, 5, 6, 33-35) are absent.
const (
	FileTypeAllF32       FileType = 0
	FileTypeMostlyF16    FileType = 1
	FileTypeMostlyQ4_0   FileType = 2
	FileTypeMostlyQ4_1   FileType = 3
	FileTypeMostlyQ8_0   FileType = 7
	FileTypeMostlyQ5_0   FileType = 8
	FileTypeMostlyQ5_1   FileType = 9
	FileTypeMostlyQ2_K   FileType = 10
	FileTypeMostlyQ3_K_S FileType = 11
	FileTypeMostlyQ3_K_M FileType = 12
	FileTypeMostlyQ3_K_L FileType = 13
	FileTypeMostlyQ4_K_S FileType = 14
	FileTypeMostlyQ4_K_M FileType = 15
	FileTypeMostlyQ5_K_S FileType = 16
	FileTypeMostlyQ5_K_M FileType = 17
	FileTypeMostlyQ6_K   FileType = 18
	FileTypeMostlyIQ2XXS FileType = 19
	FileTypeMostlyIQ2XS  FileType = 20
	FileTypeMostlyQ2_K_S FileType = 21
	FileTypeMostlyIQ3XS  FileType = 22
	FileTypeMostlyIQ3XXS FileType = 23
	FileTypeMostlyIQ1S   FileType = 24
	FileTypeMostlyIQ4NL  FileType = 25
	FileTypeMostlyIQ3S   FileType = 26
	FileTypeMostlyIQ3M   FileType = 27
	FileTypeMostlyIQ2S   FileType = 28
	FileTypeMostlyIQ2M   FileType = 29
	FileTypeMostlyIQ4XS  FileType = 30
	FileTypeMostlyIQ1M   FileType = 31
	FileTypeMostlyBF16   FileType = 32
	FileTypeMostlyTQ1_0  FileType = 36
	FileTypeMostlyTQ2_0  FileType = 37
	FileTypeMostlyMXFP4  FileType = 38
	FileTypeMostlyNVFP4  FileType = 39
	FileTypeMostlyQ1_0   FileType = 40
	FileTypeMostlyQ2_0   FileType = 41

	// FileTypeGuessed is or-ed into a file type that was not read from the
	// file but guessed from its tensors.
	FileTypeGuessed FileType = 1024
)

// fileTypeNames are llama.cpp's short names (the llama-quantize names).
var fileTypeNames = map[FileType]string{
	FileTypeAllF32:       "F32",
	FileTypeMostlyF16:    "F16",
	FileTypeMostlyQ4_0:   "Q4_0",
	FileTypeMostlyQ4_1:   "Q4_1",
	FileTypeMostlyQ8_0:   "Q8_0",
	FileTypeMostlyQ5_0:   "Q5_0",
	FileTypeMostlyQ5_1:   "Q5_1",
	FileTypeMostlyQ2_K:   "Q2_K",
	FileTypeMostlyQ3_K_S: "Q3_K_S",
	FileTypeMostlyQ3_K_M: "Q3_K_M",
	FileTypeMostlyQ3_K_L: "Q3_K_L",
	FileTypeMostlyQ4_K_S: "Q4_K_S",
	FileTypeMostlyQ4_K_M: "Q4_K_M",
	FileTypeMostlyQ5_K_S: "Q5_K_S",
	FileTypeMostlyQ5_K_M: "Q5_K_M",
	FileTypeMostlyQ6_K:   "Q6_K",
	FileTypeMostlyIQ2XXS: "IQ2_XXS",
	FileTypeMostlyIQ2XS:  "IQ2_XS",
	FileTypeMostlyQ2_K_S: "Q2_K_S",
	FileTypeMostlyIQ3XS:  "IQ3_XS",
	FileTypeMostlyIQ3XXS: "IQ3_XXS",
	FileTypeMostlyIQ1S:   "IQ1_S",
	FileTypeMostlyIQ4NL:  "IQ4_NL",
	FileTypeMostlyIQ3S:   "IQ3_S",
	FileTypeMostlyIQ3M:   "IQ3_M",
	FileTypeMostlyIQ2S:   "IQ2_S",
	FileTypeMostlyIQ2M:   "IQ2_M",
	FileTypeMostlyIQ4XS:  "IQ4_XS",
	FileTypeMostlyIQ1M:   "IQ1_M",
	FileTypeMostlyBF16:   "BF16",
	FileTypeMostlyTQ1_0:  "TQ1_0",
	FileTypeMostlyTQ2_0:  "TQ2_0",
	FileTypeMostlyMXFP4:  "MXFP4_MOE",
	FileTypeMostlyNVFP4:  "NVFP4",
	FileTypeMostlyQ1_0:   "Q1_0",
	FileTypeMostlyQ2_0:   "Q2_0",
}

// fileTypeDescriptions are llama.cpp's llama_ftype_name texts.
var fileTypeDescriptions = map[FileType]string{
	FileTypeAllF32:       "all F32",
	FileTypeMostlyQ2_K:   "Q2_K - Medium",
	FileTypeMostlyQ2_K_S: "Q2_K - Small",
	FileTypeMostlyQ3_K_S: "Q3_K - Small",
	FileTypeMostlyQ3_K_M: "Q3_K - Medium",
	FileTypeMostlyQ3_K_L: "Q3_K - Large",
	FileTypeMostlyQ4_K_S: "Q4_K - Small",
	FileTypeMostlyQ4_K_M: "Q4_K - Medium",
	FileTypeMostlyQ5_K_S: "Q5_K - Small",
	FileTypeMostlyQ5_K_M: "Q5_K - Medium",
	FileTypeMostlyMXFP4:  "MXFP4 MoE",
	FileTypeMostlyTQ1_0:  "TQ1_0 - 1.69 bpw ternary",
	FileTypeMostlyTQ2_0:  "TQ2_0 - 2.06 bpw ternary",
	FileTypeMostlyIQ2XXS: "IQ2_XXS - 2.0625 bpw",
	FileTypeMostlyIQ2XS:  "IQ2_XS - 2.3125 bpw",
	FileTypeMostlyIQ2S:   "IQ2_S - 2.5 bpw",
	FileTypeMostlyIQ2M:   "IQ2_M - 2.7 bpw",
	FileTypeMostlyIQ3XS:  "IQ3_XS - 3.3 bpw",
	FileTypeMostlyIQ3XXS: "IQ3_XXS - 3.0625 bpw",
	FileTypeMostlyIQ1S:   "IQ1_S - 1.5625 bpw",
	FileTypeMostlyIQ1M:   "IQ1_M - 1.75 bpw",
	FileTypeMostlyIQ4NL:  "IQ4_NL - 4.5 bpw",
	FileTypeMostlyIQ4XS:  "IQ4_XS - 4.25 bpw",
	FileTypeMostlyIQ3S:   "IQ3_S - 3.4375 bpw",
	FileTypeMostlyIQ3M:   "IQ3_S mix - 3.66 bpw",
}

// Known reports whether t (without the guessed flag) is a file type
// llama.cpp defines.
func (t FileType) Known() bool {
	_, ok := fileTypeNames[t&^FileTypeGuessed]
	return ok
}

// String returns the short name llama-quantize uses, such as "Q4_K_M" or
// "F16", or "unknown(N)".
func (t FileType) String() string {
	if s, ok := fileTypeNames[t&^FileTypeGuessed]; ok {
		return s
	}
	return fmt.Sprintf("unknown(%d)", uint32(t))
}

// Description returns llama.cpp's description (llama_ftype_name), such as
// "Q4_K - Medium", prefixed with "(guessed) " when the flag is set.
func (t FileType) Description() string {
	base := t &^ FileTypeGuessed
	s, ok := fileTypeDescriptions[base]
	if !ok {
		s, ok = fileTypeNames[base]
	}
	if !ok {
		s = "unknown, may not work"
	}
	if t&FileTypeGuessed != 0 {
		return "(guessed) " + s
	}
	return s
}

func isNotFound(err error) bool {
	return errors.Is(err, ErrNotFound)
}
