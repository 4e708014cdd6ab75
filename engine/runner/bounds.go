package runner

import (
	"fmt"
	"sync"
)

// longestOnce finds, once per model, the most bytes one token stands for.
type longestOnce struct {
	once  sync.Once
	bytes int
}

// longestToken returns the most bytes of text one token of the vocabulary
// stands for (a control token's text included: a prompt may spell it). A
// token's vocabulary text is never shorter than the text it decodes to
// (byte-level BPE spells each byte as a rune of one or two bytes,
// SentencePiece a space as "▁", a byte token as "<0xAB>"), so the
// vocabulary texts alone bound it.
func (m *Model) longestToken() int {
	m.longest.once.Do(func() {
		n := 1
		for i := range m.tok.NumTokens() {
			n = max(n, len(m.tok.Text(int32(i))))
		}
		m.longest.bytes = n
	})
	return m.longest.bytes
}

// checkPromptBytes refuses, before it is tokenized, a prompt text of n
// bytes that no tokenization could fit in the context (more bytes than the
// context's tokens times the longest token), once it is also large
// (promptBytesFloor):
// tokenizing a hostile 30 MB prompt only to refuse it took seconds and
// hundreds of megabytes, while a prompt of ordinary size gets the
// tokenizer's count and the usual message.
func (m *Model) checkPromptBytes(n int) error {
	if most := m.promptBytesMost(); n > most {
		return fmt.Errorf("%w: the prompt is %d bytes, more than the context of %d tokens can hold (at most %d bytes); shorten it or %s",
			ErrContextLength, n, m.Info.Context, most, contextHint)
	}
	return nil
}

// promptBytesMost is the longest prompt text checkPromptBytes lets through.
func (m *Model) promptBytesMost() int {
	return max(m.Info.Context*m.longestToken(), promptBytesFloor)
}

// promptBytesFloor is the prompt size below which the tokenizer decides:
// a few milliseconds of work.
const promptBytesFloor = 1 << 20
