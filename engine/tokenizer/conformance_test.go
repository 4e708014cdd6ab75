package tokenizer

import (
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"saji/internal/refdata"
)

// vocabCache shares tokenizers between the tests of one run: path -> a
// sync.OnceValues loader, so that different vocabularies load in parallel.
var vocabCache sync.Map

// openRef opens the tokenizer of a GGUF file given by its path relative to
// the reference data, skipping when the data is absent.
func openRef(t testing.TB, rel string) *Tokenizer {
	t.Helper()
	path := refdata.Path(t, rel)
	load, _ := vocabCache.LoadOrStore(path, sync.OnceValues(func() (*Tokenizer, error) { return Open(path) }))
	tk, err := load.(func() (*Tokenizer, error))()
	if err != nil {
		t.Fatalf("open %s: %v", rel, err)
	}
	return tk
}

// tokVocab is the vocabulary part of a tokenizer record's model.
type tokVocab struct {
	NVocab int     `json:"n_vocab"`
	BOSID  int32   `json:"bos_id"`
	EOSID  int32   `json:"eos_id"`
	AddBOS bool    `json:"add_bos"`
	AddEOS bool    `json:"add_eos"`
	EOGIDs []int32 `json:"eog_ids"`
}

// tokCase is the part of a tokenizer record's case every schema shares.
type tokCase struct {
	ID                 string  `json:"id"`
	Plain              []int32 `json:"plain"`
	AddSpecial         []int32 `json:"add_special"`
	ParseSpecial       []int32 `json:"parse_special"`
	AddAndParseSpecial []int32 `json:"add_and_parse_special"`
	DetokPlainHex      string  `json:"detok_plain_hex"`
}

// tokFile is the schema of testdata/tokenizer/*.tok.json.
type tokFile struct {
	Model struct {
		Path           string `json:"path"`
		TokenizerModel string `json:"tokenizer_model"`
		TokenizerPre   string `json:"tokenizer_pre"`
		tokVocab
	} `json:"model"`
	Cases []struct {
		tokCase
		Text string `json:"text"`
	} `json:"cases"`
}

// checkVocab compares a tokenizer's size, special ids, flags and
// end-of-generation set with a record's.
func checkVocab(t *testing.T, tk *Tokenizer, m tokVocab) {
	t.Helper()
	if tk.NumTokens() != m.NVocab || tk.BOS() != m.BOSID || tk.EOS() != m.EOSID ||
		tk.AddBOS() != m.AddBOS || tk.AddEOS() != m.AddEOS {
		t.Errorf("vocab: n=%d bos=%d eos=%d add_bos=%v add_eos=%v, want %d %d %d %v %v",
			tk.NumTokens(), tk.BOS(), tk.EOS(), tk.AddBOS(), tk.AddEOS(),
			m.NVocab, m.BOSID, m.EOSID, m.AddBOS, m.AddEOS)
	}
	if !slices.Equal(tk.EOGs(), m.EOGIDs) {
		t.Errorf("eog ids %v, want %v", tk.EOGs(), m.EOGIDs)
	}
}

// checkCase encodes text in the four modes of llama_tokenize and
// detokenizes the plain ids, comparing with c; it returns the number of
// mismatches, reporting the first ones while *reported stays below 10.
func checkCase(t *testing.T, tk *Tokenizer, c tokCase, text string, reported *int) int {
	t.Helper()
	bad := 0
	report := func(format string, args ...any) {
		bad++
		if *reported++; *reported <= 10 {
			t.Errorf(format, args...)
		}
	}
	for _, md := range []struct {
		name         string
		add, special bool
		want         []int32
	}{
		{"plain", false, false, c.Plain},
		{"add_special", true, false, c.AddSpecial},
		{"parse_special", false, true, c.ParseSpecial},
		{"add_and_parse_special", true, true, c.AddAndParseSpecial},
	} {
		got := tk.Encode(text, md.add, md.special)
		if !slices.Equal(got, md.want) && !(len(got) == 0 && len(md.want) == 0) {
			report("%s %s %q: %s", c.ID, md.name, trim(text), idsDiff(got, md.want))
		}
	}
	detok, err := tk.Detokenize(c.Plain, false, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := hex.EncodeToString([]byte(detok)); got != c.DetokPlainHex {
		report("%s detok_plain %q: got %q, want hex %s", c.ID, trim(text), detok, c.DetokPlainHex)
	}
	return bad
}

func readJSON(t testing.TB, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// idsDiff describes the first difference between two id lists.
func idsDiff(got, want []int32) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	return fmt.Sprintf("first difference at %d of %d/%d\n got %v\nwant %v", i, len(got), len(want),
		got[max(0, i-3):min(len(got), i+8)], want[max(0, i-3):min(len(want), i+8)])
}

// TestConformanceTokJSON runs every case of testdata/tokenizer/*.tok.json in
// all four encoding modes and detokenizes the plain ids.
func TestConformanceTokJSON(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(refdata.Dir(t), "tokenizer", "*.tok.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no tokenizer files (%v)", err)
	}
	var mu sync.Mutex
	totalCases, totalChecks, totalBad := 0, 0, 0
	t.Run("vocab", func(t *testing.T) {
		for _, path := range files {
			name := strings.TrimSuffix(filepath.Base(path), ".tok.json")
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				var tf tokFile
				readJSON(t, path, &tf)
				tk := openRef(t, tf.Model.Path)
				checkVocab(t, tk, tf.Model.tokVocab)
				bad, reported := 0, 0
				for _, c := range tf.Cases {
					bad += checkCase(t, tk, c.tokCase, c.Text, &reported)
				}
				mu.Lock()
				totalCases += len(tf.Cases)
				totalChecks += 5 * len(tf.Cases)
				totalBad += bad
				mu.Unlock()
				t.Logf("%d cases x 5 checks, %d mismatches", len(tf.Cases), bad)
			})
		}
	})
	t.Logf("%d files, %d cases, %d checks (4 encode modes + detok_plain), %d mismatches",
		len(files), totalCases, totalChecks, totalBad)
}

func trim(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}

// TestConformanceInpOut runs llama.cpp's test-tokenizer-0 vectors
// (vocab/*.gguf.inp and .out): plain encoding, no special tokens.
func TestConformanceInpOut(t *testing.T) {
	inps, err := filepath.Glob(filepath.Join(refdata.Dir(t), "vocab", "*.gguf.inp"))
	if err != nil || len(inps) == 0 {
		t.Fatalf("no .inp files (%v)", err)
	}
	total, totalBad := 0, 0
	for _, inp := range inps {
		gguf := strings.TrimSuffix(filepath.Base(inp), ".inp")
		t.Run(strings.TrimSuffix(gguf, ".gguf"), func(t *testing.T) {
			tk := openRef(t, "vocab/"+gguf)
			in, err := os.ReadFile(inp)
			if err != nil {
				t.Fatal(err)
			}
			out, err := os.ReadFile(strings.TrimSuffix(inp, ".inp") + ".out")
			if err != nil {
				t.Fatal(err)
			}
			texts := strings.Split(string(in), "\n__ggml_vocab_test__\n")
			if len(texts) > 0 && texts[len(texts)-1] == "" {
				texts = texts[:len(texts)-1]
			}
			lines := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if len(lines) != len(texts) {
				t.Fatalf("%d texts, %d result lines", len(texts), len(lines))
			}
			bad := 0
			for i, text := range texts {
				var want []int32
				for _, f := range strings.Fields(lines[i]) {
					var id int32
					if _, err := fmt.Sscan(f, &id); err != nil {
						t.Fatalf("line %d: %v", i, err)
					}
					want = append(want, id)
				}
				got := tk.Encode(text, false, false)
				if !slices.Equal(got, want) && !(len(got) == 0 && len(want) == 0) {
					bad++
					t.Errorf("case %d %q: %s", i, trim(text), idsDiff(got, want))
				}
			}
			total += len(texts)
			totalBad += bad
			t.Logf("%d cases, %d mismatches", len(texts), bad)
		})
	}
	t.Logf("%d vocabularies, %d cases, %d mismatches", len(inps), total, totalBad)
}

// refModel is the part of testdata/ref/<model>.json the tokenizer checks.
type refModel struct {
	Model struct {
		Path     string `json:"path"`
		TokModel string `json:"tokenizer_model"`
		tokVocab
	} `json:"model"`
	Prompts []struct {
		ID        string   `json:"id"`
		Text      string   `json:"text"`
		Tokens    []int32  `json:"tokens"`
		PiecesHex []string `json:"token_pieces_hex"`
		Greedy    struct {
			Tokens    []int32  `json:"tokens"`
			PiecesHex []string `json:"pieces_hex"`
			TextHex   string   `json:"text_hex"`
		} `json:"greedy"`
	} `json:"prompts"`
}

// TestRefModels checks the vocabularies of the reference models against
// refdump's records: special ids, the end-of-generation set, prompt
// tokenization (add_special and parse_special on), token pieces
// (special on for prompts, off for generated tokens) and the detokenized
// greedy text.
func TestRefModels(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(refdata.Dir(t), "ref", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n, prompts := 0, 0
	for _, path := range files {
		if strings.HasSuffix(path, ".kvf16.json") {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(path), ".json"), func(t *testing.T) {
			var rm refModel
			readJSON(t, path, &rm)
			tk := openRef(t, rm.Model.Path)
			checkVocab(t, tk, rm.Model.tokVocab)
			prompts += len(rm.Prompts)
			for _, p := range rm.Prompts {
				if got := tk.Encode(p.Text, true, true); !slices.Equal(got, p.Tokens) {
					t.Errorf("%s: %s", p.ID, idsDiff(got, p.Tokens))
				}
				for i, id := range p.Tokens {
					if got := hex.EncodeToString([]byte(tk.TokenToPiece(id, true))); got != p.PiecesHex[i] {
						t.Errorf("%s: piece of %d = %s, want %s", p.ID, id, got, p.PiecesHex[i])
					}
				}
				for i, id := range p.Greedy.Tokens {
					if got := hex.EncodeToString([]byte(tk.TokenToPiece(id, false))); got != p.Greedy.PiecesHex[i] {
						t.Errorf("%s: greedy piece of %d = %s, want %s", p.ID, id, got, p.Greedy.PiecesHex[i])
					}
				}
				text, err := tk.Detokenize(p.Greedy.Tokens, false, false)
				if err != nil {
					t.Fatal(err)
				}
				if got := hex.EncodeToString([]byte(text)); got != p.Greedy.TextHex {
					t.Errorf("%s: greedy text %q, want hex %s", p.ID, text, p.Greedy.TextHex)
				}
			}
		})
	}
	t.Logf("%d reference models, %d prompts", n, prompts)
}

// openRefPath returns the path of a reference file, skipping when the data
// is absent.
func openRefPath(t testing.TB, rel string) string {
	t.Helper()
	return refdata.Path(t, rel)
}
