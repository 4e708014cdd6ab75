package tokenizer

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// mixedText generates about n bytes of varied text: English-like prose,
// Go-like code, numbers, Chinese, Japanese, Russian, Greek, emoji and runs
// of whitespace. It is generated (deterministically), not copied.
func mixedText(n int) string {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	english := strings.Fields("the a of and to in is was that it for on with as his he at by from they " +
		"this had not are but or have an were which one you all she there her would their we him been " +
		"has when who will more no if out so said what up its about into than them can only other new " +
		"some could time these two may then do first any my now such like our over man me even most made " +
		"after also did many before must through back years where much your way well down should because " +
		"each just those people Mr how too little state good very make world still own see men work long " +
		"get here between both life being under never day same another know while last might us great old " +
		"year off come since against go came right used take three tokenizer model inference llama Saji " +
		"don't isn't we're they've I'll she'd it's HELLO World Über naïve café résumé")
	chinese := []string{"我们", "今天", "天气", "很好", "模型", "推理", "中文", "分词器", "测试", "的", "是", "了", "在", "人工智能", "语言"}
	japanese := []string{"こんにちは", "東京", "カタカナ", "ひらがな", "日本語", "です", "ます", "トークン"}
	russian := strings.Fields("привет мир модель токенизатор быстро медленно Москва язык текст данные")
	greek := strings.Fields("Ελληνικά καλημέρα κόσμε λέξη")
	emoji := []string{"🦙", "🚀", "😀", "👍🏽", "😶‍🌫️", "✅", "🔥", "🇯🇵", "👨‍👩‍👧"}
	code := []string{
		"func (t *Tokenizer) Encode(text string) []int32 {\n\treturn nil\n}\n",
		"for i := 0; i < len(xs); i++ {\n\tsum += xs[i] * 2\n}\n",
		"if err != nil {\n\t\treturn fmt.Errorf(\"open %s: %w\", path, err)\n\t}\n",
		"def fib(n):\n    return n if n < 2 else fib(n-1) + fib(n-2)\n",
		"<div class=\"row\"><span>{{ .Name }}</span></div>\n",
		"SELECT id, name FROM users WHERE age >= 21 ORDER BY name;\n",
		"const x = {a: 1, b: [2, 3], c: 'str'}; // comment\n",
	}
	spaces := []string{" ", "  ", "   ", "\t", "\n", "\n\n", "    ", "\r\n", " \n ", "        "}
	var b strings.Builder
	for b.Len() < n {
		switch k := r.IntN(100); {
		case k < 55:
			for range 5 + r.IntN(15) {
				b.WriteString(pick(english))
				b.WriteByte(' ')
			}
			b.WriteString(pick([]string{". ", ", ", "! ", "? ", ": ", ";\n"}))
		case k < 65:
			b.WriteString(pick(code))
		case k < 72:
			fmt.Fprintf(&b, "%d %d.%02d %x %d,%03d ", r.IntN(100000), r.IntN(1000), r.IntN(100), r.Uint32(), r.IntN(1000), r.IntN(1000))
		case k < 79:
			for range 3 + r.IntN(8) {
				b.WriteString(pick(chinese))
			}
			b.WriteString("。")
		case k < 83:
			for range 2 + r.IntN(5) {
				b.WriteString(pick(japanese))
			}
			b.WriteString("、")
		case k < 89:
			for range 3 + r.IntN(8) {
				b.WriteString(pick(russian))
				b.WriteByte(' ')
			}
		case k < 91:
			b.WriteString(pick(greek))
			b.WriteByte(' ')
		case k < 95:
			b.WriteString(pick(emoji))
			b.WriteString(pick(emoji))
			b.WriteByte(' ')
		default:
			b.WriteString(pick(spaces))
		}
	}
	return b.String()
}

func benchEncode(b *testing.B, rel string) { benchEncodeWith(b, openRef(b, rel)) }

// benchEncodeWith encodes 1 MiB of mixed text with tk.
func benchEncodeWith(b *testing.B, tk *Tokenizer) {
	text := mixedText(1 << 20)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	b.ResetTimer()
	n := 0
	for b.Loop() {
		n = len(tk.Encode(text, false, false))
	}
	b.ReportMetric(float64(len(text))/float64(n), "bytes/token")
}

// BenchmarkEncodeLlama3 encodes 1 MiB of mixed text with the full Llama-3
// vocabulary (128256 tokens, 280147 merges).
func BenchmarkEncodeLlama3(b *testing.B) { benchEncode(b, "vocab/llama3-bpe-full.gguf") }

// BenchmarkEncodeSPM encodes 1 MiB of mixed text with the Llama-2 SPM
// vocabulary (32000 tokens).
func BenchmarkEncodeSPM(b *testing.B) { benchEncode(b, "vocab/ggml-vocab-llama-spm.gguf") }

// BenchmarkEncodeGemma4 encodes 1 MiB of mixed text with the full-size
// vocabulary of Gemma 4's kind derived from Llama 3's (raw UTF-8 BPE,
// whole lines as words).
func BenchmarkEncodeGemma4(b *testing.B) { benchEncodeWith(b, openDerivedGemma4(b)) }

// BenchmarkDetokenizeLlama3 decodes the tokens of 1 MiB of mixed text.
func BenchmarkDetokenizeLlama3(b *testing.B) {
	tk := openRef(b, "vocab/llama3-bpe-full.gguf")
	text := mixedText(1 << 20)
	ids := tk.Encode(text, false, false)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := tk.Detokenize(ids, false, false); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadLlama3 builds the full Llama-3 tokenizer from its GGUF file.
func BenchmarkLoadLlama3(b *testing.B) {
	path := openRefPath(b, "vocab/llama3-bpe-full.gguf")
	for b.Loop() {
		if _, err := Open(path); err != nil {
			b.Fatal(err)
		}
	}
}
