package sample

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// StopMatcher watches streamed text for stop strings. Push it each decoded
// piece; it returns the text that is safe to show now and holds back any
// tail that could still become a stop string (or that ends in an incomplete
// UTF-8 sequence). No part of a stop string is ever returned.
//
// Generation stops where the first stop string completes: at the earliest
// end position in the text, and among stop strings ending there the one
// that starts first. The result therefore does not depend on how the text
// is cut into pieces. A StopMatcher is not safe for concurrent use.
type StopMatcher struct {
	stops  []string
	maxLen int
	held   string
	stop   string // the stop string that matched
	done   bool
}

// NewStopMatcher returns a matcher for stops; duplicates are ignored and
// an empty stop string is an error. With no stop strings it only holds
// back incomplete UTF-8 sequences.
func NewStopMatcher(stops []string) (*StopMatcher, error) {
	m := &StopMatcher{}
	seen := make(map[string]bool, len(stops))
	for i, s := range stops {
		if s == "" {
			return nil, fmt.Errorf("sample: stop string %d is empty", i)
		}
		if seen[s] {
			continue
		}
		seen[s] = true
		m.stops = append(m.stops, s)
		m.maxLen = max(m.maxLen, len(s))
	}
	return m, nil
}

// Push adds a piece of generated text. It returns the text that can be
// emitted now and whether a stop string has completed; when it has, emit
// is the text before the stop string, and every later Push returns "" and
// true.
func (m *StopMatcher) Push(piece string) (emit string, stopped bool) {
	if m.done {
		return "", true
	}
	// Strings, not a byte buffer: with nothing held, the piece itself (or
	// a slice of it) is returned without copying.
	buf := m.held + piece

	// The held text holds no complete stop string, so any match ends in
	// the new piece; the earliest end wins, then the earliest start.
	at, end, best := -1, -1, -1
	for j, s := range m.stops {
		i := strings.Index(buf, s)
		if i < 0 {
			continue
		}
		if e := i + len(s); end < 0 || e < end || (e == end && i < at) {
			at, end, best = i, e, j
		}
	}
	if at >= 0 {
		m.stop = m.stops[best]
		m.held = ""
		m.done = true
		return buf[:at], true
	}

	cut := len(buf) - m.partialStop(buf)
	cut -= incompleteUTF8(buf[:cut])
	m.held = buf[cut:]
	return buf[:cut], false
}

// partialStop returns the length of the longest suffix of buf that is a
// proper prefix of a stop string.
func (m *StopMatcher) partialStop(buf string) int {
	for k := min(len(buf), m.maxLen-1); k > 0; k-- {
		tail := buf[len(buf)-k:]
		for _, s := range m.stops {
			if len(s) > k && strings.HasPrefix(s, tail) {
				return k
			}
		}
	}
	return 0
}

// incompleteUTF8 returns the length of a trailing UTF-8 sequence in b that
// has begun but not finished (0 to 3 bytes).
func incompleteUTF8(b string) int {
	for k := 1; k <= min(3, len(b)); k++ {
		c := b[len(b)-k]
		if c < utf8.RuneSelf {
			return 0 // ASCII: nothing pending
		}
		if utf8.RuneStart(c) {
			if utf8.FullRuneInString(b[len(b)-k:]) {
				return 0
			}
			return k
		}
	}
	return 0
}

// Flush ends the stream (at an end-of-generation token or a length limit)
// and returns the text still held back. After a stop it returns "".
func (m *StopMatcher) Flush() string {
	s := m.held
	m.held = ""
	return s
}

// Held returns the text currently held back.
func (m *StopMatcher) Held() string { return m.held }

// Stopped reports whether a stop string has completed, and which.
func (m *StopMatcher) Stopped() (stop string, ok bool) { return m.stop, m.done }

// Reset makes the matcher ready for a new stream.
func (m *StopMatcher) Reset() {
	m.held = ""
	m.stop, m.done = "", false
}

// Decoder turns token ids into text incrementally. The tokenizer's
// streaming decoder satisfies it; Add may return "" while it waits for the
// rest of a multi-byte character, and Flush returns whatever is pending.
type Decoder interface {
	Add(id int32) (string, error)
	Flush() string
}

// Reason says why generation stopped.
type Reason int

// The reasons a Stopper reports.
const (
	// NotStopped: generation goes on.
	NotStopped Reason = iota
	// StopEOG: an end-of-generation token was sampled.
	StopEOG
	// StopString: a stop string completed.
	StopString
)

// String returns the reason's name as an API would report it.
func (r Reason) String() string {
	switch r {
	case NotStopped:
		return "none"
	case StopEOG:
		return "eog"
	case StopString:
		return "stop"
	}
	return fmt.Sprintf("Reason(%d)", int(r))
}

// Stopper combines the two ways generation ends: an end-of-generation
// token id, and a stop string in the decoded text. Feed it every sampled
// token; it returns the text to emit.
type Stopper struct {
	dec    Decoder
	eog    map[int32]bool
	m      *StopMatcher
	reason Reason
}

// NewStopper returns a Stopper decoding with dec, stopping on any of the
// eog token ids and any of the stop strings.
func NewStopper(dec Decoder, eog []int32, stops []string) (*Stopper, error) {
	if dec == nil {
		return nil, errors.New("sample: nil decoder")
	}
	m, err := NewStopMatcher(stops)
	if err != nil {
		return nil, err
	}
	s := &Stopper{dec: dec, eog: make(map[int32]bool, len(eog)), m: m}
	for _, id := range eog {
		s.eog[id] = true
	}
	return s, nil
}

// Add takes the next sampled token. It returns the text that is safe to
// emit and, once generation is over, why. An EOG token's own text is never
// emitted; the text held back until then is. After a stop, Add returns ""
// and the same reason.
func (s *Stopper) Add(id int32) (text string, reason Reason, err error) {
	if s.reason != NotStopped {
		return "", s.reason, nil
	}
	if s.eog[id] {
		text, stopped := s.m.Push(s.dec.Flush())
		if stopped {
			s.reason = StopString
			return text, s.reason, nil
		}
		s.reason = StopEOG
		return text + s.m.Flush(), s.reason, nil
	}
	piece, err := s.dec.Add(id)
	if err != nil {
		return "", NotStopped, fmt.Errorf("sample: decoding token %d: %w", id, err)
	}
	text, stopped := s.m.Push(piece)
	if stopped {
		s.reason = StopString
	}
	return text, s.reason, nil
}

// Flush ends generation for another reason (a length limit) and returns
// the text still held back.
func (s *Stopper) Flush() string {
	if s.reason != NotStopped {
		return ""
	}
	text, stopped := s.m.Push(s.dec.Flush())
	if stopped {
		s.reason = StopString
		return text
	}
	return text + s.m.Flush()
}

// Reason returns why generation stopped so far (NotStopped if it has not).
func (s *Stopper) Reason() Reason { return s.reason }

// StopString returns the stop string that ended generation, if one did.
func (s *Stopper) StopString() string {
	stop, _ := s.m.Stopped()
	return stop
}
