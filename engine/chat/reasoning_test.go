package chat

import (
	"os"
	"strings"
	"testing"

	"saji/engine/chat/internal/corpus"
	"saji/internal/refdata"
)

// The reasoning formats of the tests.
var (
	thinkTags   = ReasoningFormat{Start: "<think>", End: "</think>"}
	commandTags = ReasoningFormat{Start: "<|START_THINKING|>", End: "<|END_THINKING|>"}
	magistral   = ReasoningFormat{Start: "[THINK]", End: "[/THINK]"}
	harmonyFmt  = ReasoningFormat{Harmony: true}
)

// reasoningCases are replies of each format, after a prompt ending in
// prompt, with the answer and reasoning they split into.
var reasoningCases = []struct {
	name               string
	format             ReasoningFormat
	prompt, reply      string
	content, reasoning string
}{
	{"think block", thinkTags, "<|im_start|>assistant\n", "<think>\nLet me see.\n</think>\n\nIt is 4.", "It is 4.", "Let me see."},
	{"leading whitespace", thinkTags, "assistant\n", " \n<think>a b</think>c", "c", "a b"},
	{"no reasoning", thinkTags, "assistant\n", "  Just the answer. </think> stays", "  Just the answer. </think> stays", ""},
	{"empty block", thinkTags, "assistant\n", "<think>\n\n</think>\n\nHi", "Hi", ""},
	{"opened by the prompt", thinkTags, "<｜Assistant｜><think>\n", "Hmm, 2+2.\n</think>\n\n4", "4", "Hmm, 2+2."},
	{"opened, start repeated", thinkTags, "assistant\n<think>\n", "<think>\nHmm.</think>4", "4", "Hmm."},
	{"opened, start marker later", thinkTags, "assistant\n<think>\n", "a <think> b</think>c", "c", "a <think> b"},
	{"opened, never closed", thinkTags, "<think>\n", "still thinking  \n", "", "still thinking"},
	{"closed by the prompt", thinkTags, "<think>\n\n</think>\n\n", "Hi <think>", "Hi <think>", ""},
	{"closed by the prompt, block anyway", thinkTags, "<think>\n\n</think>\n\n", "<think>x</think>y", "y", "x"},
	{"never closed", thinkTags, "assistant\n", "<think>going on", "", "going on"},
	{"only whitespace", thinkTags, "assistant\n", " \n ", " \n ", ""},
	{"part of the start marker", thinkTags, "assistant\n", "<thi", "<thi", ""},
	{"end marker in pieces of text", thinkTags, "assistant\n", "<think>a </thin b </think> c", "c", "a </thin b"},
	{"inner whitespace kept", thinkTags, "assistant\n", "<think>one\n\ntwo  </think>  three\n", "three\n", "one\n\ntwo"},
	{"unicode", thinkTags, "assistant\n", "<think>é 東京</think>日本 ✓", "日本 ✓", "é 東京"},
	{"command-r7b", commandTags, "<|CHATBOT_TOKEN|><|START_THINKING|>", "Plan it.<|END_THINKING|><|START_RESPONSE|>Done.", "<|START_RESPONSE|>Done.", "Plan it."},
	{"command-r7b off", commandTags, "<|START_THINKING|><|END_THINKING|>", "Done.", "Done.", ""},
	{"magistral", magistral, "[/INST]", "[THINK]Hmm[/THINK]Yes", "Yes", "Hmm"},
	{"harmony", harmonyFmt, "<|start|>assistant", "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Ans", "Ans", "Think."},
	{"none", ReasoningFormat{}, "<think>", "<think>a</think>b", "<think>a</think>b", ""},
}

// splitStream feeds reply to a new splitter of f in pieces of n bytes and
// returns what it emits.
func splitStream(f ReasoningFormat, prompt, reply string, n int) (content, reasoning string) {
	s := f.NewSplitter(prompt)
	if s == nil {
		return reply, ""
	}
	var c, r strings.Builder
	for i := 0; i < len(reply); i += n {
		a, b := s.Add(reply[i:min(i+n, len(reply))])
		c.WriteString(a)
		r.WriteString(b)
	}
	a, b := s.Flush()
	return c.String() + a, r.String() + b
}

// TestSplitReasoning checks the split of whole replies, and that feeding
// each reply in pieces of every size from 1 byte to all of it, and in two
// pieces cut at every point, gives the same.
func TestSplitReasoning(t *testing.T) {
	for _, c := range reasoningCases {
		t.Run(c.name, func(t *testing.T) {
			content, reasoning, _ := SplitReasoning(c.format, c.prompt, c.reply)
			if content != c.content || reasoning != c.reasoning {
				t.Fatalf("whole: %q, %q; want %q, %q", content, reasoning, c.content, c.reasoning)
			}
			for n := 1; n <= len(c.reply); n++ {
				if a, b := splitStream(c.format, c.prompt, c.reply, n); a != c.content || b != c.reasoning {
					t.Fatalf("pieces of %d bytes: %q, %q", n, a, b)
				}
			}
			for i := range len(c.reply) + 1 {
				s := c.format.NewSplitter(c.prompt)
				if s == nil {
					continue
				}
				a1, b1 := s.Add(c.reply[:i])
				a2, b2 := s.Add(c.reply[i:])
				a3, b3 := s.Flush()
				if a1+a2+a3 != c.content || b1+b2+b3 != c.reasoning {
					t.Fatalf("cut at %d: %q, %q", i, a1+a2+a3, b1+b2+b3)
				}
			}
		})
	}
}

// TestTagSplitterStreams checks that the splitter emits reasoning and
// answer as they come, holding back only what may start the end marker or
// be whitespace the end would trim.
func TestTagSplitterStreams(t *testing.T) {
	s := thinkTags.NewSplitter("assistant\n<think>\n")
	for _, step := range []struct{ in, content, reasoning string }{
		{"\n", "", ""},
		{"Let me", "", "Let me"},
		{" think ", "", " think"},
		{"</th", "", ""},
		{"e", "", " </the"},
		{"n", "", "n"},
		{"</think>", "", ""},
		{"\n\n", "", ""},
		{"Four", "Four", ""},
		{" <think> ", " <think> ", ""},
	} {
		c, r := s.Add(step.in)
		if c != step.content || r != step.reasoning {
			t.Fatalf("after %q: %q, %q; want %q, %q", step.in, c, r, step.content, step.reasoning)
		}
	}
	if c, r := s.Flush(); c != "" || r != "" {
		t.Fatalf("Flush: %q, %q", c, r)
	}
}

// corpusTemplate parses the corpus's template name.
func corpusTemplate(t *testing.T, name string) *Template {
	t.Helper()
	src, err := os.ReadFile(refdata.Path(t, "templates/"+name+".jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := Parse(string(src))
	if err != nil {
		t.Fatal(err)
	}
	return tm
}

// TestTemplateReasoning checks the format found in real templates, and
// whether their generation prompt opens the reasoning (as rendered in the
// corpus, with enable_thinking where the case sets it).
func TestTemplateReasoning(t *testing.T) {
	for _, c := range []struct {
		file   string
		format ReasoningFormat
	}{
		{"Qwen-Qwen3-0.6B", thinkTags},
		{"Qwen-QwQ-32B", thinkTags},
		{"Qwen3.5-4B", thinkTags},
		{"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", thinkTags},
		{"deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", thinkTags},
		{"llama-cpp-deepseek-r1", thinkTags},
		{"deepseek-ai-DeepSeek-V3.1", thinkTags},
		{"HuggingFaceTB-SmolLM3-3B", thinkTags},
		{"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", thinkTags},
		{"Kimi-K2-Thinking", thinkTags},
		{"CohereForAI-c4ai-command-r7b-12-2024-tool_use", commandTags},
		{"Cohere2MoE", commandTags},
		{"mistralai-Ministral-3-14B-Reasoning-2512", magistral},
		{"google-gemma-4-31B-it", ReasoningFormat{Start: "<|channel>thought", End: "<channel|>"}},
		{"openai-gpt-oss-120b", harmonyFmt},
		{"Kimi-K3", ReasoningFormat{Start: "<|open|>think<|sep|>", End: "<|close|>think<|sep|>"}},
		{"tencent-Hy3", ReasoningFormat{Start: "<think:opensource>", End: "</think:opensource>"}},
		{"Qwen-Qwen2.5-7B-Instruct", ReasoningFormat{}},
		{"meta-llama-Llama-3.1-8B-Instruct", ReasoningFormat{}},
		{"LFM2.5-Instruct", ReasoningFormat{}}, // strips </think> from history, writes no block
	} {
		if got := corpusTemplate(t, c.file).Reasoning(); got != c.format {
			t.Errorf("%s: %v, want %v", c.file, got, c.format)
		}
	}
	if !ChatML().Reasoning().None() {
		t.Error("ChatML has a reasoning format")
	}
	for _, c := range []struct {
		prompt string
		opens  bool
	}{
		{"<|im_start|>assistant\n<think>\n", true},                // QwQ, R1 distills
		{"<｜Assistant｜><think>", true},                            // DeepSeek V3.1 thinking
		{"<|im_start|>assistant\n", false},                        // Qwen3 default
		{"<|im_start|>assistant\n<think>\n\n</think>\n\n", false}, // Qwen3 enable_thinking=false
		{"<think>\n</think>", false},                              // QwQ without thinking
	} {
		if got := thinkTags.Opens(c.prompt); got != c.opens {
			t.Errorf("Opens(%q) = %v", c.prompt, got)
		}
	}
	if !commandTags.Opens("<|CHATBOT_TOKEN|><|START_THINKING|>") || commandTags.Opens("<|START_THINKING|><|END_THINKING|>") {
		t.Error("Command-R7B's generation prompt")
	}
}

// TestGenerationPromptOpens checks, on the corpus's renderings of real
// templates for one user message, whether the generation prompt opens the
// reasoning (thinking on by default or by the variant's variable) or not
// (off, or closed in the prompt).
func TestGenerationPromptOpens(t *testing.T) {
	for _, c := range []struct {
		file  string
		opens map[string]bool // variant ("" the default): opens
	}{
		{"Qwen-Qwen3-0.6B", map[string]bool{"": false, "enable_thinking=true": false, "enable_thinking=false": false}},
		{"Qwen-QwQ-32B", map[string]bool{"": false, "enable_thinking=true": true}},
		{"deepseek-ai-DeepSeek-R1-Distill-Llama-8B", map[string]bool{"": true}},
		{"llama-cpp-deepseek-r1", map[string]bool{"": true}},
		{"deepseek-ai-DeepSeek-V3.1", map[string]bool{"": false, "enable_thinking=true": true, "thinking=true": true}},
		{"CohereForAI-c4ai-command-r7b-12-2024-tool_use", map[string]bool{"": false, "enable_thinking=true": false}},
		{"NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", map[string]bool{"": true, "enable_thinking=false": false}},
		{"google-gemma-4-31B-it", map[string]bool{"": false}},
		{"Kimi-K3", map[string]bool{"": true}},
		{"tencent-Hy3", map[string]bool{"": false, "reasoning_effort=low": true}},
		{"poolside-Laguna-XS.2", map[string]bool{"": false}},
	} {
		f := corpusTemplate(t, c.file).Reasoning()
		seen := 0
		for _, k := range corpus.Load(t, refdata.Path(t, "templates/"+c.file+".jsonl")) {
			variant, ok := strings.CutPrefix(k.ID, "single_user/gen=true")
			variant = strings.TrimPrefix(variant, "/")
			want, listed := c.opens[variant]
			if !ok || !listed || !k.HasOutput {
				continue
			}
			seen++
			if got := f.Opens(k.Output); got != want {
				t.Errorf("%s %s: opens %v, want %v (the prompt ends %q)", c.file, k.ID, got, want, k.Output[max(0, len(k.Output)-40):])
			}
		}
		if seen != len(c.opens) {
			t.Errorf("%s: %d of the %d variants are in the corpus", c.file, seen, len(c.opens))
		}
	}
}

// TestCapsThinking checks that Capabilities reports thinking where the
// template has a reasoning format.
func TestCapsThinking(t *testing.T) {
	for _, c := range []struct {
		src      string
		thinking bool
	}{
		{ChatMLSource, false},
		{`{% for m in messages %}{{ m.content }}{% endfor %}{% if add_generation_prompt %}<think>
{% endif %}{# </think> #}`, true},
		{`{% for m in messages %}<|start|>{{ m.role }}<|channel|>final<|message|>{{ m.content }}<|end|>{% endfor %}`, true},
	} {
		tm, err := Parse(c.src)
		if err != nil {
			t.Fatal(err)
		}
		caps, err := Capabilities(t.Context(), tm)
		if err != nil {
			t.Fatal(err)
		}
		if caps.Thinking != c.thinking {
			t.Errorf("%.40q: thinking %v, want %v", c.src, caps.Thinking, c.thinking)
		}
	}
}

// FuzzSplitReasoning checks that the tag splitter neither panics nor
// depends on how a reply is cut: two pieces at any point, and pieces of
// any size, give the split of the whole; the reasoning has no surrounding
// whitespace.
func FuzzSplitReasoning(f *testing.F) {
	for _, c := range reasoningCases {
		if !c.format.Harmony && !c.format.None() {
			f.Add(c.format.Start == "<think>", c.prompt, c.reply, uint(len(c.reply)/2), uint8(3))
		}
	}
	f.Fuzz(func(t *testing.T, think bool, prompt, reply string, cut uint, size uint8) {
		format := commandTags
		if think {
			format = thinkTags
		}
		content, reasoning, _ := SplitReasoning(format, prompt, reply)
		if reasoning != strings.TrimSpace(reasoning) {
			t.Fatalf("reasoning %q has whitespace around it", reasoning)
		}
		i := int(cut % uint(len(reply)+1))
		s := format.NewSplitter(prompt)
		a1, b1 := s.Add(reply[:i])
		a2, b2 := s.Add(reply[i:])
		a3, b3 := s.Flush()
		if a1+a2+a3 != content || b1+b2+b3 != reasoning {
			t.Fatalf("cut at %d: %q, %q; whole %q, %q", i, a1+a2+a3, b1+b2+b3, content, reasoning)
		}
		n := int(size)%16 + 1
		if a, b := splitStream(format, prompt, reply, n); a != content || b != reasoning {
			t.Fatalf("pieces of %d: %q, %q; whole %q, %q", n, a, b, content, reasoning)
		}
	})
}
