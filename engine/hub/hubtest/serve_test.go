package hubtest

import (
	"io"
	"net"
	"net/http"
	"testing"
)

// TestServe serves the fake on listeners of its own, as fakehub does, and
// follows a resolve redirect to its CDN.
func TestServe(t *testing.T) {
	listen := func() net.Listener {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		return ln
	}
	hubLn, cdnLn := listen(), listen()
	h := Serve(hubLn, cdnLn)
	defer h.Close()
	if h.URL != "http://"+hubLn.Addr().String() || h.CDNURL != "http://"+cdnLn.Addr().String() {
		t.Fatalf("URL %s, CDNURL %s", h.URL, h.CDNURL)
	}
	h.AddRepo("o/m", map[string][]byte{"m.gguf": []byte("GGUF bytes")}, RepoOptions{})
	resp, err := http.Get(h.URL + "/o/m/resolve/main/m.gguf")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || string(body) != "GGUF bytes" {
		t.Fatalf("body %q, %v", body, err)
	}
	if reqs := h.Requests(); len(reqs) != 2 || reqs[0].Server != "hub" || reqs[1].Server != "cdn" {
		t.Errorf("requests %v", reqs)
	}
}
