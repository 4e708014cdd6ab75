package loadtest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// maxSSELine is the longest line a server-sent event stream may have.
const maxSSELine = 4 << 20

// sseEvent is one server-sent event: its type (the "event" field, "" for a
// plain message) and its data lines joined by newlines. A line "error: X",
// which llama-server sends when a stream fails, is an event of type "error"
// with data X.
type sseEvent struct {
	Name string
	Data string
}

// sseReader reads server-sent events as the WHATWG specification frames
// them: lines end in CRLF, LF or CR; a blank line dispatches the event;
// lines starting with ':' are comments (keep-alives); "data" fields
// accumulate; unknown fields are ignored.
type sseReader struct {
	sc      *bufio.Scanner
	started bool // the first line, which may begin with a byte order mark, is read
}

// newSSEReader returns a reader of the events in r.
func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxSSELine)
	sc.Split(splitSSELines)
	return &sseReader{sc: sc}
}

// splitSSELines is a bufio.SplitFunc that ends lines at CRLF, LF or a lone
// CR.
func splitSSELines(data []byte, atEOF bool) (advance int, token []byte, err error) {
	if atEOF && len(data) == 0 {
		return 0, nil, nil
	}
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		// A CR: the line ends here, and a LF right after it belongs to
		// the same line ending. Wait for the next byte unless the input
		// ends.
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	}
	if atEOF {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// Next returns the next event, or io.EOF when the stream ends cleanly (an
// event cut off by the end of the stream is still returned). Other errors
// come from the underlying reader or a line over the size limit.
func (s *sseReader) Next() (sseEvent, error) {
	var ev sseEvent
	var data []byte
	have := false // a data (or error) field was seen
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if !s.started {
			s.started = true
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
		}
		if len(line) == 0 {
			if have {
				ev.Data = string(data)
				return ev, nil
			}
			ev = sseEvent{}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			if have {
				data = append(data, '\n')
			}
			data = append(data, value...)
			have = true
		case "event":
			ev.Name = string(value)
		case "error":
			ev.Name = "error"
			if have {
				data = append(data, '\n')
			}
			data = append(data, value...)
			have = true
		}
	}
	if err := s.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return sseEvent{}, fmt.Errorf("loadtest: an event stream line is longer than %d bytes", maxSSELine)
		}
		return sseEvent{}, err
	}
	if have {
		ev.Data = string(data)
		return ev, nil
	}
	return sseEvent{}, io.EOF
}
