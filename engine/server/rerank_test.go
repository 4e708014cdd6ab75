package server

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/engine/gguf"
	"saji/engine/runner"
	"saji/engine/scheduler"
	"saji/engine/synth"
	"saji/kernels/quant"
)

// rerankTemplate is the prompt llama.cpp's converter gives Qwen3-Reranker
// (tokenizer.chat_template.rerank).
const rerankTemplate = "<|im_start|>system\nJudge whether the Document meets the requirements based on the Query and the Instruct provided. " +
	"Note that the answer can only be \"yes\" or \"no\".<|im_end|>\n<|im_start|>user\n<Instruct>: Given a web search query, " +
	"retrieve relevant passages that answer the query\n<Query>: {query}\n<Document>: {document}<|im_end|>\n" +
	"<|im_start|>assistant\n<think>\n\n</think>\n\n"

// tinyQwen3 is the shape of the tiny reranker: a 2-layer qwen3 (per-head
// q and k norms), 256 wide, with scaled weights.
var tinyQwen3 = synth.Shape{Name: "tiny-qwen3", Arch: "qwen3", Embd: 256, Layers: 2, Heads: 4, KVHeads: 2, FFN: 512,
	HeadNorm: true, Tied: true, RopeBase: 1000000, Context: 2048, Eps: 1e-6, Scaled: true}

// writeRanker writes a model of shape with the mini vocabulary and F16
// weights from seed 7 at path, with <arch>.pooling_type pooling (0: none)
// and, when head is set, what llama.cpp's converter gives Qwen3-Reranker:
// the labels "yes" and "no", the rerank prompt tmpl ("": none, for
// llama-server's default of the query and document joined), and a
// classification head cls.output.weight of two random F32 rows. The tiny
// qwen3 shape with pooling 4 (rank) and a head is the tiny reranker.
func writeRanker(t testing.TB, path string, shape synth.Shape, pooling uint32, head bool, tmpl string) {
	t.Helper()
	vp := path + ".vocab.gguf"
	if err := synth.WriteMiniVocab(context.Background(), vp, "llama"); err != nil {
		t.Fatal(err)
	}
	defer os.Remove(vp)
	vocab, err := gguf.Open(vp)
	if err != nil {
		t.Fatal(err)
	}
	defer vocab.Close()
	ft, _ := synth.ParseFileType("f16")
	w, err := synth.NewWriter(context.Background(), synth.Options{Shape: shape, FileType: ft, Vocab: vocab, Seed: 7, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if pooling != 0 {
		if err := w.Set(shape.Arch+".pooling_type", pooling); err != nil {
			t.Fatal(err)
		}
	}
	if head {
		r := rand.New(rand.NewPCG(7, 1))
		data := make([]byte, 4*2*shape.Embd)
		for i := range 2 * shape.Embd {
			binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(float32(r.NormFloat64()/8)))
		}
		if err := w.Set(shape.Arch+".classifier.output_labels", []string{"yes", "no"}); err != nil {
			t.Fatal(err)
		}
		if tmpl != "" {
			if err := w.Set("tokenizer.chat_template.rerank", tmpl); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.AddTensor("cls.output.weight", quant.TypeF32, []int64{int64(shape.Embd), 2}, data); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.WriteFile(context.Background(), path); err != nil {
		t.Fatal(err)
	}
}

// rerankRef is testdata/rerank_ref.json: llama-server's scores for the
// tiny rerankers.
type rerankRef struct {
	How   string `json:"how"`
	Cases []struct {
		Model     string   `json:"model"`
		Query     string   `json:"query"`
		Documents []string `json:"documents"`
		Results   []struct {
			Index int     `json:"index"`
			Score float64 `json:"relevance_score"`
		} `json:"results"`
		PromptTokens int `json:"prompt_tokens"`
	} `json:"cases"`
}

// newRerankServer serves the tiny reranker as "rr" (and without its
// rerank prompt as "rr-joined"), and models that
// cannot rank: the same without its head and pooling ("plain"), with rank
// pooling but no head ("headless"), with CLS pooling ("cls"), and a tiny
// llama with a head and rank pooling ("llama").
func newRerankServer(t *testing.T) *httptest.Server {
	t.Helper()
	dir := t.TempDir()
	llama, _ := synth.LookupShape("tiny")
	s := New(Config{})
	for _, mk := range []struct {
		name    string
		shape   synth.Shape
		pooling uint32
		head    bool
		tmpl    string
	}{
		{"rr", tinyQwen3, 4, true, rerankTemplate},
		{"rr-joined", tinyQwen3, 4, true, ""},
		{"plain", tinyQwen3, 0, false, ""},
		{"headless", tinyQwen3, 4, false, ""},
		{"cls", tinyQwen3, 2, true, rerankTemplate},
		{"llama", llama, 4, true, rerankTemplate},
	} {
		path := filepath.Join(dir, mk.name+".gguf")
		writeRanker(t, path, mk.shape, mk.pooling, mk.head, mk.tmpl)
		m, err := runner.Load(context.Background(), path, runner.LoadOptions{Name: mk.name, Threads: 2, Scheduler: scheduler.Config{Context: 1024, MaxSeqs: 1}})
		if err != nil {
			t.Fatal(err)
		}
		s.Runner().Add(m)
	}
	return serveTest(t, s)
}

// TestRerankReference ranks llama-server's query and documents with the
// tiny reranker and checks the scores and their order against its figures.
func TestRerankReference(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "rerank_ref.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref rerankRef
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	hs := newRerankServer(t)
	for _, c := range ref.Cases {
		body, _ := json.Marshal(map[string]any{"model": c.Model, "query": c.Query, "documents": c.Documents})
		status, v := post(t, hs.URL+"/v1/rerank", string(body))
		if status != 200 {
			t.Fatalf("%s: status %d: %v", c.Model, status, v)
		}
		results := v["results"].([]any)
		if len(results) != len(c.Results) {
			t.Fatalf("%s: %d results, want %d: %v", c.Model, len(results), len(c.Results), v)
		}
		for i, want := range c.Results {
			got := results[i].(map[string]any)
			if int(got["index"].(float64)) != want.Index || math.Abs(got["relevance_score"].(float64)-want.Score) > 5e-4 {
				t.Errorf("%s: result %d: %v, want index %d score %.6f", c.Model, i, got, want.Index, want.Score)
			}
		}
		if u := v["usage"].(map[string]any); int(u["prompt_tokens"].(float64)) != c.PromptTokens || v["model"] != c.Model || v["object"] != "list" {
			t.Errorf("%s: usage %v, model %v, object %v; want %d prompt tokens", c.Model, u, v["model"], v["object"], c.PromptTokens)
		}
	}
}

func TestRerankRequests(t *testing.T) {
	hs := newRerankServer(t)
	docs := `["a cat sat","the mat","on the cat mat"]`
	tests := []struct {
		name, path, body string
		status           int
		check            func(t *testing.T, body string)
	}{
		{name: "top_n and documents", path: "/rerank", body: `{"model":"rr","query":"the cat","documents":` + docs + `,"top_n":2,"return_documents":true}`,
			status: 200, check: func(t *testing.T, body string) {
				var v struct {
					Results []struct {
						Index    int
						Score    float64 `json:"relevance_score"`
						Document struct{ Text string }
					}
				}
				json.Unmarshal([]byte(body), &v)
				if len(v.Results) != 2 || v.Results[0].Score < v.Results[1].Score || v.Results[0].Document.Text == "" ||
					v.Results[0].Score <= 0 || v.Results[0].Score >= 1 {
					t.Errorf("results %+v", v.Results)
				}
			}},
		{name: "document objects", path: "/v1/reranking", body: `{"query":"the cat","documents":[{"text":"a cat"},"the mat"]}`, status: 200,
			check: func(t *testing.T, body string) {
				if strings.Count(body, "relevance_score") != 2 {
					t.Errorf("body %s", body)
				}
			}},
		{name: "TEI", path: "/reranking", body: `{"model":"rr","query":"the cat","texts":` + docs + `,"return_text":true}`, status: 200,
			check: func(t *testing.T, body string) {
				var v []struct {
					Index int
					Score float64
					Text  string
				}
				if err := json.Unmarshal([]byte(body), &v); err != nil || len(v) != 3 || v[0].Text == "" {
					t.Errorf("TEI answer %s (%v)", body, err)
				}
			}},
		{name: "top_n 0", path: "/v1/rerank", body: `{"model":"rr","query":"q","documents":["a"],"top_n":0}`, status: 200,
			check: func(t *testing.T, body string) {
				if !strings.Contains(body, `"results":[]`) {
					t.Errorf("body %s", body)
				}
			}},
		{name: "not a reranker", path: "/v1/rerank", body: `{"model":"plain","query":"q","documents":["a"]}`, status: 400,
			check: wantError(`model \"plain\" cannot rank: it is not a reranker`, "invalid_request_error")},
		{name: "rank pooling without a head", path: "/v1/rerank", body: `{"model":"headless","query":"q","documents":["a"]}`, status: 400,
			check: wantError("no classification head (cls.output.weight)", "invalid_request_error")},
		{name: "CLS pooling", path: "/v1/rerank", body: `{"model":"cls","query":"q","documents":["a"]}`, status: 400,
			check: wantError("qwen3.pooling_type is 2", "invalid_request_error")},
		{name: "a llama reranker", path: "/v1/rerank", body: `{"model":"llama","query":"q","documents":["a"]}`, status: 400,
			check: wantError("qwen3 ones (Qwen3-Reranker), not llama", "invalid_request_error")},
		{name: "no query", path: "/v1/rerank", body: `{"model":"rr","documents":["a"]}`, status: 400, check: wantError(`\"query\" must be provided`, "invalid_request_error")},
		{name: "no documents", path: "/v1/rerank", body: `{"model":"rr","query":"q","documents":[]}`, status: 400, check: wantError("non-empty", "invalid_request_error")},
		{name: "bad documents", path: "/v1/rerank", body: `{"model":"rr","query":"q","documents":[1]}`, status: 400, check: wantError("list of strings", "invalid_request_error")},
		{name: "negative top_n", path: "/v1/rerank", body: `{"model":"rr","query":"q","documents":["a"],"top_n":-1}`, status: 400, check: wantError("top_n", "invalid_request_error")},
		{name: "unknown model", path: "/v1/rerank", body: `{"model":"nope","query":"q","documents":["a"]}`, status: 404, check: wantError("nope", "not_found_error")},
		{name: "too long", path: "/v1/rerank", body: `{"model":"rr","query":"q","documents":["` + strings.Repeat("the cat ", 600) + `"]}`, status: 400,
			check: wantError("context", "exceed_context_size_error")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, body := postRaw(t, hs.URL+tt.path, tt.body)
			if status != tt.status {
				t.Fatalf("status %d, want %d: %s", status, tt.status, body)
			}
			tt.check(t, body)
		})
	}
}
