package instance

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

func TestDecodeRequest(t *testing.T) {
	abs := filepath.Join(string(filepath.Separator)+"models", "a.gguf")
	absJSON := strings.ReplaceAll(abs, `\`, `\\`)
	tests := []struct {
		name    string
		in      string
		files   []string
		wantErr string
	}{
		{"files", `{"saji":1,"files":["` + absJSON + `"]}` + "\n", []string{abs}, ""},
		{"no files brings the window up", `{"saji":1}` + "\n", nil, ""},
		{"unknown fields of a version are ignored", `{"saji":1,"later":true}` + "\n", nil, ""},
		{"another version", `{"saji":2,"files":[]}` + "\n", nil, "protocol version 2"},
		{"no version", `{"files":[]}` + "\n", nil, "no protocol version"},
		{"not JSON", "GET / HTTP/1.1\r\n", nil, "not a Saji message"},
		{"no newline", `{"saji":1}`, nil, "without a newline"},
		{"empty", "", nil, "reading the message"},
		{"relative path", `{"saji":1,"files":["a.gguf"]}` + "\n", nil, "not an absolute path"},
		{"NUL in a path", `{"saji":1,"files":["\u0000"]}` + "\n", nil, "NUL"},
		{"too many files", `{"saji":1,"files":[` + strings.Repeat(`"`+absJSON+`",`, MaxFiles) + `"` + absJSON + `"]}` + "\n", nil, "files, over the limit"},
		{"a long path", `{"saji":1,"files":["` + absJSON + strings.Repeat("x", MaxPath) + `"]}` + "\n", nil, "a path of"},
		{"too long", `{"saji":1,"token":"` + strings.Repeat("x", MaxMessage) + `"}` + "\n", nil, "over the limit of"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := DecodeRequest(strings.NewReader(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(req.Files, "|") != strings.Join(tt.files, "|") {
				t.Errorf("files %q, want %q", req.Files, tt.files)
			}
		})
	}
}

func TestDecodeReply(t *testing.T) {
	tests := []struct {
		in, wantErr string
	}{
		{`{"saji":1,"ok":true}` + "\n", ""},
		{`{"saji":1,"error":"wrong token"}` + "\n", "refused the files: wrong token"},
		{`{"saji":1}` + "\n", "no reason given"},
		{`{"saji":3,"ok":true}` + "\n", "protocol version 3"},
		{"garbage\n", "not a Saji message"},
	}
	for _, tt := range tests {
		err := DecodeReply(strings.NewReader(tt.in))
		if tt.wantErr == "" && err != nil || tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)) {
			t.Errorf("DecodeReply(%q) = %v, want %q", tt.in, err, tt.wantErr)
		}
	}
}

func TestMessageRoundTrip(t *testing.T) {
	want := Request{Saji: Protocol, Token: "t", Files: []string{filepath.Join(t.TempDir(), "é model.gguf")}}
	var b bytes.Buffer
	if err := writeMessage(&b, want); err != nil {
		t.Fatal(err)
	}
	got, err := DecodeRequest(&b)
	if err != nil {
		t.Fatal(err)
	}
	if got.Token != want.Token || len(got.Files) != 1 || got.Files[0] != want.Files[0] {
		t.Errorf("got %+v, want %+v", got, want)
	}
	if err := writeMessage(&b, Request{Saji: Protocol, Token: strings.Repeat("x", MaxMessage)}); err == nil {
		t.Error("a message over the limit was written")
	}
}

// FuzzDecodeRequest checks that no input makes the decoder panic, and that
// what it accepts is within the bounds.
func FuzzDecodeRequest(f *testing.F) {
	f.Add([]byte(`{"saji":1,"files":["/a.gguf"]}` + "\n"))
	f.Add([]byte(`{"saji":1}` + "\n"))
	f.Add([]byte(`{"saji":2,"token":"x"}` + "\n"))
	f.Add([]byte(`{"saji":1,"files":[1,2]}` + "\n"))
	f.Add([]byte("\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		req, err := DecodeRequest(bytes.NewReader(b))
		if err != nil {
			return
		}
		if req.Saji != Protocol || len(req.Files) > MaxFiles {
			t.Fatalf("accepted %+v", req)
		}
		for _, f := range req.Files {
			if !filepath.IsAbs(f) || len(f) > MaxPath {
				t.Fatalf("accepted the path %q", f)
			}
		}
		_ = DecodeReply(bytes.NewReader(b))
	})
}
