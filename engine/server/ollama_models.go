package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strings"

	"saji/engine/library"
	"saji/engine/runner"
)

// Ollama's model management over the runner's library: /api/delete,
// /api/copy, /api/blobs/:digest, /api/create (a model made of a pushed
// GGUF blob, as clients register a local file) and /api/pull
// (ollama_pull.go). Names are Ollama's: NAME:latest is the library's NAME,
// and a name pulled is an alias of the model's.

// ollamaModelRoutes registers the model management endpoints.
func (s *Server) ollamaModelRoutes() {
	s.mux.HandleFunc("DELETE /api/delete", s.handleOllamaDelete)
	s.mux.HandleFunc("POST /api/copy", s.handleOllamaCopy)
	s.mux.HandleFunc("HEAD /api/blobs/{digest}", s.handleOllamaBlobHead)
	s.mux.HandleFunc("POST /api/blobs/{digest}", s.handleOllamaBlobPush)
	s.mux.HandleFunc("POST /api/create", s.handleOllamaCreate)
	s.mux.HandleFunc("POST /api/pull", s.handleOllamaPull)
}

// libraryName is the library's name of an Ollama model name.
func libraryName(name string) string {
	if base, ok := strings.CutSuffix(name, runner.LatestTag); ok {
		return base
	}
	return name
}

// libraryRequest returns the runner's library, with the request's body
// decoded into req. On failure (no library, bad JSON) it has written the
// error and reports false.
func (s *Server) libraryRequest(w http.ResponseWriter, r *http.Request, req any) (*library.Library, bool) {
	lib := s.run.Library()
	if lib == nil {
		ollamaError(w, &apiError{status: http.StatusNotImplemented, typ: "invalid_request_error",
			msg: "this server has no model library to manage (saji serve --models-dir DIR has one, as the app's server does)"})
		return nil, false
	}
	if req != nil {
		if err := s.decodeJSON(w, r, req); err != nil {
			ollamaError(w, err)
			return nil, false
		}
	}
	return lib, true
}

// libraryError turns a library error into the status it is reported with.
func libraryError(err error) error {
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, library.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, library.ErrDigest), errors.Is(err, library.ErrExists), errors.Is(err, library.ErrNotGGUF),
		errors.Is(err, library.ErrTruncated), errors.Is(err, library.ErrMalformed), errors.Is(err, library.ErrUnsupportedArch):
		status = http.StatusBadRequest
	case errors.Is(err, library.ErrDiskFull):
		status = http.StatusInsufficientStorage
	}
	return &apiError{status: status, typ: "invalid_request_error", msg: err.Error()}
}

// replace deletes the model called name, if the library has one, so that
// a create or copy can take its name, as Ollama's overwrite it; the model
// is unloaded first.
func (s *Server) replace(lib *library.Library, name string) error {
	e, err := lib.Get(name)
	if err != nil {
		return nil
	}
	s.run.Unload(e.Name)
	return lib.Delete(e.Name)
}

// ollamaNameRequest is a request naming one model ("name" is the older
// field).
type ollamaNameRequest struct {
	Model string `json:"model"`
	Name  string `json:"name"`
}

// name returns the library's name of the model the request names.
func (r ollamaNameRequest) name() string {
	if r.Model != "" {
		return libraryName(r.Model)
	}
	return libraryName(r.Name)
}

func (s *Server) handleOllamaDelete(w http.ResponseWriter, r *http.Request) {
	var req ollamaNameRequest
	lib, ok := s.libraryRequest(w, r, &req)
	if !ok {
		return
	}
	e, err := lib.Get(req.name()) // the name, or an alias of it
	if err != nil {
		ollamaError(w, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("model %q not found", ollamaName(req.name()))})
		return
	}
	s.run.Unload(e.Name) // its requests end; the file goes
	if err := lib.Delete(e.Name); err != nil {
		ollamaError(w, libraryError(err))
		return
	}
	w.WriteHeader(http.StatusOK)
}

func (s *Server) handleOllamaCopy(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Source      string `json:"source"`
		Destination string `json:"destination"`
	}
	lib, ok := s.libraryRequest(w, r, &req)
	if !ok {
		return
	}
	src, dst := libraryName(req.Source), libraryName(req.Destination)
	if src == "" || dst == "" {
		ollamaError(w, badRequest("source and destination are required"))
		return
	}
	if err := s.copyModel(r, lib, src, dst); err != nil {
		ollamaError(w, err)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// copyModel makes the library's model src also known as dst, replacing a
// model of that name.
func (s *Server) copyModel(r *http.Request, lib *library.Library, src, dst string) error {
	if _, err := lib.Get(src); err != nil {
		return &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("model %q not found", ollamaName(src))}
	}
	if src == dst {
		return nil
	}
	if err := s.replace(lib, dst); err != nil {
		return libraryError(err)
	}
	if _, err := lib.Copy(r.Context(), src, dst); err != nil {
		return libraryError(err)
	}
	return nil
}

func (s *Server) handleOllamaBlobHead(w http.ResponseWriter, r *http.Request) {
	lib, ok := s.libraryRequest(w, r, nil)
	if !ok {
		return
	}
	has, err := lib.HasBlob(r.PathValue("digest"))
	switch {
	case err != nil:
		w.WriteHeader(http.StatusBadRequest)
	case has:
		w.WriteHeader(http.StatusOK)
	default:
		w.WriteHeader(http.StatusNotFound)
	}
}

func (s *Server) handleOllamaBlobPush(w http.ResponseWriter, r *http.Request) {
	lib, ok := s.libraryRequest(w, r, nil)
	if !ok {
		return
	}
	digest := r.PathValue("digest")
	if has, err := lib.HasBlob(digest); err != nil {
		ollamaError(w, libraryError(err))
		return
	} else if has {
		w.WriteHeader(http.StatusOK) // Ollama's answer to a blob it has
		return
	}
	if err := lib.WriteBlob(r.Context(), digest, r.Body); err != nil {
		ollamaError(w, libraryError(err))
		return
	}
	w.WriteHeader(http.StatusCreated)
}

// ollamaCreateRequest is the body of /api/create. Saji makes a model of
// one GGUF blob (files), or of another model (from); what would change a
// model (a template, parameters, quantization, ...) is refused.
type ollamaCreateRequest struct {
	ollamaNameRequest
	From   string            `json:"from"`
	Files  map[string]string `json:"files"`
	Stream *bool             `json:"stream"`

	Adapters   json.RawMessage `json:"adapters"`
	Template   json.RawMessage `json:"template"`
	System     json.RawMessage `json:"system"`
	Parameters json.RawMessage `json:"parameters"`
	Messages   json.RawMessage `json:"messages"`
	License    json.RawMessage `json:"license"`
	Quantize   json.RawMessage `json:"quantize"`
	Modelfile  json.RawMessage `json:"modelfile"`
}

func (s *Server) handleOllamaCreate(w http.ResponseWriter, r *http.Request) {
	var req ollamaCreateRequest
	lib, ok := s.libraryRequest(w, r, &req)
	if !ok {
		return
	}
	name := req.name()
	for field, v := range map[string]json.RawMessage{"adapters": req.Adapters, "template": req.Template, "system": req.System,
		"parameters": req.Parameters, "messages": req.Messages, "license": req.License, "quantize": req.Quantize, "modelfile": req.Modelfile} {
		if present(v) {
			ollamaError(w, badRequest("create: %s is not supported (Saji makes a model of a GGUF file as it is: files, or from)", field))
			return
		}
	}
	var status []string // the lines of the answer, Ollama's
	switch {
	case name == "":
		ollamaError(w, badRequest("create: model (the new model's name) is required"))
		return
	case len(req.Files) == 0 && req.From != "":
		if err := s.copyModel(r, lib, libraryName(req.From), name); err != nil {
			ollamaError(w, err)
			return
		}
		status = append(status, "using existing model "+ollamaName(libraryName(req.From)))
	case len(req.Files) == 1 && req.From == "":
		var file, digest string
		for f, d := range req.Files {
			file, digest = f, d
		}
		if !strings.HasSuffix(strings.ToLower(file), ".gguf") {
			ollamaError(w, badRequest("create: files holds %q; Saji makes a model of one .gguf file", file))
			return
		}
		if err := s.createFromBlob(r, lib, name, digest); err != nil {
			ollamaError(w, err)
			return
		}
		status = append(status, "parsing GGUF", "using existing layer "+digest)
	default:
		files := make([]string, 0, len(req.Files))
		for f := range req.Files {
			files = append(files, f)
		}
		sort.Strings(files)
		ollamaError(w, badRequest("create: want files with one GGUF file, or from, not files %v and from %q", files, req.From))
		return
	}
	status = append(status, "writing manifest", "success")
	if req.Stream != nil && !*req.Stream {
		writeJSON(w, http.StatusOK, map[string]any{"status": "success"})
		return
	}
	nd := newNDJSON(w)
	for _, st := range status {
		if nd.send(map[string]any{"status": st}) != nil {
			return
		}
	}
}

// createFromBlob makes the library's model name of the GGUF blob of
// digest, replacing a model of that name; the blob is then dropped (the
// model's file holds its bytes).
func (s *Server) createFromBlob(r *http.Request, lib *library.Library, name, digest string) error {
	blob, err := lib.BlobPath(digest)
	if err != nil {
		return libraryError(err)
	}
	if _, err := os.Stat(blob); err != nil {
		return &apiError{status: http.StatusBadRequest, msg: fmt.Sprintf("create: blob %s is missing: push it first (POST /api/blobs/%s)", digest, digest)}
	}
	if _, err := library.Validate(blob); err != nil {
		return badRequest("create: the blob is not a model Saji can run: %v", err)
	}
	if err := s.replace(lib, name); err != nil {
		return libraryError(err)
	}
	if _, err := lib.ImportAs(r.Context(), blob, name); err != nil {
		return libraryError(err)
	}
	os.Remove(blob)
	return nil
}
