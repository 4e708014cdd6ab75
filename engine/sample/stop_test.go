package sample

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// streamAll pushes pieces and returns what was emitted in total, whether a
// stop string completed, which, and what Flush returned.
func streamAll(t testing.TB, m *StopMatcher, pieces []string) (out string, stopped bool, stop, flushed string) {
	t.Helper()
	var b strings.Builder
	for _, p := range pieces {
		emit, s := m.Push(p)
		b.WriteString(emit)
		if s {
			stopped = true
		}
	}
	stop, ok := m.Stopped()
	if ok != stopped {
		t.Fatalf("Stopped() = %v, Push said %v", ok, stopped)
	}
	return b.String(), stopped, stop, m.Flush()
}

func TestStopMatcher(t *testing.T) {
	tests := []struct {
		name    string
		stops   []string
		pieces  []string
		emits   []string // what each Push returns
		stop    string   // "" when no stop string completes
		flushed string
	}{
		{"no stop", []string{"STOP"}, []string{"Hello", " world"}, []string{"Hello", " world"}, "", ""},
		{"no stop strings", nil, []string{"a", "b"}, []string{"a", "b"}, "", ""},
		{"split across pieces", []string{"STOP"}, []string{"Hello ST", "O", "P more"}, []string{"Hello ", "", ""}, "STOP", ""},
		{"one byte at a time", []string{"ab"}, []string{"x", "a", "b", "c"}, []string{"x", "", "", ""}, "ab", ""},
		{"false alarm", []string{"STOP"}, []string{"a ST", "ART"}, []string{"a ", "START"}, "", ""},
		{"false alarm then stop", []string{"STOP"}, []string{"ST", "STOP"}, []string{"", "ST"}, "STOP", ""},
		{"held prefix flushed", []string{"STOP"}, []string{"end ST"}, []string{"end "}, "", "ST"},
		{"stop at the start", []string{"</s>"}, []string{"</s>tail"}, []string{""}, "</s>", ""},
		{"stop spans the first pieces", []string{"</s>"}, []string{"</", "s>", "x"}, []string{"", "", ""}, "</s>", ""},
		{"prefix ab then abc", []string{"abc", "ab"}, []string{"xa", "bc"}, []string{"x", ""}, "ab", ""},
		{"overlap held then other stop", []string{"abc", "bd"}, []string{"ab", "d"}, []string{"", "a"}, "bd", ""},
		{"longer prefix fails, shorter held", []string{"abcd", "bce"}, []string{"abc", "e"}, []string{"", "a"}, "bce", ""},
		{"earliest end wins", []string{"world", "lo"}, []string{"hello world"}, []string{"hel"}, "lo", ""},
		{"same end: earliest start", []string{"cd", "bcd"}, []string{"abcd"}, []string{"a"}, "bcd", ""},
		{"repeated prefix", []string{"aab"}, []string{"aa", "a", "ab"}, []string{"", "a", "a"}, "aab", ""},
		{"after the stop nothing", []string{"x"}, []string{"x", "more", "text"}, []string{"", "", ""}, "x", ""},
		{"duplicate stops", []string{"q", "q"}, []string{"aq"}, []string{"a"}, "q", ""},
		{"newline stop", []string{"\n\n"}, []string{"line\n", "\nnext"}, []string{"line", ""}, "\n\n", ""},
		{"utf-8 stop split mid-rune", []string{"→"}, []string{"a\xe2", "\x86", "\x92b"}, []string{"a", "", ""}, "→", ""},
		{"utf-8 held without stops", nil, []string{"h\xc3", "\xa9llo"}, []string{"h", "éllo"}, "", ""},
		{"utf-8 shared lead byte", []string{"é"}, []string{"\xc3", "\xbc!"}, []string{"", "ü!"}, "", ""},
		{"utf-8 four bytes", []string{"end"}, []string{"\xf0\x9f", "\x98", "\x80 e"}, []string{"", "", "😀 "}, "", "e"},
		{"utf-8 stop in text", []string{"。"}, []string{"日本語", "。次"}, []string{"日本語", ""}, "。", ""},
		{"utf-8 incomplete at end is flushed", nil, []string{"a\xe2\x86"}, []string{"a"}, "", "\xe2\x86"},
		{"invalid utf-8 passes", nil, []string{"a\xff", "\x80b"}, []string{"a\xff", "\x80b"}, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := NewStopMatcher(tt.stops)
			if err != nil {
				t.Fatal(err)
			}
			for i, p := range tt.pieces {
				emit, stopped := m.Push(p)
				if emit != tt.emits[i] {
					t.Errorf("Push(%q) emitted %q, want %q", p, emit, tt.emits[i])
				}
				_ = stopped
			}
			stop, ok := m.Stopped()
			if ok != (tt.stop != "") || stop != tt.stop {
				t.Errorf("Stopped() = %q, %v; want %q", stop, ok, tt.stop)
			}
			if f := m.Flush(); f != tt.flushed {
				t.Errorf("Flush() = %q, want %q", f, tt.flushed)
			}

			// Every way of cutting the text in two gives the same result.
			text := strings.Join(tt.pieces, "")
			m.Reset()
			want, wantStopped, wantStop, wantFlushed := streamAll(t, m, []string{text})
			for cut := 0; cut <= len(text); cut++ {
				m.Reset()
				got, s, st, f := streamAll(t, m, []string{text[:cut], text[cut:]})
				if got != want || s != wantStopped || st != wantStop || f != wantFlushed {
					t.Errorf("cut at %d: %q %v %q %q; whole: %q %v %q %q", cut, got, s, st, f, want, wantStopped, wantStop, wantFlushed)
				}
			}
		})
	}
}

func TestStopMatcherErrors(t *testing.T) {
	if _, err := NewStopMatcher([]string{"ok", ""}); err == nil || !strings.HasPrefix(err.Error(), "sample: ") {
		t.Errorf("empty stop string: err = %v", err)
	}
}

// checkStream checks the StopMatcher's promises for text cut into pieces.
func checkStream(t *testing.T, stops, pieces []string) {
	m, err := NewStopMatcher(stops)
	if err != nil {
		return
	}
	text := strings.Join(pieces, "")
	validUTF8 := utf8.ValidString(text)
	for _, s := range stops {
		validUTF8 = validUTF8 && utf8.ValidString(s)
	}
	var out strings.Builder
	stopped := false
	for _, p := range pieces {
		emit, s := m.Push(p)
		if stopped && (emit != "" || !s) {
			t.Fatalf("Push after the stop returned %q, %v", emit, s)
		}
		if validUTF8 && !utf8.ValidString(emit) {
			t.Fatalf("emitted invalid UTF-8 %q from valid text %q", emit, text)
		}
		out.WriteString(emit)
		stopped = s
		if !stopped && !strings.HasPrefix(text, out.String()+m.Held()) {
			t.Fatalf("emitted %q + held %q is not a prefix of %q", out.String(), m.Held(), text)
		}
	}
	got := out.String()
	stop, ok := m.Stopped()
	if ok != stopped {
		t.Fatalf("Stopped() = %v, Push said %v", ok, stopped)
	}
	if !stopped {
		if got+m.Flush() != text {
			t.Fatalf("no stop: emitted+flushed %q != input %q", got, text)
		}
		for _, s := range stops {
			if s != "" && strings.Contains(text, s) {
				t.Fatalf("missed stop %q in %q", s, text)
			}
		}
		return
	}
	if !strings.HasPrefix(text, got+stop) {
		t.Fatalf("stop %q does not follow emitted %q in %q", stop, got, text)
	}
	// No stop string ends earlier than this one.
	early := got + stop[:len(stop)-1]
	for _, s := range stops {
		if s != "" && strings.Contains(early, s) {
			t.Fatalf("stop %q ends before %q in %q", s, stop, text)
		}
	}
	// The same as one Push of the whole text.
	m.Reset()
	whole, _ := m.Push(text)
	if st, _ := m.Stopped(); whole != got || st != stop {
		t.Fatalf("streamed %q/%q, whole %q/%q", got, stop, whole, st)
	}
}

func FuzzStopMatcher(f *testing.F) {
	f.Add("Hello STOP world", "STOP", "", uint64(0b1010_1010))
	f.Add("abcabd", "abd", "ab", uint64(0xffff))
	f.Add("日本語。次", "。", "語", uint64(0b10010))
	f.Add("a\xe2\x86\x92b", "→", "\x86", uint64(0b110))
	f.Add("aaab", "aab", "b", uint64(1))
	f.Fuzz(func(t *testing.T, text, s1, s2 string, cuts uint64) {
		var stops []string
		for _, s := range []string{s1, s2} {
			if s != "" && len(s) <= 32 {
				stops = append(stops, s)
			}
		}
		var pieces []string
		last := 0
		for i := 1; i < len(text) && i < 64; i++ {
			if cuts&(1<<i) != 0 {
				pieces = append(pieces, text[last:i])
				last = i
			}
		}
		pieces = append(pieces, text[last:])
		checkStream(t, stops, pieces)
	})
}

// fakeDecoder hands out fixed pieces and keeps a pending tail for Flush.
type fakeDecoder struct {
	pieces  map[int32]string
	pending string
}

func (d *fakeDecoder) Add(id int32) (string, error) {
	p, ok := d.pieces[id]
	if !ok {
		return "", errors.New("unknown token")
	}
	if strings.HasSuffix(p, "~") { // pretend the last byte waits for more
		d.pending += "~"
		return p[:len(p)-1], nil
	}
	out := d.pending + p
	d.pending = ""
	return out, nil
}

func (d *fakeDecoder) Flush() string {
	p := d.pending
	d.pending = ""
	return p
}

func newFake() *fakeDecoder {
	return &fakeDecoder{pieces: map[int32]string{1: "Hello", 2: " wor", 3: "ld", 4: "###", 5: "#", 6: "x~", 9: "<eos>"}}
}

func TestStopper(t *testing.T) {
	type step struct {
		id     int32
		text   string
		reason Reason
	}
	tests := []struct {
		name    string
		stops   []string
		steps   []step
		flush   string
		stopStr string
	}{
		{"eog", nil, []step{{1, "Hello", NotStopped}, {9, "", StopEOG}, {1, "", StopEOG}}, "", ""},
		{"eog releases held text", []string{"##!"}, []step{{1, "Hello", NotStopped}, {5, "", NotStopped}, {9, "#", StopEOG}}, "", ""},
		{"stop string", []string{"world"}, []step{{1, "Hello", NotStopped}, {2, " ", NotStopped}, {3, "", StopString}, {1, "", StopString}}, "", "world"},
		{"length limit flushes", []string{"##!"}, []step{{1, "Hello", NotStopped}, {4, "#", NotStopped}}, "##", ""},
		{"decoder pending flushed at eog", nil, []step{{6, "x", NotStopped}, {9, "~", StopEOG}}, "", ""},
		{"decoder pending completes a stop at eog", []string{"x~"}, []step{{6, "", NotStopped}, {9, "", StopString}}, "", "x~"},
		{"decoder pending at length limit", nil, []step{{6, "x", NotStopped}}, "~", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := NewStopper(newFake(), []int32{9}, tt.stops)
			if err != nil {
				t.Fatal(err)
			}
			for _, st := range tt.steps {
				text, reason, err := s.Add(st.id)
				if err != nil || text != st.text || reason != st.reason {
					t.Errorf("Add(%d) = %q, %v, %v; want %q, %v", st.id, text, reason, err, st.text, st.reason)
				}
			}
			if f := s.Flush(); f != tt.flush {
				t.Errorf("Flush() = %q, want %q", f, tt.flush)
			}
			if got := s.StopString(); got != tt.stopStr {
				t.Errorf("StopString() = %q, want %q", got, tt.stopStr)
			}
		})
	}
}

func TestStopperErrors(t *testing.T) {
	if _, err := NewStopper(nil, nil, nil); err == nil {
		t.Error("nil decoder accepted")
	}
	if _, err := NewStopper(newFake(), nil, []string{""}); err == nil {
		t.Error("empty stop string accepted")
	}
	s, err := NewStopper(newFake(), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.Add(77); err == nil || !strings.Contains(err.Error(), "token 77") {
		t.Errorf("decoder error: %v", err)
	}
	for r, want := range map[Reason]string{NotStopped: "none", StopEOG: "eog", StopString: "stop", Reason(9): "Reason(9)"} {
		if r.String() != want {
			t.Errorf("%d.String() = %q", int(r), r.String())
		}
	}
}
