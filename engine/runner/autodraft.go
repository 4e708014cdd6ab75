package runner

import (
	"os"
	"time"

	"saji/engine/gguf"
	"saji/engine/tokenizer"
)

// vocabKey identifies one version of a model file, for the runner's cache
// of vocabulary hashes.
type vocabKey struct {
	path string
	size int64
	mod  time.Time
}

// pickDraft returns the file of the model that drafts for the model of h,
// called name, when Config.AutoDraft is on: PickDraft over the other
// models of the catalog, "" when none fits. Vocabularies are read only
// when some file is small enough to be paired, once a file version.
func (r *Runner) pickDraft(h *header, name string) string {
	target := DraftCandidate{Path: h.f.Path(), Size: h.f.FileSize()}
	var cands []DraftCandidate
	for _, m := range r.Catalog() {
		size := m.Info.Size
		if m.Name == name || m.Path == "" || m.Path == target.Path || size <= 0 || size*draftMaxShare > target.Size {
			continue // PickDraft would refuse it: its vocabulary need not be read
		}
		cands = append(cands, DraftCandidate{Path: m.Path, VocabHash: r.vocabHash(m.Path), Size: size})
	}
	if len(cands) == 0 {
		return ""
	}
	target.VocabHash = r.vocabHash(target.Path)
	d, ok := PickDraft(target, cands)
	if !ok {
		return ""
	}
	r.log.Info("runner: speculative decoding with a draft model of the same vocabulary", "model", name, "draft", d.Path)
	return d.Path
}

// vocabHash returns the VocabHash of the model file at path, 0 where it
// cannot be read (never paired). Hashes are kept by the file's path, size
// and modification time.
func (r *Runner) vocabHash(path string) uint64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	key := vocabKey{path, st.Size(), st.ModTime()}
	r.vocabMu.Lock()
	hash, ok := r.vocabs[key]
	r.vocabMu.Unlock()
	if ok {
		return hash
	}
	if f, err := gguf.Open(path); err == nil {
		if tk, err := tokenizer.FromGGUF(f); err == nil {
			hash = VocabHash(tk)
		}
		f.Close()
	}
	r.vocabMu.Lock()
	r.vocabs[key] = hash
	r.vocabMu.Unlock()
	return hash
}
