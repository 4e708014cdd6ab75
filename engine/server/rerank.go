package server

import (
	"encoding/json"
	"net/http"
	"sort"
)

// Reranking: llama-server's /v1/rerank (and its aliases), in Jina's and
// Cohere's shape ({query, documents, top_n, return_documents} ->
// {results: [{index, relevance_score, document}], usage}) or, when the
// request has "texts", Hugging Face TEI's ([{index, score, text}]). Only a
// reranker ranks (see runner.Model.CanRank); another model is a 400 that
// says why.

// rerankRoutes registers /v1/rerank under llama-server's four names.
func (s *Server) rerankRoutes() {
	for _, p := range []string{"/rerank", "/reranking", "/v1/rerank", "/v1/reranking"} {
		s.mux.HandleFunc("POST "+p, s.handleRerank)
	}
}

// rerankDocs are the documents of a rerank request: strings, or objects
// with a text.
type rerankDocs []string

func (d *rerankDocs) UnmarshalJSON(b []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return badRequest(`"documents" must be a list of strings`)
	}
	out := make([]string, len(raw))
	for i, e := range raw {
		var obj struct {
			Text *string `json:"text"`
		}
		switch {
		case json.Unmarshal(e, &out[i]) == nil:
		case json.Unmarshal(e, &obj) == nil && obj.Text != nil:
			out[i] = *obj.Text
		default:
			return badRequest(`"documents" must be a list of strings (or of {"text": ...})`)
		}
	}
	*d = out
	return nil
}

// rerankRequest is a rerank request in Jina's, Cohere's or TEI's shape.
type rerankRequest struct {
	Model           string     `json:"model"`
	Query           *string    `json:"query"`
	Documents       rerankDocs `json:"documents"`
	Texts           rerankDocs `json:"texts"` // TEI's documents
	TopN            *int       `json:"top_n"`
	ReturnDocuments bool       `json:"return_documents"`
	ReturnText      bool       `json:"return_text"` // TEI's return_documents
}

// rerankResult is one document's place in the answer.
type rerankResult struct {
	index int
	score float32
}

func (s *Server) handleRerank(w http.ResponseWriter, r *http.Request) {
	var req rerankRequest
	m, ok := s.lsModel(w, r, &req, &req.Model)
	if !ok {
		return
	}
	tei := req.Texts != nil
	docs := req.Documents
	if tei {
		docs = req.Texts
	}
	switch {
	case req.Query == nil:
		lsError(w, badRequest(`"query" must be provided`))
		return
	case len(docs) == 0:
		lsError(w, badRequest(`"documents" must be a non-empty list of strings`))
		return
	case req.TopN != nil && *req.TopN < 0:
		lsError(w, badRequest(`"top_n" must not be negative, not %d`, *req.TopN))
		return
	}
	if err := m.CanRank(); err != nil {
		lsError(w, err)
		return
	}
	scores, n, err := m.Rank(r.Context(), *req.Query, docs)
	if err != nil {
		lsError(w, err)
		return
	}
	ranked := make([]rerankResult, len(scores))
	for i, sc := range scores {
		ranked[i] = rerankResult{i, sc}
	}
	sort.SliceStable(ranked, func(a, b int) bool { return ranked[a].score > ranked[b].score })
	if req.TopN != nil && *req.TopN < len(ranked) {
		ranked = ranked[:*req.TopN]
	}
	results := make([]map[string]any, len(ranked))
	for i, rr := range ranked {
		switch {
		case tei:
			results[i] = map[string]any{"index": rr.index, "score": rr.score}
			if req.ReturnText {
				results[i]["text"] = docs[rr.index]
			}
		default:
			results[i] = map[string]any{"index": rr.index, "relevance_score": rr.score}
			if req.ReturnDocuments {
				results[i]["document"] = map[string]any{"text": docs[rr.index]}
			}
		}
	}
	if tei {
		writeJSON(w, http.StatusOK, results)
		return
	}
	model := req.Model
	if model == "" {
		model = m.Name
	}
	writeJSON(w, http.StatusOK, map[string]any{"model": model, "object": "list", "results": results,
		"usage": map[string]any{"prompt_tokens": n, "total_tokens": n}})
}
