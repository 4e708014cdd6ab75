package server

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"time"
)

// Embeddings: OpenAI's /v1/embeddings, Ollama's /api/embed and its
// legacy /api/embeddings. A text's
// embedding is the model's last hidden state after the output norm,
// mean-pooled over its tokens and scaled to unit length, as OpenAI's are
// and as llama-server's are by default.

// embedInput is an embeddings input, or the prompt of a completion: a
// string, a list of strings, a list of token ids, or a list of lists of
// token ids.
type embedInput struct {
	texts  []string
	tokens [][]int32
}

func (in *embedInput) UnmarshalJSON(b []byte) error {
	var one string
	if json.Unmarshal(b, &one) == nil {
		in.texts = []string{one}
		return nil
	}
	var many []string
	if json.Unmarshal(b, &many) == nil {
		in.texts = many
		return nil
	}
	var ids []int32
	if json.Unmarshal(b, &ids) == nil {
		in.tokens = [][]int32{ids}
		return nil
	}
	var lists [][]int32
	if json.Unmarshal(b, &lists) == nil {
		in.tokens = lists
		return nil
	}
	return fmt.Errorf("input must be a string, a list of strings, or lists of token ids")
}

func (s *Server) handleEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model          string     `json:"model"`
		Input          embedInput `json:"input"`
		EncodingFormat string     `json:"encoding_format"`
		Dimensions     *int       `json:"dimensions"`
	}
	if err := s.decodeJSON(w, r, &req); err != nil {
		oaiError(w, err)
		return
	}
	m, err := s.run.Model(req.Model)
	if err != nil {
		oaiError(w, err)
		return
	}
	if req.EncodingFormat != "" && req.EncodingFormat != "float" && req.EncodingFormat != "base64" {
		oaiError(w, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "encoding_format",
			msg: fmt.Sprintf("encoding_format %q: float or base64", req.EncodingFormat)})
		return
	}
	if req.Dimensions != nil && *req.Dimensions != m.Info.Embd {
		oaiError(w, &apiError{status: http.StatusBadRequest, typ: "invalid_request_error", param: "dimensions",
			msg: fmt.Sprintf("this model's embeddings have %d dimensions; it cannot give %d", m.Info.Embd, *req.Dimensions)})
		return
	}
	vecs, n, err := m.Embed(r.Context(), req.Input.texts, req.Input.tokens, false)
	if err != nil {
		oaiError(w, err)
		return
	}
	data := make([]map[string]any, len(vecs))
	for i, v := range vecs {
		var e any = v
		if req.EncodingFormat == "base64" {
			b := make([]byte, 4*len(v))
			for j, x := range v {
				binary.LittleEndian.PutUint32(b[4*j:], math.Float32bits(x))
			}
			e = base64.StdEncoding.EncodeToString(b)
		}
		data[i] = map[string]any{"object": "embedding", "index": i, "embedding": e}
	}
	writeJSON(w, http.StatusOK, map[string]any{"object": "list", "data": data, "model": m.Name,
		"usage": map[string]any{"prompt_tokens": n, "total_tokens": n}})
}

func (s *Server) handleOllamaEmbed(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var req struct {
		Model     string          `json:"model"`
		Input     embedInput      `json:"input"`
		Truncate  *bool           `json:"truncate"`
		KeepAlive json.RawMessage `json:"keep_alive"`
	}
	if err := s.decodeJSON(w, r, &req); err != nil {
		ollamaError(w, err)
		return
	}
	vecs, n, ok := s.ollamaEmbed(w, r, req.Model, req.KeepAlive, req.Input, req.Truncate == nil || *req.Truncate)
	if !ok {
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": req.Model, "embeddings": vecs,
		"total_duration": time.Since(start).Nanoseconds(), "load_duration": 0, "prompt_eval_count": n})
}

// handleOllamaEmbeddings is Ollama's legacy /api/embeddings: one prompt,
// one {"embedding": [...]} (empty for an empty prompt, as Ollama answers).
// The vector is /api/embed's, of unit length; cosine similarity, what
// callers compute, is the same.
func (s *Server) handleOllamaEmbeddings(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model     string          `json:"model"`
		Prompt    string          `json:"prompt"`
		KeepAlive json.RawMessage `json:"keep_alive"`
	}
	if err := s.decodeJSON(w, r, &req); err != nil {
		ollamaError(w, err)
		return
	}
	if req.Prompt == "" {
		if _, err := s.run.Model(req.Model); err != nil {
			ollamaError(w, err)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{"embedding": []float32{}})
		return
	}
	vecs, _, ok := s.ollamaEmbed(w, r, req.Model, req.KeepAlive, embedInput{texts: []string{req.Prompt}}, true)
	if ok {
		writeJSON(w, http.StatusOK, map[string]any{"embedding": vecs[0]})
	}
}

// ollamaEmbed embeds in on the model an Ollama request names, then applies
// its keep_alive, and returns the vectors and the tokens read. On failure
// it has written the error and reports false.
func (s *Server) ollamaEmbed(w http.ResponseWriter, r *http.Request, name string, keepAlive json.RawMessage, in embedInput, truncate bool) ([][]float32, int, bool) {
	m, err := s.run.Model(name)
	if err != nil {
		ollamaError(w, err)
		return nil, 0, false
	}
	d, setKeepAlive, err := parseKeepAlive(keepAlive)
	if err != nil {
		ollamaError(w, err)
		return nil, 0, false
	}
	vecs, n, err := m.Embed(r.Context(), in.texts, in.tokens, truncate)
	if err != nil {
		ollamaError(w, err)
		return nil, 0, false
	}
	if setKeepAlive { // after the run, so that a keep_alive of 0 cannot unload m before it
		m.SetKeepAlive(d)
	}
	return vecs, n, true
}
