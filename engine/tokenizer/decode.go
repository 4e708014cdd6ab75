package tokenizer

import (
	"fmt"
	"strings"
)

// buildPieces computes every token's piece as llama.cpp's
// token_to_piece(special=true) does.
func (t *Tokenizer) buildPieces() {
	t.pieces = make([]string, len(t.tokens))
	for id := range t.tokens {
		t.pieces[id] = t.piece(int32(id))
	}
}

func (t *Tokenizer) piece(id int32) string {
	d := &t.tokens[id]
	switch {
	case d.attr&(AttrUnknown|AttrControl|AttrUserDefined) != 0:
		return d.text
	case d.attr&AttrNormal != 0:
		if t.model == BPE && !t.escapeWS {
			return decodeByteLevelText(d.text)
		}
		return strings.ReplaceAll(d.text, "\u2581", " ")
	case d.attr&AttrByte != 0:
		return string([]byte{byteOfToken(d.text)})
	}
	return ""
}

// byteOfToken reads the byte of a byte token "<0xNN>" as llama.cpp does
// (strtol of the two characters after "<0x"; 0 when they are not hex).
func byteOfToken(text string) byte {
	if len(text) <= 3 {
		return 0
	}
	hex := text[3:min(len(text), 5)]
	v := 0
	for i := 0; i < len(hex); i++ {
		c := hex[i]
		var d int
		switch {
		case c >= '0' && c <= '9':
			d = int(c - '0')
		case c >= 'a' && c <= 'f':
			d = int(c-'a') + 10
		case c >= 'A' && c <= 'F':
			d = int(c-'A') + 10
		default:
			return byte(v)
		}
		v = v*16 + d
	}
	return byte(v)
}

// decodeByteLevelText maps a byte-level BPE token text to its bytes, as
// llama.cpp's llama_decode_text does, including its marker for characters
// outside the byte alphabet.
func decodeByteLevelText(text string) string {
	if raw, ok := decodeByteLevel(text); ok {
		return raw
	}
	var b []byte
	for _, c := range decodeCodepoints(text) {
		if c >= 0 && int(c) < len(runeToByte) && runeToByte[c] >= 0 {
			b = append(b, byte(runeToByte[c]))
			continue
		}
		b = append(b, "[UNK_BYTE_0x"...)
		for _, x := range appendRune(nil, c) {
			b = fmt.Appendf(b, "%02x", x)
		}
		b = append(b, text...)
		b = append(b, ']')
	}
	return string(b)
}

// TokenToPiece returns the bytes token id stands for, as llama.cpp's
// llama_token_to_piece(id, special) does: SPM's U+2581 becomes a space,
// byte tokens become their byte, byte-level BPE text is mapped back to
// bytes. Control and unknown tokens give their text when special is set and
// "" otherwise; user-defined tokens always give their text. A piece can be
// part of a UTF-8 character. An invalid id gives "".
func (t *Tokenizer) TokenToPiece(id int32, special bool) string {
	if !t.valid(id) {
		return ""
	}
	if !special && t.tokens[id].attr&(AttrUnknown|AttrControl) != 0 {
		return ""
	}
	return t.pieces[id]
}

// checkIDs returns an error naming the first id outside the vocabulary.
func (t *Tokenizer) checkIDs(ids []int32) error {
	for i, id := range ids {
		if !t.valid(id) {
			return fmt.Errorf("tokenizer: token %d (at %d) is out of range [0, %d)", id, i, len(t.tokens))
		}
	}
	return nil
}

// Detokenize turns tokens back into text as llama.cpp's llama_detokenize
// does: the pieces are concatenated, the first piece loses one leading
// space when the vocabulary adds a space prefix (SPM), and vocabularies that
// clean up tokenization spaces (most BPE, WPM) drop the spaces the
// tokenizer put before punctuation and contractions. removeSpecial drops a
// leading BOS and trailing EOS the vocabulary adds; unparseSpecial renders
// control tokens as their text. The result is bytes, not necessarily valid
// UTF-8. An id outside the vocabulary is an error.
func (t *Tokenizer) Detokenize(ids []int32, removeSpecial, unparseSpecial bool) (string, error) {
	if err := t.checkIDs(ids); err != nil {
		return "", err
	}
	removeSpace := t.addSpacePrefix
	if removeSpecial && t.addBOS && len(ids) > 0 && ids[0] == t.ids[SpecialBOS] {
		removeSpace = false
		ids = ids[1:]
	}
	if removeSpecial && t.addEOS && len(ids) > 0 && ids[len(ids)-1] == t.ids[SpecialEOS] {
		ids = ids[:len(ids)-1]
	}
	var b []byte
	for _, id := range ids {
		p := t.TokenToPiece(id, unparseSpecial)
		if removeSpace && len(p) > 0 && p[0] == ' ' {
			p = p[1:]
		}
		removeSpace = false
		b = append(b, p...)
	}
	if t.cleanSpaces {
		b = cleanSpaces(b)
	}
	return string(b), nil
}

// cleanSpaces is llama.cpp's clean_up_tokenization_spaces, three passes
// over the text:
//  1. " ?", " !", " .", " ," lose the space;
//  2. a lone apostrophe between spaces (" ' ") loses both spaces;
//  3. " 's", " 'm", " 're", " 've" lose the space.
//
// Each pass reads its input (pass 2 marks a skipped space so that the next
// character does not see it) and writes a new text.
func cleanSpaces(in []byte) []byte {
	if len(in) == 0 {
		return in
	}
	// pass 1
	out := make([]byte, 0, len(in))
	out = append(out, in[0])
	for i := 1; i < len(in); i++ {
		x := in[i]
		if in[i-1] == ' ' && (x == '?' || x == '!' || x == '.' || x == ',') {
			out = out[:len(out)-1]
		}
		out = append(out, x)
	}
	// pass 2
	in, out = out, make([]byte, 0, len(out))
	out = append(out, in[0])
	for i := 1; i < len(in); i++ {
		x := in[i]
		if x == '\'' && i+1 < len(in) && in[i-1] == ' ' && in[i+1] == ' ' {
			out = out[:len(out)-1]
			i++
			in[i] = 0
		}
		out = append(out, x)
	}
	if len(out) == 0 {
		return out
	}
	// pass 3
	in, out = out, make([]byte, 0, len(out))
	out = append(out, in[0])
	for i := 1; i < len(in); i++ {
		x := in[i]
		if in[i-1] == ' ' && x == '\'' && i+1 < len(in) {
			x1 := in[i+1]
			switch {
			case x1 == 's' || x1 == 'm':
				out = out[:len(out)-1]
			case x1 == 't' || x1 == 'd':
			case i+2 < len(in):
				x2 := in[i+2]
				if x1 == 'r' && x2 == 'e' || x1 == 'v' && x2 == 'e' {
					out = out[:len(out)-1]
				}
			}
		}
		out = append(out, x)
	}
	return out
}
