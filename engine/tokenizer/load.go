package tokenizer

import (
	"errors"
	"fmt"
	"log/slog"

	"saji/engine/gguf"
)

// Keys llama.cpp reads that package gguf does not name.
const (
	keyNormalizerLowercase    = "tokenizer.ggml.normalizer.lowercase"
	keyNormalizerStripAccents = "tokenizer.ggml.normalizer.strip_accents"
	keyFIMPre                 = "tokenizer.ggml.fim_pre_token_id"
	keyFIMSuf                 = "tokenizer.ggml.fim_suf_token_id"
	keyFIMMid                 = "tokenizer.ggml.fim_mid_token_id"
	keyFIMPad                 = "tokenizer.ggml.fim_pad_token_id"
	keyFIMRep                 = "tokenizer.ggml.fim_rep_token_id"
	keyFIMSep                 = "tokenizer.ggml.fim_sep_token_id"
	keyPrefixID               = "tokenizer.ggml.prefix_token_id" // deprecated FIM keys
	keySuffixID               = "tokenizer.ggml.suffix_token_id"
	keyMiddleID               = "tokenizer.ggml.middle_token_id"
)

// specialKeys are the metadata keys of the special-token roles, in the order
// llama.cpp reads them; a later key for the same role overrides an earlier
// one when its id is in range.
var specialKeys = []struct {
	key  string
	role Special
}{
	{gguf.KeyBOSTokenID, SpecialBOS},
	{gguf.KeyEOSTokenID, SpecialEOS},
	{gguf.KeyEOTTokenID, SpecialEOT},
	{gguf.KeyEOMTokenID, SpecialEOM},
	{gguf.KeyUNKTokenID, SpecialUNK},
	{gguf.KeySEPTokenID, SpecialSEP},
	{gguf.KeyPADTokenID, SpecialPAD},
	{gguf.KeyMASKTokenID, SpecialMASK},
	{keyFIMPre, SpecialFIMPre},
	{keyFIMSuf, SpecialFIMSuf},
	{keyFIMMid, SpecialFIMMid},
	{keyFIMPad, SpecialFIMPad},
	{keyFIMRep, SpecialFIMRep},
	{keyFIMSep, SpecialFIMSep},
	{keyPrefixID, SpecialFIMPre},
	{keySuffixID, SpecialFIMSuf},
	{keyMiddleID, SpecialFIMMid},
}

// FromGGUF builds the tokenizer of a GGUF file from its tokenizer.ggml.*
// metadata, as llama.cpp's vocabulary loader does. Malformed metadata (a
// missing token list, arrays shorter than the token list, values of the
// wrong type) is an error; a model without a vocabulary gives ErrNoVocab.
func FromGGUF(f *gguf.File) (*Tokenizer, error) {
	v, err := VocabFromGGUF(f)
	if err != nil {
		return nil, err
	}
	return New(v)
}

// VocabFromGGUF reads the vocabulary metadata of a GGUF file.
func VocabFromGGUF(f *gguf.File) (Vocab, error) {
	var v Vocab
	var err error
	str := func(key string, required bool) string {
		if err != nil {
			return ""
		}
		s, e := f.String(key)
		if e != nil && (required || !errors.Is(e, gguf.ErrNotFound)) {
			err = fmt.Errorf("tokenizer: %w", e)
		}
		return s
	}
	v.Model = str(gguf.KeyTokenizerModel, true)
	v.Pre = str(gguf.KeyTokenizerPre, false)
	v.Name = str(gguf.KeyName, false)
	v.Architecture = str(gguf.KeyArchitecture, false)
	if err != nil {
		return v, err
	}
	switch v.Model {
	case "no_vocab", "none", "no":
		return v, fmt.Errorf("%w (tokenizer.ggml.model = %q)", ErrNoVocab, v.Model)
	}

	tokens, err := f.Tokens()
	if err != nil {
		return v, fmt.Errorf("tokenizer: reading the token list: %w", err)
	}
	v.Tokens = tokens

	if sv, ok := f.Value(gguf.KeyScores); ok {
		switch sv.ElemType() {
		case gguf.TypeInt32:
			is, e := sv.AsInt32s()
			if e != nil {
				return v, fmt.Errorf("tokenizer: key %q: %w", gguf.KeyScores, e)
			}
			v.Scores = make([]float32, len(is))
			for i, x := range is {
				v.Scores[i] = float32(x)
			}
		default:
			if !sv.IsArray() {
				return v, fmt.Errorf("tokenizer: key %q is a %s, want an array of float32", gguf.KeyScores, sv.Type())
			}
			if v.Scores, err = sv.AsFloat32s(); err != nil {
				return v, fmt.Errorf("tokenizer: key %q: %w", gguf.KeyScores, err)
			}
		}
	}
	if tv, ok := f.Value(gguf.KeyTokenType); ok {
		if !tv.IsArray() {
			return v, fmt.Errorf("tokenizer: key %q is a %s, want an array of int32", gguf.KeyTokenType, tv.Type())
		}
		types, e := tv.AsInt32s()
		if e != nil {
			return v, fmt.Errorf("tokenizer: key %q: %w", gguf.KeyTokenType, e)
		}
		v.Types = make([]TokenType, len(types))
		for i, x := range types {
			v.Types[i] = TokenType(x)
		}
	}
	if v.Model == "gpt2" || v.Model == "gemma4" {
		if v.Merges, err = f.Merges(); err != nil {
			return v, fmt.Errorf("tokenizer: reading the BPE merges: %w", err)
		}
	}

	for _, k := range specialKeys {
		val, ok := f.Value(k.key)
		if !ok {
			continue
		}
		id, e := val.AsInt()
		if e != nil {
			return v, fmt.Errorf("tokenizer: key %q: %w", k.key, e)
		}
		if id < 0 || id >= int64(len(tokens)) {
			slog.Debug("tokenizer: special token id out of range, ignored", "key", k.key, "id", id, "tokens", len(tokens))
			continue
		}
		if v.IDs == nil {
			v.IDs = map[Special]uint32{}
		}
		v.IDs[k.role] = uint32(id)
	}

	boolKey := func(key string) *bool {
		if err != nil {
			return nil
		}
		b, e := f.Bool(key)
		if e != nil {
			if !errors.Is(e, gguf.ErrNotFound) {
				err = fmt.Errorf("tokenizer: %w", e)
			}
			return nil
		}
		return &b
	}
	v.AddBOS = boolKey(gguf.KeyAddBOSToken)
	v.AddEOS = boolKey(gguf.KeyAddEOSToken)
	v.AddSEP = boolKey(gguf.KeyAddSEPToken)
	v.AddSpacePrefix = boolKey(gguf.KeyAddSpacePrefix)
	v.RemoveExtraWhitespaces = boolKey(gguf.KeyRemoveExtraSpaces)
	v.Lowercase = boolKey(keyNormalizerLowercase)
	v.StripAccents = boolKey(keyNormalizerStripAccents)
	return v, err
}

// Open opens a GGUF file and builds its tokenizer. The file is closed
// before Open returns; the tokenizer holds its own copy of the vocabulary.
func Open(path string) (*Tokenizer, error) {
	f, err := gguf.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return FromGGUF(f)
}
