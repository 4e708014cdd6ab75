package gguf

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"saji/internal/refdata"
)

// refModel is the part of testdata/ref/<name>.json this package checks.
type refModel struct {
	Model struct {
		Path           string            `json:"path"`
		Architecture   string            `json:"architecture"`
		Desc           string            `json:"desc"`
		NVocab         uint64            `json:"n_vocab"`
		TokenizerModel string            `json:"tokenizer_model"`
		TokenizerPre   string            `json:"tokenizer_pre"`
		BOS            *int64            `json:"bos_id"`
		EOS            *int64            `json:"eos_id"`
		NParams        int64             `json:"n_params"`
		NCtxTrain      uint64            `json:"n_ctx_train"`
		Size           int64             `json:"size"`
		FileType       *uint32           `json:"file_type"`
		TensorTypes    map[string]string `json:"tensor_types"`
	} `json:"model"`
}

// refFiles lists every GGUF file of the reference data.
func refFiles(t *testing.T) []string {
	dir := refdata.Dir(t)
	var paths []string
	for _, sub := range []string{"models", "vocab"} {
		p, err := filepath.Glob(filepath.Join(dir, sub, "*.gguf"))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p...)
	}
	if len(paths) == 0 {
		t.Fatalf("no GGUF files in %s", dir)
	}
	return paths
}

// TestOpenReferenceFiles opens every reference model and vocabulary and
// checks what llama.cpp reported about it.
func TestOpenReferenceFiles(t *testing.T) {
	for _, p := range refFiles(t) {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			st, err := os.Stat(p)
			if err != nil {
				t.Fatal(err)
			}
			if f.FileSize() != st.Size() {
				t.Errorf("FileSize %d, file has %d bytes", f.FileSize(), st.Size())
			}
			if _, err := f.Architecture(); err != nil {
				t.Errorf("Architecture: %v", err)
			}
			for _, ti := range f.Tensors() {
				end := f.DataOffset(ti.Shard) + int64(ti.Offset) + ti.Size
				if end > st.Size() || ti.Offset%uint64(f.Alignment()) != 0 {
					t.Errorf("tensor %q at %d+%d (%d bytes) does not lie aligned in the file", ti.Name, f.DataOffset(0), ti.Offset, ti.Size)
				}
				d, err := f.TensorData(ti.Name)
				if err != nil || int64(len(d)) != ti.Size {
					t.Errorf("TensorData(%q): %d bytes, %v", ti.Name, len(d), err)
				}
			}
		})
	}
}

func TestReferenceMetadata(t *testing.T) {
	dir := refdata.Dir(t)
	refs, err := filepath.Glob(filepath.Join(dir, "ref", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, rp := range refs {
		if strings.HasSuffix(rp, ".kvf16.json") {
			continue
		}
		raw, err := os.ReadFile(rp)
		if err != nil {
			t.Fatal(err)
		}
		var ref refModel
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatalf("%s: %v", rp, err)
		}
		if ref.Model.Path == "" {
			continue
		}
		n++
		t.Run(filepath.Base(ref.Model.Path), func(t *testing.T) {
			m := ref.Model
			f, err := Open(filepath.Join(dir, filepath.FromSlash(m.Path)))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			if arch, _ := f.Architecture(); arch != m.Architecture {
				t.Errorf("architecture %q, want %q", arch, m.Architecture)
			}
			if f.FileSize() != m.Size {
				t.Errorf("size %d, want %d", f.FileSize(), m.Size)
			}
			if got := f.ParameterCount(); got != m.NParams {
				t.Errorf("ParameterCount %d, want %d", got, m.NParams)
			}
			if got, err := f.ContextLength(); err != nil || got != m.NCtxTrain {
				t.Errorf("ContextLength %d, %v; want %d", got, err, m.NCtxTrain)
			}
			if got, err := f.VocabSize(); err != nil || got != m.NVocab {
				t.Errorf("VocabSize %d, %v; want %d", got, err, m.NVocab)
			}
			if got, _ := f.TokenizerModel(); got != m.TokenizerModel {
				t.Errorf("TokenizerModel %q, want %q", got, m.TokenizerModel)
			}
			if got, _ := f.TokenizerPre(); got != m.TokenizerPre {
				t.Errorf("TokenizerPre %q, want %q", got, m.TokenizerPre)
			}
			if id, err := f.BOSTokenID(); err == nil && m.BOS != nil && int64(id) != *m.BOS {
				t.Errorf("BOS %d, want %d", id, *m.BOS)
			}
			if id, err := f.EOSTokenID(); err == nil && m.EOS != nil && int64(id) != *m.EOS {
				t.Errorf("EOS %d, want %d", id, *m.EOS)
			}
			ft, err := f.FileType()
			switch {
			case m.FileType != nil && (err != nil || uint32(ft) != *m.FileType):
				t.Errorf("FileType %d, %v; want %d", ft, err, *m.FileType)
			case err == nil:
				// llama.cpp describes the model as "<arch> ?B <file type>".
				if want := m.Architecture + " ?B " + ft.Description(); m.Desc != want {
					t.Errorf("llama.cpp desc %q, ours %q", m.Desc, want)
				}
			}
			if len(m.TensorTypes) > 0 {
				ts := f.Tensors()
				if len(ts) != len(m.TensorTypes) {
					t.Errorf("%d tensors, want %d", len(ts), len(m.TensorTypes))
				}
				for _, ti := range ts {
					if want := m.TensorTypes[ti.Name]; ti.Type.String() != want {
						t.Errorf("tensor %q is %s, want %q", ti.Name, ti.Type, want)
					}
				}
			}
		})
	}
	if n == 0 {
		t.Fatal("no reference JSON with a model path")
	}
}

// TestRewriteByteExact re-writes every reference file from what was read
// and expects the original bytes: the Writer follows llama.cpp's layout.
// The ggml-vocab-* files (tensorless, written by an older gguf-py) stop
// right after the metadata, while llama.cpp and this Writer pad the end of
// the header to the alignment even without tensors; for them the
// re-written file must be the original plus zero padding.
func TestRewriteByteExact(t *testing.T) {
	paths := refFiles(t)
	if testing.Short() {
		var some []string
		for _, p := range paths {
			b := filepath.Base(p)
			if b == "stories260K.gguf" || b == "tiny-qwen2-q4_k_m.gguf" || b == "ggml-vocab-gpt-2.gguf" {
				some = append(some, p)
			}
		}
		paths = some
	}
	for _, p := range paths {
		t.Run(filepath.Base(p), func(t *testing.T) {
			f, err := Open(p)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			orig := f.shards[0].data
			w, ok := rewriter(t, f)
			if !ok {
				t.Fatal("file has tensor names the Writer refuses")
			}
			// Compare while encoding, without a second copy of the file.
			c := &compareWriter{want: orig}
			if _, err := w.Encode(context.Background(), c); err != nil {
				t.Fatal(err)
			}
			switch {
			case c.diff < 0 && c.n == int64(len(orig)):
				// Identical.
			case c.diff < 0 && len(f.Tensors()) == 0 && !c.nonzeroTail && c.n%int64(f.Alignment()) == 0:
				t.Logf("identical but for %d bytes of trailing padding", c.n-int64(len(orig)))
			default:
				t.Errorf("re-written file differs: %d bytes vs %d, first difference at offset %d", c.n, len(orig), c.diff)
			}
		})
	}
}

// compareWriter compares what is written with want, recording the first
// differing offset (or -1) and whether bytes past want's end are nonzero.
type compareWriter struct {
	want        []byte
	n           int64
	diff        int64
	nonzeroTail bool
	started     bool
}

func (c *compareWriter) Write(p []byte) (int, error) {
	if !c.started {
		c.started, c.diff = true, -1
	}
	n := len(p)
	for len(p) > 0 {
		if c.n >= int64(len(c.want)) {
			if len(bytes.Trim(p, "\x00")) != 0 {
				c.nonzeroTail = true
			}
			c.n += int64(len(p))
			break
		}
		k := min(len(p), len(c.want)-int(c.n))
		if c.diff < 0 && !bytes.Equal(p[:k], c.want[c.n:c.n+int64(k)]) {
			for i := range k {
				if p[i] != c.want[c.n+int64(i)] {
					c.diff = c.n + int64(i)
					break
				}
			}
		}
		c.n += int64(k)
		p = p[k:]
	}
	return n, nil
}
