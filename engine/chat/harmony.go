package chat

import "strings"

// OpenAI's harmony format, which gpt-oss writes: a reply is a sequence of
// messages, each a header naming its channel and an optional recipient,
// then its text:
//
//	<|channel|>analysis<|message|>thinking...<|end|>
//	<|start|>assistant<|channel|>final<|message|>the answer<|return|>
//
// The analysis channel is the model's reasoning, the final channel (and a
// commentary without a recipient, a preamble) the answer; a message to
// " to=functions.name" is a call of that tool with the message as its
// arguments, and one to another recipient (a built-in tool) is dropped. The
// markers are special tokens of gpt-oss's vocabulary, so that they never
// occur inside a message's text. Harmony splits a reply into its answer and
// its reasoning as llama.cpp's gpt-oss parser does (common/chat.cpp).

// The markers of the harmony format.
const (
	harmonyStart   = "<|start|>"
	harmonyChannel = "<|channel|>"
	harmonyMessage = "<|message|>"
	harmonyEnd     = "<|end|>"
	harmonyReturn  = "<|return|>"
	harmonyCall    = "<|call|>"
)

// harmonyEnds are the markers that end a message's text: its end, or the
// next message's start or channel where the end was not rendered.
var harmonyEnds = []string{harmonyEnd, harmonyReturn, harmonyCall, harmonyStart, harmonyChannel}

// harmonyHeaderLimit is the longest header Harmony reads: a reply whose
// first message marker does not come within it is not harmony, and all of
// it is the answer.
const harmonyHeaderLimit = 256

// Harmony returns whether t writes the harmony format (gpt-oss's
// template): its source has the <|channel|> marker, as llama.cpp detects
// it. Its replies are split by Harmony, and RenderMessages passes an
// assistant turn's reasoning as the template's thinking field.
func (t *Template) Harmony() bool { return strings.Contains(t.src, harmonyChannel) }

// ParseHarmony splits a whole harmony reply (the text generated after the
// prompt's "<|start|>assistant") into its answer, its reasoning and its
// tool calls.
func ParseHarmony(reply string) (content, reasoning string, calls []ToolCall) {
	var h Harmony
	c, r := h.Add(reply)
	c2, r2 := h.Flush()
	return c + c2, r + r2, h.Calls()
}

// Harmony splits a harmony reply as it streams: Add takes each new piece of
// text and returns the answer and the reasoning that are safe to emit,
// holding back only what may be the start of a marker (and a message's
// header until its text begins); Flush returns the rest at the end. The
// pieces concatenate to what ParseHarmony returns for the whole reply,
// however the reply is split; Calls returns the tool calls the reply has
// completed. The zero Harmony is ready to use; it is not safe for
// concurrent use.
type Harmony struct {
	held   string // a header being read, or the end of a text that may start a marker
	inText bool   // in a message's text (else in a header)
	to     int    // where the text goes
	seen   bool   // a message has begun
	plain  bool   // not harmony: all text is the answer
	tool   string // the function the current message calls
	args   strings.Builder
	calls  []ToolCall
}

// The destinations of a message's text.
const (
	toContent = iota
	toReasoning
	toCall
	toNone
)

// Calls returns the tool calls of the messages ended so far (those the
// reply ends in after Flush): each a function call of the message's text
// as its arguments (JSON text) with a new ID.
func (h *Harmony) Calls() []ToolCall { return h.calls }

// Add takes the next text of the reply and returns the answer and the
// reasoning it completes.
func (h *Harmony) Add(text string) (content, reasoning string) {
	if h.plain {
		return text, ""
	}
	h.held += text
	var c, r strings.Builder
	for {
		if !h.inText {
			i := strings.Index(h.held, harmonyMessage)
			if i < 0 || i > harmonyHeaderLimit {
				if len(h.held) >= harmonyHeaderLimit+len(harmonyMessage) {
					// No message marker where a header would have one.
					h.plain = true
					c.WriteString(h.held)
					h.held = ""
				}
				return c.String(), r.String()
			}
			h.to, h.tool = harmonyDest(h.held[:i])
			h.held = h.held[i+len(harmonyMessage):]
			h.inText, h.seen = true, true
			continue
		}
		end, mark := harmonyEndIn(h.held)
		if end < 0 {
			// Emit all but a tail that may start a marker.
			keep := harmonyPartial(h.held)
			h.emit(&c, &r, h.held[:len(h.held)-keep])
			h.held = h.held[len(h.held)-keep:]
			return c.String(), r.String()
		}
		h.emit(&c, &r, h.held[:end])
		h.endText()
		if mark == harmonyChannel {
			h.held = h.held[end:] // the next header begins with it
		} else {
			h.held = h.held[end+len(mark):]
		}
	}
}

// Flush returns what the reply's end completes: the held end of a text,
// or a reply that never began a message (then not harmony, all answer).
// A header that the reply ends in has no text and is dropped.
func (h *Harmony) Flush() (content, reasoning string) {
	held := h.held
	h.held = ""
	switch {
	case h.inText:
		var c, r strings.Builder
		h.emit(&c, &r, held)
		h.endText()
		return c.String(), r.String()
	case !h.seen:
		return held, ""
	}
	return "", ""
}

// emit writes s to the current message's destination.
func (h *Harmony) emit(c, r *strings.Builder, s string) {
	switch h.to {
	case toContent:
		c.WriteString(s)
	case toReasoning:
		r.WriteString(s)
	case toCall:
		h.args.WriteString(s)
	}
}

// endText ends the current message's text: a tool call is complete.
func (h *Harmony) endText() {
	h.inText = false
	if h.to == toCall {
		h.calls = append(h.calls, ToolCall{ID: newCallID(ToolNone), Type: "function", Name: h.tool, Arguments: h.args.String()})
		h.args.Reset()
	}
}

// harmonyDest returns where the text of a message with header hdr goes,
// and the function it calls: a message to functions.name calls it, one
// to another recipient goes nowhere, the analysis channel is reasoning,
// and every other channel (final, a commentary preamble) the answer.
func harmonyDest(hdr string) (int, string) {
	if i := strings.Index(hdr, " to="); i >= 0 {
		to := hdr[i+len(" to="):]
		if j := strings.IndexAny(to, " <"); j >= 0 {
			to = to[:j]
		}
		if name, ok := strings.CutPrefix(to, "functions."); ok && name != "" {
			return toCall, name
		}
		return toNone, ""
	}
	ch := ""
	if i := strings.LastIndex(hdr, harmonyChannel); i >= 0 {
		ch = hdr[i+len(harmonyChannel):]
		if j := strings.IndexAny(ch, " <"); j >= 0 {
			ch = ch[:j]
		}
	}
	if ch == "analysis" {
		return toReasoning, ""
	}
	return toContent, ""
}

// harmonyEndIn returns the index of the first marker that ends a text in
// s, and the marker, or -1.
func harmonyEndIn(s string) (int, string) {
	best, mark := -1, ""
	for _, m := range harmonyEnds {
		if i := strings.Index(s, m); i >= 0 && (best < 0 || i < best) {
			best, mark = i, m
		}
	}
	return best, mark
}

// harmonyPartial returns the length of the longest end of s that is the
// start of a marker ending a text.
func harmonyPartial(s string) int {
	for k := max(0, len(s)-len(harmonyChannel)+1); k < len(s); k++ {
		if s[k] != '<' {
			continue
		}
		for _, m := range harmonyEnds {
			if strings.HasPrefix(m, s[k:]) {
				return len(s) - k
			}
		}
	}
	return 0
}
