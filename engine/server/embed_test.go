package server

import (
	"encoding/base64"
	"math"
	"testing"
)

// TestEmbeddings checks both dialects' embeddings: unit vectors of the
// model's width, the same for the same text, different for another, as
// floats or base64, and the error paths.
func TestEmbeddings(t *testing.T) {
	_, hs := newTestServer(t, Config{})
	status, v := post(t, hs.URL+"/v1/embeddings", `{"model":"tiny","input":["the cat","the cat","a mat"]}`)
	if status != 200 || v["object"] != "list" {
		t.Fatalf("%d %v", status, v)
	}
	data := v["data"].([]any)
	if len(data) != 3 {
		t.Fatalf("%d embeddings", len(data))
	}
	vec := func(i int) []float64 {
		var out []float64
		for _, x := range data[i].(map[string]any)["embedding"].([]any) {
			out = append(out, x.(float64))
		}
		return out
	}
	a, b, c := vec(0), vec(1), vec(2)
	if len(a) != 256 {
		t.Errorf("%d dimensions, want the model's 256", len(a))
	}
	norm, same, diff := 0.0, true, false
	for i := range a {
		norm += a[i] * a[i]
		same = same && a[i] == b[i]
		diff = diff || a[i] != c[i]
	}
	if math.Abs(norm-1) > 1e-5 || !same || !diff {
		t.Errorf("norm %v, same text same vector %v, other text other vector %v", norm, same, diff)
	}
	if u := v["usage"].(map[string]any); u["prompt_tokens"].(float64) <= 0 {
		t.Errorf("usage %v", u)
	}
	status, v = post(t, hs.URL+"/v1/embeddings", `{"model":"tiny","input":"the cat","encoding_format":"base64"}`)
	if status != 200 {
		t.Fatalf("base64: %d %v", status, v)
	}
	raw, err := base64.StdEncoding.DecodeString(v["data"].([]any)[0].(map[string]any)["embedding"].(string))
	if err != nil || len(raw) != 4*256 {
		t.Errorf("base64 embedding: %d bytes, %v", len(raw), err)
	}
	status, v = post(t, hs.URL+"/api/embed", `{"model":"tiny:latest","input":["the cat","a mat"]}`)
	if status != 200 || len(v["embeddings"].([]any)) != 2 || v["prompt_eval_count"].(float64) <= 0 {
		t.Errorf("ollama embed: %d %v", status, v)
	}
	for _, bad := range []struct{ path, body string }{
		{"/v1/embeddings", `{"model":"tiny","input":[]}`},
		{"/v1/embeddings", `{"model":"tiny","input":5}`},
		{"/v1/embeddings", `{"model":"tiny","input":"x","dimensions":3}`},
		{"/v1/embeddings", `{"model":"tiny","input":[[1,99999]]}`},
		{"/api/embed", `{"model":"tiny","input":[]}`},
	} {
		if status, v := post(t, hs.URL+bad.path, bad.body); status != 400 {
			t.Errorf("%s %s: %d %v", bad.path, bad.body, status, v)
		}
	}
}
