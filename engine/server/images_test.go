package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"hash/crc32"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"saji/engine/imagefile"
	"saji/engine/imagefile/imagetest"
)

// bombPNG returns a PNG whose header claims w×h pixels (a decompression
// bomb's shape), its checksum right.
func bombPNG(t testing.TB, w, h uint32) []byte {
	b := imagetest.PNG(t, 1, 1)
	binary.BigEndian.PutUint32(b[16:], w)
	binary.BigEndian.PutUint32(b[20:], h)
	binary.BigEndian.PutUint32(b[29:], crc32.ChecksumIEEE(b[12:29]))
	return b
}

// dataURI returns data as a data: URI of media type.
func dataURI(media string, data []byte) string {
	return "data:" + media + ";base64," + base64.StdEncoding.EncodeToString(data)
}

func TestParseDataURI(t *testing.T) {
	pic := []byte("\x89PNG....")
	b64 := base64.StdEncoding.EncodeToString(pic)
	tests := []struct {
		name, uri string
		want      []byte
		err       string // a part of the error; "" for none
	}{
		{"png", "data:image/png;base64," + b64, pic, ""},
		{"upper case", "DATA:Image/JPEG;BASE64," + b64, pic, ""},
		{"parameters", "data:image/png;charset=utf-8;base64," + b64, pic, ""},
		{"no padding", "data:image/png;base64," + strings.TrimRight(b64, "="), pic, ""},
		{"line breaks", "data:image/png;base64," + b64[:4] + "\n" + b64[4:], pic, ""},
		{"not data", "http://example.com/a.png", nil, "not a data: URI"},
		{"no comma", "data:image/png;base64", nil, "without a comma"},
		{"text", "data:text/plain;base64," + b64, nil, "media type text/plain, not an image"},
		{"no media type", "data:;base64," + b64, nil, "media type none"},
		{"not base64", "data:image/png," + b64, nil, "without ;base64"},
		{"bad base64", "data:image/png;base64,@@@@", nil, "not valid base64"},
		{"empty", "data:image/png;base64,", nil, "empty"},
	}
	for _, c := range tests {
		got, err := parseDataURI(c.uri)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
		case c.err == "" && !bytes.Equal(got, c.want):
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// FuzzParseDataURI sends any text as an image URL and as base64: a clear
// error or a picture within the limits, never a panic.
func FuzzParseDataURI(f *testing.F) {
	pic := imagetest.PNG(f, 3, 2)
	for _, s := range []string{
		dataURI("image/png", pic), "data:image/png;base64,", "data:,", "data:image/gif;base64,R0lGODlh",
		"data:image/png;charset=utf-8;base64,iVBORw0KGgo=", "data:;base64,AAAA", "http://x/a.png", "ftp://x",
		base64.StdEncoding.EncodeToString(pic), "aGk", "====", "",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ir := newImageReader(context.Background(), false)
		for _, read := range []func(string, string) (*imagefile.Image, error){ir.url, ir.base64} {
			im, err := read("x", s)
			if err != nil {
				if ae := classify(err); ae.status != http.StatusBadRequest {
					t.Fatalf("%q: %v: status %d, want 400", s, err, ae.status)
				}
				continue
			}
			if im == nil || im.Width()*im.Height() > imagefile.DefaultLimits.MaxPixels {
				t.Fatalf("%q: %v", s, im)
			}
		}
	})
}

func TestImageReaderBounds(t *testing.T) {
	pic := base64.StdEncoding.EncodeToString(imagetest.PNG(t, 2, 2))
	ir := newImageReader(context.Background(), false)
	for i := range maxImages {
		if _, err := ir.base64("images", pic); err != nil {
			t.Fatalf("image %d: %v", i, err)
		}
	}
	if _, err := ir.base64("images", pic); err == nil || !strings.Contains(err.Error(), "at most 16 images") {
		t.Errorf("image %d: %v, want the limit", maxImages+1, err)
	}
	// The pixels of one request are bounded in all.
	ir = newImageReader(context.Background(), false)
	ir.pixels = 5
	if _, err := ir.base64("images[0]", pic); err != nil {
		t.Fatal(err)
	}
	if _, err := ir.base64("images[1]", pic); err == nil || !strings.Contains(err.Error(), "images[1]: image too large") {
		t.Errorf("past the pixels: %v", err)
	}
}

func TestImageURLs(t *testing.T) {
	pic := imagetest.PNG(t, 4, 3)
	mux := http.NewServeMux()
	mux.HandleFunc("/cat.png", func(w http.ResponseWriter, r *http.Request) { w.Write(pic) })
	mux.HandleFunc("/moved", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/cat.png", http.StatusFound) })
	mux.HandleFunc("/file", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "file:///etc/passwd", http.StatusFound)
	})
	mux.HandleFunc("/huge", func(w http.ResponseWriter, r *http.Request) {
		io.Copy(w, io.LimitReader(zeros{}, int64(imagefile.DefaultLimits.MaxBytes)+10))
	})
	mux.HandleFunc("/text", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "hello") })
	hs := httptest.NewServer(mux)
	defer hs.Close()
	tests := []struct {
		name, url string
		fetch     bool
		err       string // a part of the error; "" for none
	}{
		{"fetched", hs.URL + "/cat.png", true, ""},
		{"redirected", hs.URL + "/moved", true, ""},
		{"not allowed", hs.URL + "/cat.png", false, "--allow-image-urls"},
		{"not found", hs.URL + "/nope", true, "404 Not Found"},
		{"redirect to a file", hs.URL + "/file", true, "a redirect to a file: URL"},
		{"over the byte limit", hs.URL + "/huge", true, "image too large"},
		{"not an image", hs.URL + "/text", true, "not a JPEG, PNG, WebP or GIF image"},
		{"other scheme", "file:///etc/passwd", true, "a data: URI (data:image/png;base64,...) or an http(s) URL"},
		{"no host", "http://", true, "or an http(s) URL"},
	}
	for _, c := range tests {
		im, err := newImageReader(context.Background(), c.fetch).url("image_url", c.url)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.err == "" && (im.Width() != 4 || im.Height() != 3):
			t.Errorf("%s: %d×%d", c.name, im.Width(), im.Height())
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%s: error %v, want one saying %q", c.name, err, c.err)
		case err != nil && classify(err).status != http.StatusBadRequest:
			t.Errorf("%s: status %d", c.name, classify(err).status)
		}
	}
}

// zeros reads as endless zero bytes.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// TestImagesThroughAPIs sends pictures through each dialect to the tiny
// model, which cannot see: a well-formed one reaches the runner, whose
// refusal comes back as a 400; a malformed one is a 400 saying what is
// wrong and where.
func TestImagesThroughAPIs(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	pic := base64.StdEncoding.EncodeToString(imagetest.PNG(t, 4, 3))
	uri := "data:image/png;base64," + pic
	const blind = `model \"tiny\" cannot see images (1 in the request): it has no vision projector (mmproj)`
	oai := func(url string) string {
		return `{"model":"tiny","messages":[{"role":"user","content":[{"type":"text","text":"What is this?"},{"type":"image_url","image_url":{"url":"` + url + `","detail":"high"}}]}]}`
	}
	ollamaChat := func(img string) string {
		return `{"model":"tiny","stream":false,"messages":[{"role":"user","content":"What is this?","images":["` + img + `"]}]}`
	}
	anthropic := func(source string) string {
		return `{"model":"tiny","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image","source":` + source + `},{"type":"text","text":"What is this?"}]}]}`
	}
	many := `{"model":"tiny","stream":false,"prompt":"hi","images":[` + strings.TrimSuffix(strings.Repeat(`"`+pic+`",`, maxImages+1), ",") + `]}`
	tests := []struct {
		name, path, body string
		want             string // a part of the 400's body
	}{
		{"openai", "/v1/chat/completions", oai(uri), blind},
		{"openai stream", "/v1/chat/completions", strings.Replace(oai(uri), `"model"`, `"stream":true,"model"`, 1), blind},
		{"openai string image_url", "/v1/chat/completions", strings.Replace(oai(uri), `{"url":"`+uri+`","detail":"high"}`, `"`+uri+`"`, 1), blind},
		{"ollama chat", "/api/chat", ollamaChat(pic), blind},
		{"ollama generate", "/api/generate", `{"model":"tiny","stream":false,"prompt":"What is this?","images":["` + pic + `"]}`, blind},
		{"ollama generate raw", "/api/generate", `{"model":"tiny","stream":false,"raw":true,"prompt":"What is this?","images":["` + pic + `"]}`, blind},
		{"anthropic", "/v1/messages", anthropic(`{"type":"base64","media_type":"image/png","data":"` + pic + `"}`), blind},

		{"openai http URL", "/v1/chat/completions", oai("https://example.com/cat.png"), "messages[0].content[1].image_url: image URLs are not fetched"},
		{"openai not a URL", "/v1/chat/completions", oai("cat.png"), "must be a data: URI"},
		{"openai bad base64", "/v1/chat/completions", oai("data:image/png;base64,!!!!"), "messages[0].content[1].image_url: the image is not valid base64"},
		{"openai text data", "/v1/chat/completions", oai("data:text/plain;base64," + pic), "not an image"},
		{"openai not an image", "/v1/chat/completions", oai("data:image/png;base64,aGVsbG8="), "not a JPEG, PNG, WebP or GIF image"},
		{"llama-server apply-template", "/apply-template", oai("data:image/png;base64,!!!!"), "not valid base64"},
		{"openai no url", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":[{"type":"image_url","image_url":{}}]}]}`, "an image part needs"},
		{"openai audio", "/v1/chat/completions", `{"model":"tiny","messages":[{"role":"user","content":[{"type":"input_audio"}]}]}`, `parts of type \"input_audio\" are not supported`},
		{"ollama bad base64", "/api/chat", ollamaChat("%%%"), "messages[0].images[0]: the image is not valid base64"},
		{"ollama empty", "/api/chat", ollamaChat(""), "the image is empty"},
		{"ollama not an image", "/api/generate", `{"model":"tiny","prompt":"hi","images":["aGk="]}`, "images[0]: not a JPEG"},
		{"ollama too many", "/api/generate", many, "images[16]: a request carries at most 16 images"},
		{"ollama bomb", "/api/generate", `{"model":"tiny","prompt":"hi","images":["` + base64.StdEncoding.EncodeToString(bombPNG(t, 100000, 100000)) + `"]}`,
			"images[0]: image too large: 100000×100000 pixels, the limit is 50000000"},
		{"ollama images and context", "/api/generate", `{"model":"tiny","prompt":"hi","context":[1],"images":["` + pic + `"]}`, "images cannot be combined"},
		{"anthropic no source", "/v1/messages", `{"model":"tiny","max_tokens":5,"messages":[{"role":"user","content":[{"type":"image"}]}]}`, "an image block needs a source"},
		{"anthropic bad media type", "/v1/messages", anthropic(`{"type":"base64","media_type":"text/plain","data":"` + pic + `"}`), `media type \"text/plain\" is not an image`},
		{"anthropic bad source", "/v1/messages", anthropic(`{"type":"file","file_id":"f"}`), `a source of type \"file\"`},
		{"anthropic url", "/v1/messages", anthropic(`{"type":"url","url":"https://example.com/a.png"}`), "messages[0].content[0].source.url: image URLs are not fetched"},
		{"anthropic bad data", "/v1/messages", anthropic(`{"type":"base64","media_type":"image/png","data":"aGk="}`), "messages[0].content[0].source.data: not a JPEG"},
		{"anthropic image in a tool result", "/v1/messages", `{"model":"tiny","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[{"type":"image"}]}]}]}`, "image blocks are not supported here"},
		{"responses", "/v1/responses", `{"model":"tiny","input":[{"role":"user","content":[{"type":"input_image","image_url":"` + uri + `"}]}]}`, "input_image parts are not supported by /v1/responses"},
	}
	for _, c := range tests {
		resp, err := http.Post(hs.URL+c.path, "application/json", strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), c.want) {
			t.Errorf("%s: %d %s, want a 400 saying %s", c.name, resp.StatusCode, body, c.want)
		}
	}
}

func TestShowVision(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	code, v := post(t, hs.URL+"/api/show", `{"model":"tiny"}`)
	if code != http.StatusOK {
		t.Fatal(code, v)
	}
	caps, _ := v["capabilities"].([]any)
	for _, c := range caps {
		if c == "vision" {
			t.Errorf("capabilities %v: the tiny model cannot see", caps)
		}
	}
}
