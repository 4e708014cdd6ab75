package instance

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
)

// Protocol is the version of the handoff protocol this build speaks. A
// message of another version is refused with an error that says so.
const Protocol = 1

// The protocol's bounds: a message longer than MaxMessage, with more than
// MaxFiles files or a path longer than MaxPath is refused.
const (
	MaxMessage = 64 << 10
	MaxFiles   = 64
	MaxPath    = 4096
)

// Request is what a later launch sends: the files it was opened with
// (absolute paths; none just brings the window to the front).
type Request struct {
	// Saji is the protocol version (Protocol); it comes first on the wire
	// and tells a Saji message from anything else.
	Saji int `json:"saji"`
	// Token is the secret of the TCP endpoint (empty on a Unix socket).
	Token string   `json:"token,omitempty"`
	Files []string `json:"files,omitempty"`
}

// Reply is the running instance's answer: OK, or the reason it refused.
type Reply struct {
	Saji  int    `json:"saji"`
	OK    bool   `json:"ok,omitempty"`
	Error string `json:"error,omitempty"`
}

// writeMessage writes v as one line of JSON.
func writeMessage(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	if len(b) >= MaxMessage {
		return fmt.Errorf("instance: the message is %d bytes, over the limit of %d", len(b), MaxMessage)
	}
	if _, err := w.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("instance: %w", err)
	}
	return nil
}

// readLine reads one line of at most MaxMessage bytes, without its end.
func readLine(r io.Reader) ([]byte, error) {
	line, err := bufio.NewReaderSize(io.LimitReader(r, MaxMessage), MaxMessage).ReadSlice('\n')
	switch {
	case errors.Is(err, bufio.ErrBufferFull) || (errors.Is(err, io.EOF) && len(line) == MaxMessage):
		return nil, fmt.Errorf("instance: the message is over the limit of %d bytes", MaxMessage)
	case errors.Is(err, io.EOF) && len(line) > 0:
		return nil, errors.New("instance: the message ends without a newline")
	case err != nil:
		return nil, fmt.Errorf("instance: reading the message: %w", err)
	}
	return bytes.TrimSuffix(line, []byte{'\n'}), nil
}

// decode reads one line into v and checks its version.
func decode(r io.Reader, v any, version func() int) error {
	line, err := readLine(r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(line, v); err != nil {
		return fmt.Errorf("instance: not a Saji message: %w", err)
	}
	switch n := version(); {
	case n == 0:
		return errors.New("instance: not a Saji message (no protocol version)")
	case n != Protocol:
		return fmt.Errorf("instance: protocol version %d, this Saji speaks %d", n, Protocol)
	}
	return nil
}

// DecodeRequest reads a request from r and checks it: the version, the
// bounds, and that every file is an absolute path.
func DecodeRequest(r io.Reader) (Request, error) {
	var req Request
	if err := decode(r, &req, func() int { return req.Saji }); err != nil {
		return Request{}, err
	}
	if len(req.Files) > MaxFiles {
		return Request{}, fmt.Errorf("instance: %d files, over the limit of %d", len(req.Files), MaxFiles)
	}
	for _, f := range req.Files {
		switch {
		case len(f) > MaxPath:
			return Request{}, fmt.Errorf("instance: a path of %d bytes, over the limit of %d", len(f), MaxPath)
		case strings.ContainsRune(f, 0):
			return Request{}, errors.New("instance: a path with a NUL byte")
		case !filepath.IsAbs(f):
			return Request{}, fmt.Errorf("instance: %q is not an absolute path", f)
		}
	}
	return req, nil
}

// DecodeReply reads a reply from r; a refusal is an error.
func DecodeReply(r io.Reader) error {
	var rep Reply
	if err := decode(r, &rep, func() int { return rep.Saji }); err != nil {
		return err
	}
	if !rep.OK {
		if rep.Error == "" {
			rep.Error = "no reason given"
		}
		return errors.New("instance: the running Saji refused the files: " + rep.Error)
	}
	return nil
}
