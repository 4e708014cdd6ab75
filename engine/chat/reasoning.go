package chat

import (
	"strings"
	"unicode"
)

// Reasoning models write their thinking before the answer, between two
// markers that the template names: Qwen3, QwQ, DeepSeek-R1 and its
// distills, SmolLM3, GLM 4.5 and most others "<think>...</think>",
// Command-R7B "<|START_THINKING|>...<|END_THINKING|>", Magistral
// "[THINK]...[/THINK]", Gemma 4 "<|channel>thought...<channel|>", Kimi K3
// and Hunyuan 3 theirs; gpt-oss
// writes harmony channels instead (see Harmony). Many templates open the
// block in the generation prompt ("<think>\n" ends a DeepSeek-R1 distill's
// prompt), so that the reply starts inside it and has only the closing
// marker. A Splitter separates the reasoning from the answer as the reply
// streams, as llama.cpp's chat parsers and Ollama's thinking parser do:
// whitespace around the reasoning and before the answer is dropped.

// ReasoningFormat is how a template's model marks the reasoning in its
// replies. The zero ReasoningFormat is none: the reply is all answer.
type ReasoningFormat struct {
	// Harmony: the reply is harmony messages (gpt-oss), split by
	// Harmony; Start and End are empty.
	Harmony bool
	// Start and End are the markers around the reasoning.
	Start, End string
}

// reasoningTags are the marker pairs Template.Reasoning knows, each
// detected by a sign in the template's source, in the order they are
// tried (as llama.cpp's common/chat.cpp detects its formats).
var reasoningTags = []struct {
	sign       []string // all in the source
	start, end string
}{
	{[]string{"<|START_THINKING|>", "<|END_THINKING|>"}, "<|START_THINKING|>", "<|END_THINKING|>"},                   // Command-R7B, Command A
	{[]string{"[THINK]", "[/THINK]"}, "[THINK]", "[/THINK]"},                                                         // Magistral, Ministral reasoning
	{[]string{"<|channel>", "<channel|>"}, "<|channel>thought", "<channel|>"},                                        // Gemma 4
	{[]string{"'<|open|>' + tag", "'<|close|>' + tag + '<|sep|>'"}, "<|open|>think<|sep|>", "<|close|>think<|sep|>"}, // Kimi K3
	{[]string{"HYTK = ':opensource'", "'<think{}>'.format(HYTK)"}, "<think:opensource>", "</think:opensource>"},      // Hunyuan 3
	{[]string{"<think>", "</think>"}, "<think>", "</think>"},                                                         // Qwen3, DeepSeek-R1, SmolLM3, GLM ...
}

// Reasoning returns the reasoning format of t's model, found in its
// source: harmony where it has <|channel|> (as Harmony reports), else the
// first pair of known markers it writes, else none.
func (t *Template) Reasoning() ReasoningFormat {
	if t.Harmony() {
		return ReasoningFormat{Harmony: true}
	}
	for _, r := range reasoningTags {
		all := true
		for _, s := range r.sign {
			all = all && strings.Contains(t.src, s)
		}
		if all {
			return ReasoningFormat{Start: r.start, End: r.end}
		}
	}
	return ReasoningFormat{}
}

// None reports whether f is no reasoning format.
func (f ReasoningFormat) None() bool { return !f.Harmony && f.End == "" }

// String names f for logs: "harmony", the markers, or "none".
func (f ReasoningFormat) String() string {
	switch {
	case f.Harmony:
		return "harmony"
	case f.None():
		return "none"
	}
	return f.Start + "..." + f.End
}

// Opens reports whether a prompt ending in promptEnd leaves f's reasoning
// block open: its last marker, whitespace aside, is f's start (Qwen3's
// "<think>\n"), so that the reply begins in the reasoning. A prompt that
// closes the block ("<think>\n\n</think>\n\n", thinking turned off) does not.
func (f ReasoningFormat) Opens(promptEnd string) bool {
	return f.Start != "" && !f.Harmony && strings.HasSuffix(strings.TrimRightFunc(promptEnd, unicode.IsSpace), f.Start)
}

// Splitter separates a reply's reasoning from its answer as it streams:
// Add takes each new piece of the reply and returns the answer and the
// reasoning that are safe to emit, Flush returns what is held at the end,
// and Calls the tool calls the format writes apart from the answer
// (harmony's). The pieces concatenate to the same split however the reply
// is cut.
type Splitter interface {
	Add(text string) (content, reasoning string)
	Flush() (content, reasoning string)
	Calls() []ToolCall
}

// NewSplitter returns the Splitter of f for a reply to a prompt that ends
// in promptEnd (its last few tokens' text are enough: see Opens), or nil
// when f is none.
func (f ReasoningFormat) NewSplitter(promptEnd string) Splitter {
	switch {
	case f.Harmony:
		return new(Harmony)
	case f.None():
		return nil
	}
	s := &TagSplitter{start: f.Start, end: f.End}
	if f.Opens(promptEnd) {
		s.state = tagReasoning
	}
	return s
}

// SplitReasoning splits a whole reply to a prompt ending in promptEnd
// into its answer and its reasoning (and harmony's tool calls), as the
// Splitter of f does; a format of none leaves the reply whole.
func SplitReasoning(f ReasoningFormat, promptEnd, reply string) (content, reasoning string, calls []ToolCall) {
	s := f.NewSplitter(promptEnd)
	if s == nil {
		return reply, "", nil
	}
	c, r := s.Add(reply)
	c2, r2 := s.Flush()
	return c + c2, r + r2, s.Calls()
}

// The states of a TagSplitter.
const (
	tagLead      = iota // before the reply's first text: the start marker may come
	tagReasoning        // in the reasoning, before its first text
	tagThinking         // in the reasoning's text
	tagAfter            // after the end marker, before the answer's first text
	tagAnswer           // in the answer: all the rest is answer
)

// TagSplitter splits a reply whose reasoning is enclosed in two markers
// (see ReasoningFormat): a reply that starts, whitespace aside, with the
// start marker (or whose prompt opened the block) is reasoning up to the
// end marker, and answer after it; any other reply is all answer. A start
// marker repeated at the beginning of an opened block is dropped.
// Whitespace after either marker and at the end of the reasoning is
// dropped, as llama.cpp trims reasoning. Make one with
// ReasoningFormat.NewSplitter; it is not safe for concurrent use.
type TagSplitter struct {
	start, end string
	state      int
	held       string // text not yet decided: a possible marker, or whitespace
	opened     bool   // the start marker was read: no other is dropped
}

// Calls returns nil: the tag formats write tool calls in the answer.
func (s *TagSplitter) Calls() []ToolCall { return nil }

// Add takes the next text of the reply and returns the answer and the
// reasoning it completes.
func (s *TagSplitter) Add(text string) (content, reasoning string) {
	if s.state == tagAnswer {
		return text, ""
	}
	s.held += text
	var c, r strings.Builder
	for {
		switch s.state {
		case tagLead, tagReasoning:
			// Whitespace, then maybe the start marker (in an opened block,
			// a repeated one).
			rest := strings.TrimLeftFunc(s.held, unicode.IsSpace)
			switch {
			case !s.opened && strings.HasPrefix(rest, s.start):
				s.held = rest[len(s.start):]
				s.state, s.opened = tagReasoning, true
				continue
			case rest == "" || (!s.opened && strings.HasPrefix(s.start, rest)):
				return c.String(), r.String() // undecided
			case s.state == tagLead:
				s.state = tagAnswer // no reasoning: the reply is as written
				c.WriteString(s.held)
				s.held = ""
				return c.String(), r.String()
			}
			s.held, s.state = rest, tagThinking
		case tagThinking:
			i := strings.Index(s.held, s.end)
			if i >= 0 {
				r.WriteString(strings.TrimRightFunc(s.held[:i], unicode.IsSpace))
				s.held, s.state = s.held[i+len(s.end):], tagAfter
				continue
			}
			// Emit all but a tail that may start the end marker, and the
			// whitespace before it, which the end would trim.
			body := s.held[:len(s.held)-partialSuffix([]byte(s.held), s.end)]
			body = strings.TrimRightFunc(body, unicode.IsSpace)
			r.WriteString(body)
			s.held = s.held[len(body):]
			return c.String(), r.String()
		case tagAfter:
			rest := strings.TrimLeftFunc(s.held, unicode.IsSpace)
			if rest == "" {
				s.held = ""
				return c.String(), r.String()
			}
			c.WriteString(rest)
			s.held, s.state = "", tagAnswer
			return c.String(), r.String()
		default:
			c.WriteString(s.held)
			s.held = ""
			return c.String(), r.String()
		}
	}
}

// Flush returns what the reply's end completes: a reasoning that never
// ended is reasoning, trimmed; a reply that was only whitespace and part
// of the start marker is answer.
func (s *TagSplitter) Flush() (content, reasoning string) {
	held := s.held
	s.held = ""
	switch s.state {
	case tagLead:
		return held, ""
	case tagReasoning, tagThinking:
		return "", strings.TrimSpace(held)
	}
	return "", ""
}
