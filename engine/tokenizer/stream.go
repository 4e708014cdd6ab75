package tokenizer

import (
	"unicode/utf8"
)

// DecoderOptions configure a streaming Decoder.
type DecoderOptions struct {
	// Special renders control and unknown tokens as their text.
	Special bool
	// Continue marks the tokens as continuing earlier text (such as
	// generated tokens after a prompt): the leading space of the first
	// piece is kept. Otherwise, for vocabularies that add a space prefix
	// (SPM), the first token's piece loses one leading space, as in
	// Detokenize; like there, a leading BOS is that first token, so text
	// after it keeps its space.
	Continue bool
}

// Decoder turns a stream of tokens into text without ever splitting a UTF-8
// character: bytes of an incomplete character are held until the character
// completes. Bytes that cannot be part of a valid UTF-8 character are
// emitted as U+FFFD, one per byte, so the output is always valid UTF-8.
//
// The text is the concatenation of the tokens' pieces, as llama.cpp's
// server streams it; unlike Detokenize it does not clean up tokenization
// spaces, which would need to see later tokens. A Decoder is not safe for
// concurrent use.
type Decoder struct {
	t           *Tokenizer
	special     bool
	removeSpace bool
	pending     []byte
}

// NewDecoder returns a streaming decoder for t.
func (t *Tokenizer) NewDecoder(opts DecoderOptions) *Decoder {
	return &Decoder{t: t, special: opts.Special, removeSpace: t.addSpacePrefix && !opts.Continue}
}

// Add appends token id and returns the text that is now complete (possibly
// ""). An id outside the vocabulary is an error and changes nothing.
func (d *Decoder) Add(id int32) (string, error) {
	if err := d.t.checkIDs([]int32{id}); err != nil {
		return "", err
	}
	p := d.t.TokenToPiece(id, d.special)
	if d.removeSpace && len(p) > 0 && p[0] == ' ' {
		p = p[1:]
	}
	d.removeSpace = false
	d.pending = append(d.pending, p...)
	return d.take(false), nil
}

// Flush returns the held bytes of an incomplete character, each as U+FFFD,
// and empties the decoder's buffer. The space-prefix state is kept.
func (d *Decoder) Flush() string { return d.take(true) }

// Pending reports how many bytes are held back.
func (d *Decoder) Pending() int { return len(d.pending) }

// take removes and returns the complete prefix of the pending bytes; with
// all set, the incomplete rest too (as U+FFFD).
func (d *Decoder) take(all bool) string {
	b := d.pending
	var out []byte
	i := 0
	for i < len(b) {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			if !all && !utf8.FullRune(b[i:]) {
				break // the start of a character that may still complete
			}
			if out == nil {
				out = append(make([]byte, 0, len(b)+2), b[:i]...)
			}
			out = append(out, "\uFFFD"...)
			i++
			continue
		}
		if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	var s string
	if out != nil {
		s = string(out)
	} else {
		s = string(b[:i])
	}
	d.pending = append(d.pending[:0], b[i:]...)
	return s
}
