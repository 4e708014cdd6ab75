package loadtest

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strings"
	"unicode/utf8"
)

// Tokenizer is what a workload needs of a vocabulary to build prompts of
// an exact length and count prompt tokens; *tokenizer.Tokenizer has it.
type Tokenizer interface {
	// Encode returns the tokens of text.
	Encode(text string, addSpecial, parseSpecial bool) []int32
	// Detokenize returns the text of tokens.
	Detokenize(ids []int32, removeSpecial, unparseSpecial bool) (string, error)
	// NumTokens returns the vocabulary size.
	NumTokens() int
	// IsNormal reports whether id is an ordinary text token.
	IsNormal(id int32) bool
	// TokenToPiece returns the bytes of token id.
	TokenToPiece(id int32, special bool) string
}

// Synthetic describes a workload of random prompts.
type Synthetic struct {
	// Requests is the number of prompts.
	Requests int
	// PromptLen is each prompt's own length in tokens, after the shared
	// prefix.
	PromptLen int
	// SharedPrefix is the length in tokens of a prefix every prompt starts
	// with (a fixed "system prompt"); 0 for none.
	SharedPrefix int
	// OutputLen is the number of tokens each request generates.
	OutputLen int
	// Seed makes the prompts repeatable.
	Seed uint64
	// Tokenizer, when set, makes the lengths exact: the prompts are random
	// vocabulary tokens whose text encodes to exactly SharedPrefix+PromptLen
	// tokens (without BOS or other special tokens). Without one the prompts
	// are random common English words, about one token each, and the
	// lengths are approximate.
	Tokenizer Tokenizer
}

// Build returns the workload's items. With a tokenizer, each item's
// PromptTokens is its encoded length, which is SharedPrefix+PromptLen
// unless the vocabulary made that length unreachable.
func (s Synthetic) Build() ([]Item, error) {
	if s.Requests < 0 || s.PromptLen < 0 || s.SharedPrefix < 0 || s.OutputLen < 1 {
		return nil, fmt.Errorf("loadtest: want requests ≥ 0, prompt and prefix lengths ≥ 0 and an output length ≥ 1 (have %d, %d, %d, %d)",
			s.Requests, s.PromptLen, s.SharedPrefix, s.OutputLen)
	}
	if s.PromptLen+s.SharedPrefix == 0 {
		return nil, errors.New("loadtest: the prompt length is 0")
	}
	rng := rand.New(rand.NewPCG(s.Seed, 0x6c6f6164))
	items := make([]Item, s.Requests)
	if s.Tokenizer == nil {
		prefix, _ := SharedPrefixText(s.SharedPrefix, s.Seed, nil)
		for i := range items {
			p := randomWords(rng, s.PromptLen)
			if prefix != "" && p != "" {
				p = prefix + " " + p
			} else if prefix != "" {
				p = prefix
			}
			items[i] = Item{Prompt: p, OutputLen: s.OutputLen}
		}
		return items, nil
	}
	ids := textTokens(s.Tokenizer)
	if len(ids) == 0 {
		return nil, errors.New("loadtest: the vocabulary has no ordinary text tokens to build prompts from")
	}
	prefix, err := SharedPrefixText(s.SharedPrefix, s.Seed, s.Tokenizer)
	if err != nil {
		return nil, err
	}
	b := promptBuilder{tk: s.Tokenizer, ids: ids, rng: rng}
	for i := range items {
		p, n := b.fit(prefix, s.SharedPrefix+s.PromptLen)
		if n == 0 {
			return nil, errors.New("loadtest: could not build a prompt from the vocabulary's tokens")
		}
		items[i] = Item{Prompt: p, PromptTokens: n, OutputLen: s.OutputLen}
	}
	return items, nil
}

// SharedPrefixText returns the shared prefix of a workload: text of the
// given length in tokens (exact with a tokenizer, approximate without, as
// in Synthetic), the same for the same seed. Synthetic workloads use it; a
// dataset workload can pass it as DatasetOptions.SharedPrefix.
func SharedPrefixText(tokens int, seed uint64, tk Tokenizer) (string, error) {
	if tokens <= 0 {
		return "", nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x707265666978))
	if tk == nil {
		return randomWords(rng, tokens), nil
	}
	ids := textTokens(tk)
	if len(ids) == 0 {
		return "", errors.New("loadtest: the vocabulary has no ordinary text tokens to build prompts from")
	}
	b := promptBuilder{tk: tk, ids: ids, rng: rng}
	p, _ := b.fit("", tokens)
	return p, nil
}

// textTokens returns the vocabulary's ordinary tokens whose piece is
// non-empty, valid UTF-8 text without control characters.
func textTokens(tk Tokenizer) []int32 {
	var ids []int32
	for id := range int32(tk.NumTokens()) {
		if !tk.IsNormal(id) {
			continue
		}
		p := tk.TokenToPiece(id, false)
		if strings.TrimSpace(p) == "" || !utf8.ValidString(p) || strings.ContainsFunc(p, isControl) {
			continue
		}
		ids = append(ids, id)
	}
	return ids
}

// isControl reports whether r is a control character (newlines included).
func isControl(r rune) bool { return r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0 }

// promptBuilder makes texts of an exact token count from random tokens.
type promptBuilder struct {
	tk  Tokenizer
	ids []int32
	rng *rand.Rand
}

// fitRounds bounds the adjustments fit makes before it settles.
const fitRounds = 64

// fit returns prefix followed by random text such that the whole encodes
// to want tokens, and its encoded length: it decodes random tokens,
// re-encodes the text, and adds or drops tokens until the count is right
// (or, after fitRounds tries, is the closest it found).
func (b *promptBuilder) fit(prefix string, want int) (string, int) {
	count := func(s string) int { return len(b.tk.Encode(s, false, false)) }
	base := count(prefix)
	if want <= base {
		return prefix, base
	}
	var toks []int32
	for range want - base {
		toks = append(toks, b.ids[b.rng.IntN(len(b.ids))])
	}
	bestText, bestN := prefix, base
	for range fitRounds {
		text, err := b.tk.Detokenize(toks, false, false)
		if err != nil {
			break
		}
		if prefix != "" && text != "" && !strings.HasPrefix(text, " ") {
			text = " " + text
		}
		full := prefix + text
		n := count(full)
		if abs(n-want) < abs(bestN-want) {
			bestText, bestN = full, n
		}
		switch {
		case n == want:
			return full, n
		case n > want:
			// Scale by the tokens per random token seen, so that a
			// vocabulary whose pieces re-encode to several tokens
			// converges instead of dropping everything.
			drop := max(1, (n-want)*len(toks)/max(1, n-base))
			toks = toks[:len(toks)-min(drop, len(toks))]
		default:
			add := want - n
			if len(toks) > 0 && n > base {
				add = max(1, add*len(toks)/(n-base))
			}
			for range add {
				toks = append(toks, b.ids[b.rng.IntN(len(b.ids))])
			}
		}
	}
	return bestText, bestN
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// randomWords returns n random common words separated by spaces.
func randomWords(rng *rand.Rand, n int) string {
	words := strings.Fields(commonWords)
	var sb strings.Builder
	for i := range n {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(words[rng.IntN(len(words))])
	}
	return sb.String()
}

// commonWords are frequent English words, each one token in the common
// vocabularies when it follows a space.
const commonWords = `the of and to in is that for it as was with be by on not he this are or his from at which but have
an they you were her she there been one all we their has would when if so no will more can who its
what some into them only time than other two then may new these about any after like first also made
over such many most where through back years way well much before good long great little own old
right big high small large next early young important few public bad same able people world life day
hand part child eye woman place work week case point government company number group problem fact
water room mother area money story month lot study book job word business issue side kind head house
service friend father power hour game line end member law car city name team minute idea body
information school face others level office door health person art war history party result change
morning reason research girl guy moment air teacher force education foot boy age policy music market
sense nation plan college interest death experience effect use class control care field development
role effort rate heart drug show leader light voice wife police mind price report decision son view
relationship town road arm difference value building action model season society tax director
position player record paper space ground form event official matter center couple site project
activity star table need court oil situation cost industry figure street image phone data picture
practice piece land product doctor wall patient worker news test movie north love support technology
step baby computer type attention film tree source organization hair window evidence population
training color election answer question simple open clear green river`

// DatasetOptions says how ReadDataset fills in and counts its items.
type DatasetOptions struct {
	// OutputLen is the output length of lines without "output_len".
	OutputLen int
	// SharedPrefix, when not "", starts every prompt (followed by a space).
	SharedPrefix string
	// Tokenizer, when set, counts each prompt's tokens.
	Tokenizer Tokenizer
}

// datasetLine is one line of a dataset file.
type datasetLine struct {
	Prompt    *string `json:"prompt"`
	OutputLen *int    `json:"output_len"`
}

// maxDatasetLine is the longest line a dataset may have.
const maxDatasetLine = 64 << 20

// ReadDataset reads a JSON Lines workload: one object per line,
// {"prompt": "...", "output_len": 128}, output_len optional, other fields
// ignored. Blank lines are skipped. name is the file's name for error messages, which give the
// line number.
func ReadDataset(r io.Reader, name string, opts DatasetOptions) ([]Item, error) {
	if opts.OutputLen < 1 {
		return nil, fmt.Errorf("loadtest: the default output length is %d, want ≥ 1", opts.OutputLen)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxDatasetLine)
	var items []Item
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		var dl datasetLine
		dec := json.NewDecoder(strings.NewReader(line))
		if err := dec.Decode(&dl); err != nil {
			return nil, fmt.Errorf("loadtest: %s:%d: %w", name, n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("loadtest: %s:%d: more than one JSON value on the line", name, n)
		}
		if dl.Prompt == nil || *dl.Prompt == "" {
			return nil, fmt.Errorf("loadtest: %s:%d: no \"prompt\"", name, n)
		}
		out := opts.OutputLen
		if dl.OutputLen != nil {
			if *dl.OutputLen < 1 {
				return nil, fmt.Errorf("loadtest: %s:%d: output_len %d, want ≥ 1", name, n, *dl.OutputLen)
			}
			out = *dl.OutputLen
		}
		p := *dl.Prompt
		if opts.SharedPrefix != "" {
			p = opts.SharedPrefix + " " + p
		}
		it := Item{Prompt: p, OutputLen: out}
		if opts.Tokenizer != nil {
			it.PromptTokens = len(opts.Tokenizer.Encode(p, false, false))
		}
		items = append(items, it)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("loadtest: %s: a line is longer than %d bytes", name, maxDatasetLine)
		}
		return nil, fmt.Errorf("loadtest: reading %s: %w", name, err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("loadtest: %s has no prompts", name)
	}
	return items, nil
}

// ReadDatasetFile reads the JSON Lines workload in the file at path; see
// ReadDataset.
func ReadDatasetFile(path string, opts DatasetOptions) ([]Item, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("loadtest: %w", err)
	}
	defer f.Close()
	return ReadDataset(f, path, opts)
}

// Repeat returns n items taken from items in order, starting over at the
// beginning when there are fewer than n.
func Repeat(items []Item, n int) []Item {
	if len(items) == 0 {
		return nil
	}
	out := make([]Item, n)
	for i := range out {
		out[i] = items[i%len(items)]
	}
	return out
}
