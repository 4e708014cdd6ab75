package server

import (
	"net/http"
	"slices"
	"testing"
)

// TestVisionRepeat sends the same question about a picture twice through
// the OpenAI API to a tiny model that can see: the second request,
// served from the prefix cache, gets the same greedy reply, token for
// token. (It did not: the cache matched the prompt up to a shorter last
// chunk than the first request's, which moved the logits; the first token
// of the second reply was a byte token, "\uFFFDHY mat" for "HY mat".)
// LLaVA's projector (mlp), SmolVLM's (idefics3) and Pixtral's serve the
// same way.
func TestVisionRepeat(t *testing.T) {
	for _, shape := range []string{"tiny-gemma3-vision", "tiny-llava-vision", "tiny-smolvlm-vision", "tiny-mistral3-vision", "tiny-qwen25vl", "tiny-qwen3vl"} {
		t.Run(shape, func(t *testing.T) { visionRepeat(t, shape) })
	}
}

// visionRepeat is TestVisionRepeat on the vision shape called shape.
func visionRepeat(t *testing.T, shape string) {
	s := New(Config{})
	s.Runner().Add(visionFixtureOf(t, shape))
	hs := serveTest(t, s)
	// checks.mjs's PICTURE, a 2×2 PNG.
	const pic = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAG0lEQVR4nGL6z8DA8J+BhZHh/38GBkAAAAD//x0vBATwkV0VAAAAAElFTkSuQmCC"
	look := `{"model":"vision","temperature":0,"max_tokens":8,"logprobs":true,"messages":[{"role":"user","content":[` +
		`{"type":"text","text":"What is in this picture?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,` + pic + `","detail":"low"}}]}]}`
	var texts [2]string
	var tokens [2][]string
	var cached [2]float64
	for i := range texts {
		code, v := post(t, hs.URL+"/v1/chat/completions", look)
		if code != http.StatusOK {
			t.Fatal(code, v)
		}
		choice := v["choices"].([]any)[0].(map[string]any)
		texts[i] = choice["message"].(map[string]any)["content"].(string)
		for _, c := range choice["logprobs"].(map[string]any)["content"].([]any) {
			tokens[i] = append(tokens[i], c.(map[string]any)["token"].(string))
		}
		cached[i] = v["usage"].(map[string]any)["prompt_tokens_details"].(map[string]any)["cached_tokens"].(float64)
	}
	if len(tokens[0]) != 8 {
		t.Fatalf("the first reply has %d tokens %q, want 8", len(tokens[0]), tokens[0])
	}
	if texts[0] != texts[1] || !slices.Equal(tokens[0], tokens[1]) {
		t.Errorf("the same request twice: %q %q, then from the prefix cache (%v tokens) %q %q", texts[0], tokens[0], cached[1], texts[1], tokens[1])
	}
	if cached[1] == 0 {
		t.Error("the second request took nothing from the prefix cache")
	}
}
