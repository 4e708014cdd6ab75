package tokenizer

import (
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Model is the tokenization algorithm of a vocabulary (tokenizer.ggml.model).
type Model int

// The supported algorithms.
const (
	// SPM is SentencePiece-style BPE over scores ("llama").
	SPM Model = iota + 1
	// BPE is GPT-2 style byte-level BPE over merges ("gpt2").
	BPE
	// WPM is BERT's WordPiece ("bert").
	WPM
)

// String returns the llama.cpp name of the algorithm: "SPM", "BPE" or "WPM".
func (m Model) String() string {
	switch m {
	case SPM:
		return "SPM"
	case BPE:
		return "BPE"
	case WPM:
		return "WPM"
	}
	return "Model(" + strconv.Itoa(int(m)) + ")"
}

// TokenType is a token's type as GGUF stores it in tokenizer.ggml.token_type.
type TokenType int32

// The GGUF token types.
const (
	TypeUndefined   TokenType = 0
	TypeNormal      TokenType = 1
	TypeUnknown     TokenType = 2
	TypeControl     TokenType = 3
	TypeUserDefined TokenType = 4
	TypeUnused      TokenType = 5
	TypeByte        TokenType = 6
)

// Attr is a token's attribute set, llama.cpp's llama_token_attr: the token
// type as loaded plus the adjustments llama.cpp makes (end-of-generation
// tokens become control tokens, control tokens named "unused" become unused,
// strip flags for some model families).
type Attr uint32

// The token attributes, numbered as in llama.cpp.
const (
	AttrUndefined   Attr = 0
	AttrUnknown     Attr = 1 << 0
	AttrUnused      Attr = 1 << 1
	AttrNormal      Attr = 1 << 2
	AttrControl     Attr = 1 << 3
	AttrUserDefined Attr = 1 << 4
	AttrByte        Attr = 1 << 5
	AttrNormalized  Attr = 1 << 6
	AttrLStrip      Attr = 1 << 7 // whitespace before the token is dropped when it is parsed
	AttrRStrip      Attr = 1 << 8 // whitespace after the token is dropped when it is parsed
	AttrSingleWord  Attr = 1 << 9
)

// attrOfType converts a GGUF token type to its attribute.
func attrOfType(t TokenType) Attr {
	switch t {
	case TypeUnknown:
		return AttrUnknown
	case TypeUnused:
		return AttrUnused
	case TypeNormal:
		return AttrNormal
	case TypeControl:
		return AttrControl
	case TypeUserDefined:
		return AttrUserDefined
	case TypeByte:
		return AttrByte
	}
	return AttrUndefined
}

// Special names a special-token role whose id GGUF metadata can set.
type Special int

// The special-token roles (tokenizer.ggml.<role>_token_id).
const (
	SpecialBOS Special = iota
	SpecialEOS
	SpecialEOT
	SpecialEOM
	SpecialUNK
	SpecialSEP
	SpecialPAD
	SpecialMASK
	SpecialFIMPre
	SpecialFIMSuf
	SpecialFIMMid
	SpecialFIMPad
	SpecialFIMRep
	SpecialFIMSep
	numSpecial
)

var specialNames = [numSpecial]string{"bos", "eos", "eot", "eom", "unk", "sep", "pad", "mask",
	"fim_pre", "fim_suf", "fim_mid", "fim_pad", "fim_rep", "fim_sep"}

// String returns the role's short name, such as "bos" or "fim_pre".
func (s Special) String() string {
	if s >= 0 && s < numSpecial {
		return specialNames[s]
	}
	return "Special(" + strconv.Itoa(int(s)) + ")"
}

// Vocab is a vocabulary as plain data, the content of a GGUF file's
// tokenizer.ggml.* metadata. Optional fields left at their zero value take
// llama.cpp's defaults for the model.
type Vocab struct {
	// Model is tokenizer.ggml.model: "llama" (SPM), "gpt2" or "gemma4"
	// (BPE) or "bert" (WPM).
	Model string
	// Pre is tokenizer.ggml.pre, the BPE pre-tokenizer ("" means "default").
	Pre string
	// Tokens are the token texts, indexed by id.
	Tokens []string
	// Scores are the SPM merge scores (nil: all zero). At least one per token.
	Scores []float32
	// Types are the token types (nil: all normal). At least one per token.
	Types []TokenType
	// Merges are the BPE merges, "left right", in rank order ("gpt2" and
	// "gemma4").
	Merges []string
	// IDs are the special-token ids the metadata sets; absent roles take the
	// model's defaults, and ids out of range are ignored as llama.cpp does.
	IDs map[Special]uint32
	// AddBOS, AddEOS and AddSEP override whether add_special adds them.
	AddBOS, AddEOS, AddSEP *bool
	// AddSpacePrefix overrides whether SPM text gets a leading space.
	AddSpacePrefix *bool
	// RemoveExtraWhitespaces is tokenizer.ggml.remove_extra_whitespaces
	// (recorded; it only matters to tokenizers this package does not have).
	RemoveExtraWhitespaces *bool
	// Lowercase and StripAccents are the BERT normalizer options
	// (tokenizer.ggml.normalizer.*); StripAccents defaults to Lowercase.
	Lowercase, StripAccents *bool
	// Name and Architecture are general.name and general.architecture:
	// llama.cpp sets strip flags on special tokens for some model families
	// by name (Phi-3, Jina v2, ModernBERT, nomic-bert-moe).
	Name, Architecture string
}

// ErrNoVocab is returned for a model without a vocabulary
// (tokenizer.ggml.model "none" or "no_vocab").
var ErrNoVocab = errors.New("tokenizer: the model has no vocabulary")

// ErrUnsupported is wrapped by the errors for tokenizer models and
// pre-tokenizers this package does not implement.
var ErrUnsupported = errors.New("tokenizer: unsupported")

// tokenData is one vocabulary entry.
type tokenData struct {
	text  string
	score float32
	typ   TokenType
	attr  Attr
}

// Tokenizer encodes text to token ids and back, exactly as llama.cpp does
// for the same vocabulary. It is immutable after construction and safe for
// concurrent use.
type Tokenizer struct {
	model   Model
	modelID string // tokenizer.ggml.model as given
	pre     string
	preKind preKind

	tokens      []tokenData
	byText      map[string]int32 // token text -> id; the last id wins for duplicate texts
	maxTokenLen int

	ids [numSpecial]int32 // special ids, -1 for none

	addBOS, addEOS, addSEP bool
	addSpacePrefix         bool
	escapeWS               bool // BPE text has spaces as U+2581 (SPM-style BPE)
	removeExtraWS          bool
	ignoreMerges           bool
	cleanSpaces            bool
	lowercase, stripAccent bool

	eog          []int32 // sorted
	specialCache []int32 // control, user-defined and unknown tokens, longest text first
	pieces       []string

	bpe      *bpeTables
	spmBytes [256]int32      // SPM byte-fallback token of each byte
	spmJoin  map[string]bool // see spmJoiners (SPM and Gemma 4's BPE)

	states sync.Pool // *encodeState
}

// New builds a tokenizer from plain vocabulary data.
func New(v Vocab) (*Tokenizer, error) {
	t := &Tokenizer{modelID: v.Model, pre: v.Pre}
	for i := range t.ids {
		t.ids[i] = -1
	}
	ids := &t.ids
	switch v.Model {
	case "llama":
		t.model = SPM
		ids[SpecialBOS], ids[SpecialEOS], ids[SpecialUNK] = 1, 2, 0
		t.addSpacePrefix, t.addBOS = true, true
	case "bert":
		t.model = WPM
		ids[SpecialBOS], ids[SpecialUNK], ids[SpecialSEP] = 101, 100, 102
		ids[SpecialPAD], ids[SpecialMASK] = 0, 103
		t.addBOS, t.addSEP, t.cleanSpaces = true, true, true
	case "gpt2", "gemma4":
		t.model = BPE
		if v.Model == "gemma4" {
			// Gemma 4's BPE over raw UTF-8: no default special ids, and
			// the pre-tokenizer is always its own, whatever the file says.
			t.pre = "gemma4"
		} else {
			ids[SpecialBOS], ids[SpecialEOS] = 11, 11
		}
		t.cleanSpaces = true
		spec, err := lookupPre(t.pre)
		if err != nil {
			return nil, err
		}
		t.preKind = spec.kind
		t.ignoreMerges = spec.ignoreMerges
		if spec.addBOS {
			t.addBOS = true
		}
		if spec.keepSpaces {
			t.cleanSpaces = false
		}
		if spec.noBOS {
			ids[SpecialBOS] = -1
		}
		t.escapeWS = spec.escapeWS
		if t.pre == "" {
			slog.Warn("tokenizer: missing pre-tokenizer type, using 'default'; generation quality will be degraded")
		}
	case "no_vocab", "none", "no":
		return nil, fmt.Errorf("%w (tokenizer.ggml.model = %q)", ErrNoVocab, v.Model)
	case "":
		return nil, errors.New("tokenizer: no tokenizer model (tokenizer.ggml.model is missing or empty)")
	case "t5", "rwkv", "plamo2", "hybriddna", "whitespace":
		return nil, fmt.Errorf("%w tokenizer model %q", ErrUnsupported, v.Model)
	default:
		return nil, fmt.Errorf("tokenizer: unknown tokenizer model %q", v.Model)
	}
	if v.AddSpacePrefix != nil {
		t.addSpacePrefix = *v.AddSpacePrefix
	}
	if v.RemoveExtraWhitespaces != nil {
		t.removeExtraWS = *v.RemoveExtraWhitespaces
	}

	n := len(v.Tokens)
	if n == 0 {
		return nil, errors.New("tokenizer: the vocabulary has no tokens (tokenizer.ggml.tokens is missing or empty)")
	}
	if n > 1<<31-1 {
		return nil, fmt.Errorf("tokenizer: too many tokens (%d)", n)
	}
	if v.Scores != nil && len(v.Scores) < n {
		return nil, fmt.Errorf("tokenizer: %d scores for %d tokens", len(v.Scores), n)
	}
	if v.Types != nil && len(v.Types) < n {
		return nil, fmt.Errorf("tokenizer: %d token types for %d tokens", len(v.Types), n)
	}
	t.tokens = make([]tokenData, n)
	t.byText = make(map[string]int32, n)
	for i, text := range v.Tokens {
		if text == "" {
			slog.Debug("tokenizer: empty token", "id", i)
			text = "[EMPTY_" + strconv.Itoa(i) + "]"
		}
		d := &t.tokens[i]
		d.text = text
		d.typ = TypeNormal
		if v.Scores != nil {
			d.score = v.Scores[i]
		}
		if v.Types != nil {
			d.typ = v.Types[i]
		}
		d.attr = attrOfType(d.typ)
		t.byText[text] = int32(i)
		t.maxTokenLen = max(t.maxTokenLen, len(text))
	}

	if t.model == BPE {
		b, err := newBPETables(t, v.Merges, t.escapeWS)
		if err != nil {
			return nil, err
		}
		t.bpe = b
	}

	// Special ids: defaults out of range are disabled; metadata ids out of
	// range keep the default.
	for s := Special(0); s < numSpecial; s++ {
		if ids[s] >= int32(n) {
			slog.Debug("tokenizer: default special token out of range, disabling", "role", s, "id", ids[s])
			ids[s] = -1
		}
		id, ok := v.IDs[s]
		if !ok {
			continue
		}
		if uint64(id) >= uint64(n) {
			slog.Warn("tokenizer: special token id out of range, using the default", "role", s, "id", id, "default", ids[s])
			continue
		}
		ids[s] = int32(id)
	}
	if v.AddBOS != nil {
		t.addBOS = *v.AddBOS
	}
	if t.model == BPE && t.preKind == preGemma4 {
		t.addBOS = true // llama.cpp's override for Gemma 4 files that say false (its PR 21500)
	}
	if v.AddEOS != nil {
		t.addEOS = *v.AddEOS
	}
	if v.AddSEP != nil {
		t.addSEP = *v.AddSEP
	}
	t.lowercase = true
	if v.Lowercase != nil {
		t.lowercase = *v.Lowercase
	}
	t.stripAccent = t.lowercase
	if v.StripAccents != nil {
		t.stripAccent = *v.StripAccents
	}

	if t.model == SPM || t.bpe != nil && t.bpe.raw {
		t.spmJoin = t.spmJoiners()
	}
	if t.model == SPM {
		t.spmBytes = t.spmByteTokens()
	}
	t.detectSpecials()
	t.buildSpecialCache()
	t.buildPieces()
	t.applyNameQuirks(v.Name, v.Pre, v.Architecture)
	return t, nil
}

// Special-token texts llama.cpp recognises when the metadata does not name
// the role, in llama.cpp's order.
var (
	eotTexts = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<end_of_turn>", "<|endoftext|>",
		"<|end_of_text|>", "<EOT>", "_<EOT>", "[EOT]", "<｜end▁of▁sentence｜>", "<end_of_utterance>"}
	eomTexts    = []string{"<|eom_id|>"}
	fimPreTexts = []string{"<|fim_prefix|>", "<fim-prefix>", "<fim_prefix>", "<｜fim▁begin｜>", "<PRE>",
		"▁<PRE>", "<|code_prefix|>", "<|prefix|>"}
	fimSufTexts = []string{"<|fim_suffix|>", "<fim-suffix>", "<fim_suffix>", "<｜fim▁hole｜>", "<SUF>",
		"▁<SUF>", "<|code_suffix|>", "<|suffix|>"}
	fimMidTexts = []string{"<|fim_middle|>", "<fim-middle>", "<fim_middle>", "<｜fim▁end｜>", "<MID>",
		"▁<MID>", "<|code_middle|>", "<|middle|>"}
	fimPadTexts = []string{"<|fim_pad|>", "<fim-pad>", "<fim_pad>", "<PAD>", "[PAD]"}
	fimRepTexts = []string{"<|fim_repo|>", "<|repo_name|>", "<fim-repo>", "<REPO>", "<reponame>"}
	fimSepTexts = []string{"<|file_sep|>"}
	eogTexts    = []string{"<|eot_id|>", "<|im_end|>", "<|end|>", "<|return|>", "<|call|>", "<|flush|>",
		"<|calls|>", "<end_of_turn>", "<|endoftext|>", "</s>", "<|eom_id|>", "<EOT>", "_<EOT>", "[EOT]",
		"[EOS]", "<|end_of_text|>", "<end_of_utterance>", "<eos>", "<turn|>", "<|tool_response>",
		"<｜end▁of▁sentence｜>", "[e~["}
)

// detectSpecials finds the EOT, EOM and FIM tokens by text when the metadata
// does not set them, marks unused control tokens and collects the
// end-of-generation set, following llama.cpp's loader.
//
// llama.cpp walks an unordered map, so when several texts could fill one
// role the one it picks is unspecified; here the first text of its list
// present in the vocabulary wins.
func (t *Tokenizer) detectSpecials() {
	setControl := func(id int32) {
		if t.tokens[id].attr&AttrControl == 0 {
			slog.Debug("tokenizer: control-looking token was not control-type; overriding", "id", id, "text", t.tokens[id].text)
			t.tokens[id].attr |= AttrControl
		}
	}
	find := func(role Special, texts []string) {
		if t.ids[role] >= 0 {
			return
		}
		for _, s := range texts {
			if id, ok := t.byText[s]; ok {
				t.ids[role] = id
				setControl(id)
				return
			}
		}
	}
	find(SpecialEOT, eotTexts)
	find(SpecialEOM, eomTexts)
	find(SpecialFIMPre, fimPreTexts)
	find(SpecialFIMSuf, fimSufTexts)
	find(SpecialFIMMid, fimMidTexts)
	find(SpecialFIMPad, fimPadTexts)
	find(SpecialFIMRep, fimRepTexts)
	find(SpecialFIMSep, fimSepTexts)

	for id := range t.tokens {
		d := &t.tokens[id]
		if d.attr&AttrControl != 0 && d.attr&AttrUnused == 0 && strings.Contains(d.text, "unused") {
			d.attr |= AttrUnused
		}
	}

	eog := map[int32]bool{}
	for _, s := range []Special{SpecialFIMPad, SpecialFIMRep, SpecialFIMSep} {
		if t.ids[s] >= 0 {
			eog[t.ids[s]] = true
		}
	}
	for _, s := range eogTexts {
		if id, ok := t.byText[s]; ok {
			eog[id] = true
			setControl(id)
		}
	}
	for _, s := range []string{"<|channel|>", "<|message|>", "<|start|>", "<|constrain|>"} {
		if id, ok := t.byText[s]; ok {
			t.tokens[id].attr = AttrUserDefined
		}
	}
	for _, s := range []Special{SpecialEOS, SpecialEOT, SpecialEOM} {
		if id := t.ids[s]; id >= 0 && !eog[id] {
			slog.Debug("tokenizer: special token is not in the end-of-generation set; adding it", "role", s, "id", id)
			eog[id] = true
		}
	}
	// gpt-oss and solar-open: "<|end|>" ends a message, not the generation.
	textIn := func(s string) (int32, bool) {
		for id := range eog {
			if t.tokens[id].text == s {
				return id, true
			}
		}
		return -1, false
	}
	_, hasReturn := textIn("<|return|>")
	_, hasCall := textIn("<|call|>")
	if !hasCall {
		_, hasCall = textIn("<|calls|>")
	}
	_, hasFlush := textIn("<|flush|>")
	if endID, hasEnd := textIn("<|end|>"); hasEnd && ((hasReturn && hasCall) || (hasCall && hasFlush)) {
		delete(eog, endID)
		t.tokens[endID].attr = AttrUserDefined
	}
	// gemma4 and paddleocr: "</s>" is not an end-of-generation token.
	if _, ok := textIn("<|tool_response>"); ok {
		if sID, ok := textIn("</s>"); ok {
			delete(eog, sID)
			t.tokens[sID].attr = AttrNormal
		}
	}
	t.eog = make([]int32, 0, len(eog))
	for id := range eog {
		t.eog = append(t.eog, id)
	}
	sort.Slice(t.eog, func(i, j int) bool { return t.eog[i] < t.eog[j] })
}

// buildSpecialCache lists the tokens that special-token parsing looks for,
// longest text first (ties by id; llama.cpp's order among equal lengths is
// unspecified).
func (t *Tokenizer) buildSpecialCache() {
	for id, d := range t.tokens {
		if d.attr&(AttrControl|AttrUserDefined|AttrUnknown) != 0 {
			t.specialCache = append(t.specialCache, int32(id))
		}
	}
	sort.SliceStable(t.specialCache, func(i, j int) bool {
		return len(t.tokens[t.specialCache[i]].text) > len(t.tokens[t.specialCache[j]].text)
	})
}

// applyNameQuirks sets the strip attributes llama.cpp sets by model name.
func (t *Tokenizer) applyNameQuirks(name, pre, arch string) {
	containsAny := func(s string, subs ...string) bool {
		for _, x := range subs {
			if strings.Contains(s, x) {
				return true
			}
		}
		return false
	}
	set := func(text string, a Attr, on bool) {
		id, ok := t.byText[text]
		if !ok {
			return
		}
		if on {
			t.tokens[id].attr |= a
		} else {
			t.tokens[id].attr &^= a
		}
	}
	name = asciiLower(name)
	switch {
	case containsAny(pre, "jina-v2-de", "jina-v2-es", "jina-v2-code") || containsAny(arch, "nomic-bert-moe", "jina-bert-v3"):
		set("<mask>", AttrLStrip, true)
	case containsAny(name, "phi-3", "phi3"):
		for _, id := range t.specialCache {
			t.tokens[id].attr |= AttrRStrip
		}
		set("</s>", AttrRStrip, true)
		for _, s := range []string{"<unk>", "<s>", "<|endoftext|>"} {
			set(s, AttrRStrip, false)
		}
	case containsAny(name, "modern-bert"):
		set("[MASK]", AttrLStrip, true)
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// Model returns the tokenization algorithm.
func (t *Tokenizer) Model() Model { return t.model }

// Pre returns the pre-tokenizer name (tokenizer.ggml.pre) as given, or
// "gemma4" for the gemma4 model, whose pre-tokenizer is fixed.
func (t *Tokenizer) Pre() string { return t.pre }

// NumTokens returns the vocabulary size.
func (t *Tokenizer) NumTokens() int { return len(t.tokens) }

// valid reports whether id is a token of the vocabulary.
func (t *Tokenizer) valid(id int32) bool { return id >= 0 && int(id) < len(t.tokens) }

// ID returns the id of special role s, or -1 when the vocabulary has none.
func (t *Tokenizer) ID(s Special) int32 {
	if s < 0 || s >= numSpecial {
		return -1
	}
	return t.ids[s]
}

// BOS returns the beginning-of-sequence token, or -1.
func (t *Tokenizer) BOS() int32 { return t.ids[SpecialBOS] }

// EOS returns the end-of-sequence token, or -1.
func (t *Tokenizer) EOS() int32 { return t.ids[SpecialEOS] }

// EOT returns the end-of-turn token, or -1.
func (t *Tokenizer) EOT() int32 { return t.ids[SpecialEOT] }

// UNK returns the unknown token, or -1.
func (t *Tokenizer) UNK() int32 { return t.ids[SpecialUNK] }

// SEP returns the separator token, or -1.
func (t *Tokenizer) SEP() int32 { return t.ids[SpecialSEP] }

// PAD returns the padding token, or -1.
func (t *Tokenizer) PAD() int32 { return t.ids[SpecialPAD] }

// AddBOS reports whether Encode with addSpecial adds BOS (SPM and BPE; WPM
// always adds its BOS/CLS and SEP).
func (t *Tokenizer) AddBOS() bool { return t.addBOS }

// AddEOS reports whether Encode with addSpecial adds EOS.
func (t *Tokenizer) AddEOS() bool { return t.addEOS }

// AddSEP reports the add_sep flag (used by embedding and reranking models).
func (t *Tokenizer) AddSEP() bool { return t.addSEP }

// AddSpacePrefix reports whether SPM text gets a leading space.
func (t *Tokenizer) AddSpacePrefix() bool { return t.addSpacePrefix }

// EOGs returns every token that ends generation, in increasing order.
func (t *Tokenizer) EOGs() []int32 { return append([]int32(nil), t.eog...) }

// IsEOG reports whether id ends generation.
func (t *Tokenizer) IsEOG(id int32) bool {
	i := sort.Search(len(t.eog), func(i int) bool { return t.eog[i] >= id })
	return i < len(t.eog) && t.eog[i] == id
}

// Text returns the token's text as stored in the vocabulary (with SPM's
// U+2581 for spaces, or GPT-2's byte alphabet), or "" for an invalid id.
func (t *Tokenizer) Text(id int32) string {
	if !t.valid(id) {
		return ""
	}
	return t.tokens[id].text
}

// Score returns the token's score, or 0 for an invalid id.
func (t *Tokenizer) Score(id int32) float32 {
	if !t.valid(id) {
		return 0
	}
	return t.tokens[id].score
}

// TokenType returns the token's type as loaded, or TypeUndefined for an
// invalid id.
func (t *Tokenizer) TokenType(id int32) TokenType {
	if !t.valid(id) {
		return TypeUndefined
	}
	return t.tokens[id].typ
}

// Attr returns the token's effective attributes, or AttrUndefined for an
// invalid id.
func (t *Tokenizer) Attr(id int32) Attr {
	if !t.valid(id) {
		return AttrUndefined
	}
	return t.tokens[id].attr
}

// IsControl reports whether id is a control token.
func (t *Tokenizer) IsControl(id int32) bool { return t.Attr(id)&AttrControl != 0 }

// IsUserDefined reports whether id is a user-defined token.
func (t *Tokenizer) IsUserDefined(id int32) bool { return t.Attr(id)&AttrUserDefined != 0 }

// IsByte reports whether id is a byte token (<0xNN>).
func (t *Tokenizer) IsByte(id int32) bool { return t.Attr(id)&AttrByte != 0 }

// IsUnused reports whether id is an unused token.
func (t *Tokenizer) IsUnused(id int32) bool { return t.Attr(id)&AttrUnused != 0 }

// IsNormal reports whether id is a normal token.
func (t *Tokenizer) IsNormal(id int32) bool { return t.Attr(id)&AttrNormal != 0 }

// IsUnknown reports whether id is the unknown token type.
func (t *Tokenizer) IsUnknown(id int32) bool { return t.Attr(id)&AttrUnknown != 0 }

// TokenID returns the id of the token with exactly this vocabulary text.
func (t *Tokenizer) TokenID(text string) (int32, bool) {
	id, ok := t.byText[text]
	return id, ok
}
