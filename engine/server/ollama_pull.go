package server

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"

	"saji/engine/download"
	"saji/engine/fit"
	"saji/engine/hub"
	"saji/engine/library"
)

// Ollama's /api/pull, from Hugging Face through the download manager into
// the library: a name as Ollama takes it (hf.co/OWNER/REPO[:QUANT]; Q4_K_M
// when it names no level, as Ollama picks), progress as Ollama's status
// lines, and the name pulled kept as an alias of the model's.

// defaultLevel is the level a pull takes when the name gives none.
const defaultLevel = "Q4_K_M"

// downloads returns the download manager pulls fetch with: Config's, or
// the server's own (its state in library.DownloadsDir()), opened at the
// first pull and closed with the server.
func (s *Server) downloads() (*download.Manager, error) {
	if s.cfg.Downloads != nil {
		return s.cfg.Downloads()
	}
	s.dlMu.Lock()
	defer s.dlMu.Unlock()
	if s.dl == nil {
		m, err := download.New(download.Options{StateDir: library.DownloadsDir(), Logger: s.log})
		if err != nil {
			return nil, fmt.Errorf("server: the downloads: %w", err)
		}
		s.dl = m
	}
	return s.dl, nil
}

// pullStatus is a line of a pull's answer.
type pullStatus struct {
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Completed int64  `json:"completed,omitempty"`
}

// hubError turns a hub error into the status it is reported with.
func hubError(err error) error {
	status := http.StatusBadGateway
	switch {
	case errors.Is(err, hub.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, hub.ErrGated), errors.Is(err, hub.ErrUnauthorized):
		status = http.StatusUnauthorized
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &apiError{status: status, typ: "server_error", msg: err.Error()}
}

// pullLevel picks the level of levels a pull of want ("" for the default)
// takes.
func pullLevel(repo, want string, levels []hub.Quant) (hub.Quant, error) {
	if len(levels) == 0 {
		return hub.Quant{}, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("pull: %s has no GGUF files", repo)}
	}
	if want == "" {
		want = defaultLevel
		if _, ok := hub.Find(levels, want); !ok {
			want = levels[0].Name // the repository's only or first level
		}
	}
	q, ok := hub.Find(levels, want)
	if !ok {
		var names []string
		for _, l := range levels {
			names = append(names, l.Name)
		}
		return hub.Quant{}, &apiError{status: http.StatusNotFound, msg: fmt.Sprintf("pull: %s has no %s level; it has %s", repo, want, strings.Join(names, ", "))}
	}
	if q.Incomplete {
		return hub.Quant{}, badRequest("pull: %s of %s is missing shards", q.Name, repo)
	}
	if err := fit.LevelRunnable(q.Name); err != nil {
		return hub.Quant{}, badRequest("pull: %s of %s: %v", q.Name, repo, err)
	}
	return q, nil
}

func (s *Server) handleOllamaPull(w http.ResponseWriter, r *http.Request) {
	var req struct {
		ollamaNameRequest
		Insecure bool  `json:"insecure"`
		Stream   *bool `json:"stream"`
	}
	lib, ok := s.libraryRequest(w, r, &req)
	if !ok {
		return
	}
	ref := cmp.Or(req.Model, req.Name)
	repo, level, err := hub.Parse(ref)
	if err != nil {
		ollamaError(w, badRequest("pull: Saji pulls GGUF models from Hugging Face, named hf.co/OWNER/REPO[:QUANT]: %v", err))
		return
	}
	ctx := r.Context()
	client := hub.NewClient()
	files, err := client.Files(ctx, repo, "main")
	if err != nil {
		ollamaError(w, hubError(err))
		return
	}
	q, err := pullLevel(repo, level, hub.Group(files))
	if err != nil {
		ollamaError(w, err)
		return
	}
	mgr, err := s.downloads()
	if err != nil {
		ollamaError(w, err)
		return
	}
	// The answer: status lines as they come, or the last one alone.
	stream := req.Stream == nil || *req.Stream
	var nd *ndjson
	send := func(st pullStatus) error {
		if !stream {
			return ctx.Err()
		}
		if nd == nil {
			nd = newNDJSON(w)
		}
		return nd.send(st)
	}
	fail := func(err error) {
		switch {
		case nd != nil && ctx.Err() == nil:
			nd.send(map[string]any{"error": classify(err).msg})
		case nd == nil:
			ollamaError(w, err)
		}
	}
	if send(pullStatus{Status: "pulling manifest"}) != nil {
		return
	}
	for _, f := range q.Files {
		if err := s.pullFile(ctx, client, mgr, lib, repo, q.Name, f, send); err != nil {
			fail(err)
			return
		}
	}
	send(pullStatus{Status: "verifying sha256 digest"})
	send(pullStatus{Status: "writing manifest"})
	name := strings.TrimSuffix(path.Base(q.Files[0].Path), ".gguf")
	if alias := libraryName(ref); alias != name {
		if err := lib.SetAlias(alias, name); err != nil {
			fail(libraryError(err))
			return
		}
	}
	if stream {
		send(pullStatus{Status: "success"})
		return
	}
	writeJSON(w, http.StatusOK, pullStatus{Status: "success"})
}

// pullFile fetches one file of a pull into the library, reporting its
// progress with send, unless the library holds it already. A pull the
// client leaves is paused: the next one resumes it.
func (s *Server) pullFile(ctx context.Context, client *hub.Client, mgr *download.Manager, lib *library.Library,
	repo, level string, f hub.File, send func(pullStatus) error) error {
	dest := filepath.Join(lib.Dir(), path.Base(f.Path))
	meta, err := client.Stat(ctx, repo, "main", f.Path)
	if err != nil {
		return hubError(err)
	}
	f.Size, f.SHA256 = cmp.Or(f.Size, meta.Size), cmp.Or(f.SHA256, meta.SHA256)
	line := pullStatus{Status: "pulling " + path.Base(f.Path), Total: f.Size}
	if f.SHA256 != "" {
		line.Status, line.Digest = "pulling "+f.SHA256[:min(12, len(f.SHA256))], "sha256:"+f.SHA256
	}
	if st, err := os.Stat(dest); err == nil && st.Size() == f.Size {
		line.Completed = f.Size
		return send(line) // in the library already
	}
	// The download is pinned to the commit the hub names, so a resumed
	// one never mixes two versions of the file.
	commit := cmp.Or(meta.Commit, "main")
	j, err := mgr.Start(download.Request{ID: repo + "/" + f.Path + "@" + commit, URL: client.FileURL(repo, commit, f.Path),
		Header: client.Header(), Size: f.Size, SHA256: f.SHA256, Dest: dest,
		Meta: map[string]string{"repo": repo, "file": f.Path, "quant": level}})
	if err != nil {
		return fmt.Errorf("server: %w", err)
	}
	events, stop := j.Subscribe()
	defer stop()
	for {
		select {
		case <-ctx.Done():
			j.Pause()
			return ctx.Err()
		case p, ok := <-events:
			if !ok || p.State == download.Done || p.State == download.Failed || p.State == download.Cancelled {
				if err := j.Wait(ctx); err != nil {
					return fmt.Errorf("server: pulling %s: %w", f.Path, err)
				}
				line.Completed = line.Total
				return send(line)
			}
			line.Total, line.Completed = cmp.Or(p.Total, line.Total), p.Done
			if err := send(line); err != nil {
				j.Pause()
				return err
			}
		}
	}
}
