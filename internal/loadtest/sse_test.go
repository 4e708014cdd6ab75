package loadtest

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
)

// readAllEvents reads every event of s, and the error that ended them (nil
// for a clean end).
func readAllEvents(s string) ([]sseEvent, error) {
	r := newSSEReader(strings.NewReader(s))
	var evs []sseEvent
	for {
		ev, err := r.Next()
		if err == io.EOF {
			return evs, nil
		}
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
}

func TestSSEReader(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"plain", "data: a\n\ndata: b\n\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"CRLF", "data: a\r\n\r\ndata: b\r\n\r\n", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"CR", "data: a\r\rdata: b\r\r", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"comments and keep-alives", ": ping\n\ndata: a\n: mid\n\n:\n\n", []sseEvent{{Data: "a"}}},
		{"no space after colon", "data:a\n\n", []sseEvent{{Data: "a"}}},
		{"only one space dropped", "data:  a\n\n", []sseEvent{{Data: " a"}}},
		{"multi-line data", "data: a\ndata: b\n\n", []sseEvent{{Data: "a\nb"}}},
		{"event name", "event: ping\ndata: x\n\n", []sseEvent{{Name: "ping", Data: "x"}}},
		{"event without data is dropped", "event: ping\n\ndata: y\n\n", []sseEvent{{Data: "y"}}},
		{"unknown fields ignored", "id: 3\nretry: 10\ndata: a\n\n", []sseEvent{{Data: "a"}}},
		{"llama-server error line", "error: {\"message\":\"x\"}\n\n", []sseEvent{{Name: "error", Data: "{\"message\":\"x\"}"}}},
		{"field without colon", "data\n\n", []sseEvent{{Data: ""}}},
		{"last event without blank line", "data: a\n\ndata: b", []sseEvent{{Data: "a"}, {Data: "b"}}},
		{"byte order mark", "\uFEFFdata: a\n\n", []sseEvent{{Data: "a"}}},
		{"empty", "", nil},
		{"blank lines only", "\n\n\r\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := readAllEvents(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
			// Byte by byte, CRs split from their LFs, the same events.
			r := newSSEReader(iotest.OneByteReader(strings.NewReader(tt.in)))
			var slow []sseEvent
			for {
				ev, err := r.Next()
				if err != nil {
					break
				}
				slow = append(slow, ev)
			}
			if !slices.Equal(slow, tt.want) {
				t.Errorf("one byte at a time: events %q, want %q", slow, tt.want)
			}
		})
	}
}

func TestSSEReaderErrors(t *testing.T) {
	_, err := readAllEvents("data: " + strings.Repeat("x", maxSSELine+10) + "\n\n")
	if err == nil || !strings.Contains(err.Error(), "longer than") {
		t.Errorf("long line: error %v", err)
	}
	r := newSSEReader(io.MultiReader(strings.NewReader("data: a\n\ndata: b"), iotest.ErrReader(io.ErrUnexpectedEOF)))
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("cut stream: error %v, want unexpected EOF", err)
	}
}

func TestReadStream(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		chunks []Chunk
		usage  Usage
		err    string
	}{
		{
			name: "completions with usage",
			in: `data: {"choices":[{"text":"Hel","finish_reason":null}]}` + "\n\n" +
				`data: {"choices":[{"text":"lo","finish_reason":"length"}]}` + "\n\n" +
				`data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n\n" +
				"data: [DONE]\n\n",
			chunks: []Chunk{{1, "Hel"}, {1, "lo"}},
			usage:  Usage{5, 2},
		},
		{
			name: "chat with role chunk and reasoning",
			in: `data: {"choices":[{"delta":{"role":"assistant"}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{"reasoning_content":"hm"}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{"content":"Hi"}}]}` + "\n\n" +
				`data: {"choices":[{"delta":{},"finish_reason":"stop"}]}` + "\n\n" +
				"data: [DONE]\n\n",
			chunks: []Chunk{{1, "hm"}, {1, "Hi"}},
		},
		{
			name: "token counts from the server",
			in: `data: {"choices":[{"text":"ab","token_ids":[1,2]}]}` + "\n\n" +
				`data: {"choices":[{"text":"cde","logprobs":{"tokens":["c","d","e"]}}]}` + "\n\n" +
				"data: [DONE]\n\n",
			chunks: []Chunk{{2, "ab"}, {3, "cde"}},
		},
		{
			name: "usage in the last content chunk (llama-server)",
			in: `data: {"choices":[{"text":"a","finish_reason":"length"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}` + "\n\n" +
				"data: [DONE]\n\n",
			chunks: []Chunk{{1, "a"}},
			usage:  Usage{3, 1},
		},
		{
			name:   "finished without [DONE]",
			in:     `data: {"choices":[{"text":"a","finish_reason":"stop"}]}` + "\n\n",
			chunks: []Chunk{{1, "a"}},
		},
		{
			name:   "ended early",
			in:     `data: {"choices":[{"text":"a"}]}` + "\n\n",
			chunks: []Chunk{{1, "a"}},
			err:    "ended before [DONE]",
		},
		{
			name:   "error object mid-stream",
			in:     `data: {"choices":[{"text":"a"}]}` + "\n\n" + `data: {"error":{"message":"out of memory"}}` + "\n\n",
			chunks: []Chunk{{1, "a"}},
			err:    "out of memory",
		},
		{
			name: "llama-server error line",
			in:   `error: {"code":500,"message":"context full","type":"server_error"}` + "\n\n",
			err:  "context full",
		},
		{
			name: "not JSON",
			in:   "data: {oops\n\n",
			err:  "not JSON",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []Chunk
			usage, err := readStream(strings.NewReader(tt.in), func(c Chunk) { got = append(got, c) })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error %v, want %q", err, tt.err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(got, tt.chunks) {
				t.Errorf("chunks %v, want %v", got, tt.chunks)
			}
			if usage != tt.usage {
				t.Errorf("usage %v, want %v", usage, tt.usage)
			}
		})
	}
}

func FuzzSSE(f *testing.F) {
	for _, s := range []string{
		"data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\r\n\r\n: ping\r\n\r\ndata: [DONE]\r\n\r\n",
		"data: a\rdata: b\r\r",
		"event: x\ndata: 1\ndata: 2\n\n",
		"error: {\"message\":\"m\"}\n\n",
		"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":2}}\n\n",
		"data: {\"error\":\"x\"}\n\n",
		":\n\n\r\n\r",
		"",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := newSSEReader(strings.NewReader(string(b)))
		for range len(b) + 1 {
			ev, err := r.Next()
			if err != nil {
				break
			}
			if strings.ContainsAny(ev.Data, "\r") || strings.ContainsAny(ev.Name, "\r\n") {
				t.Fatalf("event %q keeps a line break", ev)
			}
		}
		readStream(strings.NewReader(string(b)), func(c Chunk) {
			if c.Text == "" || c.Tokens < 1 {
				t.Fatalf("emitted an empty chunk %+v", c)
			}
		})
	})
}
