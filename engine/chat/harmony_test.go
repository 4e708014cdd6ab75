package chat

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"saji/engine/chat/internal/corpus"
	"saji/internal/refdata"
)

// harmonySystem is what gpt-oss's template writes first, at the corpus's
// clock, for a reasoning effort.
func harmonySystem(effort string) string {
	return "<|start|>system<|message|>You are ChatGPT, a large language model trained by OpenAI.\n" +
		"Knowledge cutoff: 2024-06\nCurrent date: 2026-01-15\n\nReasoning: " + effort + "\n\n" +
		"# Valid channels: analysis, commentary, final. Channel must be included for every message.<|end|>"
}

// TestHarmonyTemplate renders gpt-oss's template (the corpus's copy of
// openai-gpt-oss-120b.jinja) as llama.cpp does, whose gpt-oss handler
// passes an assistant turn's reasoning as thinking and drops the content
// of a turn that calls tools and has reasoning. The goldens were written
// by reading the template: the system message (its reasoning effort,
// medium when not passed), the first system message as the developer's
// instructions, earlier assistant turns' final channel only, the last
// assistant turn's analysis when no generation prompt follows, a tool
// call's analysis, its call in the commentary channel and the tool's
// answer as JSON.
func TestHarmonyTemplate(t *testing.T) {
	src, err := os.ReadFile(refdata.Path(t, "templates/openai-gpt-oss-120b.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	tm, err := ParseWithOptions(string(src), Options{Now: corpus.FixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if !tm.Harmony() || ChatML().Harmony() {
		t.Fatal("Harmony does not tell gpt-oss's template from ChatML")
	}
	chat := []Message{
		{Role: "system", Content: "Be brief."},
		{Role: "user", Content: "Hi"},
		{Role: "assistant", Content: "Hello!", ReasoningContent: "A greeting."},
		{Role: "user", Content: "2+2?"},
	}
	const chatBody = "<|start|>developer<|message|># Instructions\n\nBe brief.\n\n<|end|>" +
		"<|start|>user<|message|>Hi<|end|><|start|>assistant<|channel|>final<|message|>Hello!<|end|>" +
		"<|start|>user<|message|>2+2?<|end|>"
	call := []Message{
		{Role: "user", Content: "Weather in Paris?"},
		{Role: "assistant", Content: "ignored", ReasoningContent: "Need the weather.",
			ToolCalls: []ToolCall{{ID: "c1", Name: "get_weather", Arguments: json.RawMessage(`{"city": "Paris"}`)}}},
		{Role: "tool", ToolCallID: "c1", Content: "18C"},
	}
	for _, c := range []struct {
		name  string
		msgs  []Message
		gen   bool
		extra map[string]any
		want  string
	}{
		{"chat", chat, true, nil, harmonySystem("medium") + chatBody + "<|start|>assistant"},
		{"chat effort high", chat, true, map[string]any{"reasoning_effort": "high"}, harmonySystem("high") + chatBody + "<|start|>assistant"},
		{"chat effort low", chat, true, map[string]any{"reasoning_effort": "low"}, harmonySystem("low") + chatBody + "<|start|>assistant"},
		{"last assistant turn", chat[:3], false, nil, harmonySystem("medium") +
			"<|start|>developer<|message|># Instructions\n\nBe brief.\n\n<|end|><|start|>user<|message|>Hi<|end|>" +
			"<|start|>assistant<|channel|>analysis<|message|>A greeting.<|end|>" +
			"<|start|>assistant<|channel|>final<|message|>Hello!<|return|>"},
		{"tool call", call, true, nil, harmonySystem("medium") +
			"<|start|>user<|message|>Weather in Paris?<|end|>" +
			"<|start|>assistant<|channel|>analysis<|message|>Need the weather.<|end|>" +
			"<|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\": \"Paris\"}<|call|>" +
			"<|start|>functions.get_weather to=assistant<|channel|>commentary<|message|>\"18C\"<|end|><|start|>assistant"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := tm.RenderMessages(context.Background(), Request{Messages: c.msgs, AddGenerationPrompt: c.gen, Extra: c.extra,
				BOSToken: "<|startoftext|>", EOSToken: "<|return|>"})
			if err != nil {
				t.Fatal(err)
			}
			if got != c.want {
				t.Errorf("rendered\n%q\nwant\n%q", got, c.want)
			}
		})
	}
}

// harmonyCases are replies and the answer, reasoning and tool calls
// (name(arguments), in order) they hold.
var harmonyCases = []struct {
	name, reply        string
	content, reasoning string
	calls              []string
}{
	{"analysis then final", "<|channel|>analysis<|message|>Think.<|end|><|start|>assistant<|channel|>final<|message|>Answer.<|return|>", "Answer.", "Think.", nil},
	{"final only", "<|channel|>final<|message|>Hi there", "Hi there", "", nil},
	{"no end rendered", "<|channel|>analysis<|message|>T<|start|>assistant<|channel|>final<|message|>A", "A", "T", nil},
	{"analysis only, cut", "<|channel|>analysis<|message|>Thinking about", "", "Thinking about", nil},
	{"preamble", "<|channel|>commentary<|message|>Let me check. <|end|><|start|>assistant<|channel|>final<|message|>Done.", "Let me check. Done.", "", nil},
	{"tool call", "<|channel|>analysis<|message|>Need weather.<|end|><|start|>assistant to=functions.get_weather<|channel|>commentary json<|message|>{\"city\":\"Paris\"}<|call|>",
		"", "Need weather.", []string{`get_weather({"city":"Paris"})`}},
	{"tool call in channel, cut", "<|channel|>commentary to=functions.x <|constrain|>json<|message|>{}", "", "", []string{"x({})"}},
	{"two calls", "<|start|>assistant to=functions.a<|channel|>commentary<|message|>{\"n\":1}<|call|><|start|>assistant to=functions.b<|channel|>commentary<|message|>{}<|call|>",
		"", "", []string{`a({"n":1})`, "b({})"}},
	{"built-in tool", "<|channel|>analysis<|message|>Search.<|end|><|start|>assistant to=browser.search<|channel|>commentary<|message|>{\"q\":\"x\"}<|call|>", "", "Search.", nil},
	{"stray commentary", "<|channel|>commentary<|channel|>analysis<|message|>T<|end|><|start|>assistant<|channel|>final<|message|>A<|end|>", "A", "T", nil},
	{"angle brackets in text", "<|channel|>final<|message|>a < b, <| and <|x|> stay", "a < b, <| and <|x|> stay", "", nil},
	{"marker prefix at the end", "<|channel|>final<|message|>x <|en", "x <|en", "", nil},
	{"plain", "Just text, no markers.", "Just text, no markers.", "", nil},
	{"header too long", strings.Repeat("x", 300) + "<|message|>y", strings.Repeat("x", 300) + "<|message|>y", "", nil},
	{"trailing header", "<|channel|>final<|message|>A<|end|><|start|>assistant", "A", "", nil},
	{"empty", "", "", "", nil},
	{"unicode", "<|channel|>analysis<|message|>思考<|end|><|start|>assistant<|channel|>final<|message|>答え 😊", "答え 😊", "思考", nil},
}

// harmonyStream feeds a reply to a Harmony in the given pieces and returns
// the concatenated answer and reasoning, and its calls.
func harmonyStream(pieces []string) (content, reasoning string, calls []ToolCall) {
	var h Harmony
	var c, r strings.Builder
	for _, p := range pieces {
		a, b := h.Add(p)
		c.WriteString(a)
		r.WriteString(b)
	}
	a, b := h.Flush()
	return c.String() + a, r.String() + b, h.Calls()
}

// callStrings writes each call as name(arguments), checking its type and
// ID.
func callStrings(t *testing.T, calls []ToolCall) []string {
	t.Helper()
	var s []string
	for _, c := range calls {
		if c.Type != "function" || !strings.HasPrefix(c.ID, "call_") {
			t.Errorf("call %+v: type or ID", c)
		}
		s = append(s, fmt.Sprintf("%s(%s)", c.Name, c.Arguments))
	}
	return s
}

// TestHarmony checks ParseHarmony on whole replies, and the streaming
// splitter on every split of each reply into two pieces (markers split
// across them) and on one byte at a time.
func TestHarmony(t *testing.T) {
	for _, c := range harmonyCases {
		t.Run(c.name, func(t *testing.T) {
			content, reasoning, calls := ParseHarmony(c.reply)
			if content != c.content || reasoning != c.reasoning || !slices.Equal(callStrings(t, calls), c.calls) {
				t.Fatalf("ParseHarmony: %q, %q, %q; want %q, %q, %q", content, reasoning, callStrings(t, calls), c.content, c.reasoning, c.calls)
			}
			for i := range len(c.reply) + 1 {
				a, b, calls := harmonyStream([]string{c.reply[:i], c.reply[i:]})
				if a != c.content || b != c.reasoning || !slices.Equal(callStrings(t, calls), c.calls) {
					t.Fatalf("split at %d: %q, %q, %q", i, a, b, callStrings(t, calls))
				}
			}
			bytes := make([]string, len(c.reply))
			for i := range len(c.reply) {
				bytes[i] = c.reply[i : i+1]
			}
			if a, b, calls := harmonyStream(bytes); a != c.content || b != c.reasoning || !slices.Equal(callStrings(t, calls), c.calls) {
				t.Fatalf("byte by byte: %q, %q, %q", a, b, callStrings(t, calls))
			}
		})
	}
}

// TestHarmonyHoldsOnlyMarkers checks that the splitter emits a message's
// text at once, except an end that may start a marker.
func TestHarmonyHoldsOnlyMarkers(t *testing.T) {
	var h Harmony
	for _, s := range []struct{ in, content, reasoning string }{
		{"<|channel|>analysis<|mess", "", ""},
		{"age|>Let me think", "", "Let me think"},
		{" about it<", "", " about it"},
		{"|e", "", ""},
		{"nd|><|start|>assistant<|channel|>final<|message|>It is", "It is", ""},
		{" 4 <", " 4 ", ""},
		{"b>", "<b>", ""},
	} {
		c, r := h.Add(s.in)
		if c != s.content || r != s.reasoning {
			t.Fatalf("after %q: %q, %q; want %q, %q", s.in, c, r, s.content, s.reasoning)
		}
	}
}

// FuzzHarmony checks that the splitter neither panics nor depends on how
// the reply is split: two pieces at any point, and one byte at a time,
// give the answer, reasoning and calls ParseHarmony gives for the whole.
func FuzzHarmony(f *testing.F) {
	for _, c := range harmonyCases {
		f.Add(c.reply, uint(len(c.reply)/2))
	}
	f.Fuzz(func(t *testing.T, reply string, split uint) {
		content, reasoning, calls := ParseHarmony(reply)
		whole := callStrings(t, calls)
		i := int(split % uint(len(reply)+1))
		if a, b, calls := harmonyStream([]string{reply[:i], reply[i:]}); a != content || b != reasoning || !slices.Equal(callStrings(t, calls), whole) {
			t.Fatalf("split at %d: %q, %q, %q; whole %q, %q, %q", i, a, b, callStrings(t, calls), content, reasoning, whole)
		}
		bytes := make([]string, len(reply))
		for i := range len(reply) {
			bytes[i] = reply[i : i+1]
		}
		if a, b, calls := harmonyStream(bytes); a != content || b != reasoning || !slices.Equal(callStrings(t, calls), whole) {
			t.Fatalf("byte by byte: %q, %q, %q; whole %q, %q, %q", a, b, callStrings(t, calls), content, reasoning, whole)
		}
	})
}
