package library

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Blobs, named copies and aliases: what Ollama's /api/blobs, /api/create,
// /api/copy and /api/pull store. A blob is a file pushed by its sha256 digest, kept in
// the library's hidden .blobs folder until a model is made of it.

// ErrExists is wrapped by the errors about a name the library already
// holds.
var ErrExists = errors.New("library: a model of that name exists")

// ErrDigest is wrapped by the errors about a malformed digest or content
// that does not match its digest.
var ErrDigest = errors.New("library: bad digest")

// blobsDir is the folder of the blobs, inside the library folder.
const blobsDir = ".blobs"

// BlobPath returns the path of the blob of digest ("sha256:" or "sha256-"
// and 64 hexadecimal digits), whether or not it exists.
func (l *Library) BlobPath(digest string) (string, error) {
	hexSum, ok := strings.CutPrefix(digest, "sha256:")
	if !ok {
		hexSum, ok = strings.CutPrefix(digest, "sha256-")
	}
	if b, err := hex.DecodeString(hexSum); !ok || err != nil || len(b) != sha256.Size || strings.ToLower(hexSum) != hexSum {
		return "", fmt.Errorf("%w: %q is not sha256:<64 lowercase hex digits>", ErrDigest, digest)
	}
	return filepath.Join(l.dir, blobsDir, "sha256-"+hexSum), nil
}

// HasBlob reports whether the blob of digest is stored.
func (l *Library) HasBlob(digest string) (bool, error) {
	p, err := l.BlobPath(digest)
	if err != nil {
		return false, err
	}
	return fileExists(p), nil
}

// WriteBlob stores what r holds as the blob of digest: it goes to a
// temporary file, and is renamed into place only when its sha256 matches
// digest; a mismatch (ErrDigest), a failure or cancelling ctx leaves
// nothing behind.
func (l *Library) WriteBlob(ctx context.Context, digest string, r io.Reader) (err error) {
	p, err := l.BlobPath(digest)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("library: %w", err)
	}
	out, err := os.CreateTemp(filepath.Dir(p), ".blob-*.partial")
	if err != nil {
		return fmt.Errorf("library: %w", err)
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(out.Name())
		}
	}()
	h := sha256.New()
	buf := make([]byte, copyChunk)
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("library: blob %s: %w", digest, err)
		}
		n, rerr := r.Read(buf)
		if n > 0 {
			h.Write(buf[:n])
			if _, werr := out.Write(buf[:n]); werr != nil {
				return writeErr(werr)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return fmt.Errorf("library: blob %s: %w", digest, rerr)
		}
	}
	if got := "sha256-" + hex.EncodeToString(h.Sum(nil)); got != filepath.Base(p) {
		return fmt.Errorf("%w: the content's digest is sha256:%s, not %s", ErrDigest, strings.TrimPrefix(got, "sha256-"), digest)
	}
	if err := out.Sync(); err != nil {
		return writeErr(err)
	}
	if err := out.Close(); err != nil {
		return writeErr(err)
	}
	if err := os.Rename(out.Name(), p); err != nil {
		return fmt.Errorf("library: %w", err)
	}
	return nil
}

// ImportAs adds the model file at path to the library as name, after
// Validate accepts it: hard-linked into the folder (copied where the file
// system cannot link, as Import copies), so that the library's file stays
// when path is removed. name must be free (ErrExists otherwise).
func (l *Library) ImportAs(ctx context.Context, path, name string) (Entry, error) {
	if err := checkName(name); err != nil || strings.HasPrefix(name, ".") {
		return Entry{}, fmt.Errorf("library: invalid name %q", name)
	}
	v, err := Validate(path)
	if err != nil {
		return Entry{}, err
	}
	if v.Shards > 1 {
		return Entry{}, fmt.Errorf("library: %s is a split model of %d files; add it by reference", v.Path, v.Shards)
	}
	tmp := filepath.Join(l.dir, fmt.Sprintf(".link-%d.partial", time.Now().UnixNano()))
	if os.Link(v.Path, tmp) != nil {
		if tmp, err = l.copyIn(ctx, v.Path, nil); err != nil {
			return Entry{}, err
		}
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.get(name); err == nil {
		os.Remove(tmp)
		return Entry{}, fmt.Errorf("%w: %q", ErrExists, name)
	}
	if err := os.Rename(tmp, l.localPath(name)); err != nil {
		os.Remove(tmp)
		return Entry{}, fmt.Errorf("library: %w", err)
	}
	syncDir(l.dir)
	return l.entry(name, l.localPath(name), false), nil
}

// Copy makes the model called src also known as dst: a folder model is
// imported again as dst (a hard link, see ImportAs), a referenced one
// referenced again. dst must be free (ErrExists otherwise).
func (l *Library) Copy(ctx context.Context, src, dst string) (Entry, error) {
	e, err := l.Get(src)
	if err != nil {
		return Entry{}, err
	}
	if e.Err != nil {
		return Entry{}, e.Err
	}
	if !e.ByReference {
		return l.ImportAs(ctx, e.Path, dst)
	}
	if err := checkName(dst); err != nil || strings.HasPrefix(dst, ".") {
		return Entry{}, fmt.Errorf("library: invalid name %q", dst)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.get(dst); err == nil {
		return Entry{}, fmt.Errorf("%w: %q", ErrExists, dst)
	}
	l.idx.References[dst] = e.Path
	if err := l.save(); err != nil {
		delete(l.idx.References, dst)
		return Entry{}, err
	}
	return l.entry(dst, e.Path, true), nil
}

// SetAlias makes alias another name of the model called name, which must
// exist; an alias may hold "/" and ":" (hf.co/OWNER/REPO:QUANT), not NUL,
// and cannot shadow a model's own name.
func (l *Library) SetAlias(alias, name string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, err := l.get(name)
	if err != nil {
		return err
	}
	if alias == "" || strings.ContainsRune(alias, 0) {
		return fmt.Errorf("library: invalid alias %q", alias)
	}
	if alias == e.Name {
		return nil
	}
	if _, err := l.get(alias); err == nil && l.idx.Aliases[alias] == "" {
		return fmt.Errorf("%w: %q", ErrExists, alias)
	}
	if l.idx.Aliases == nil {
		l.idx.Aliases = map[string]string{}
	}
	old, had := l.idx.Aliases[alias]
	l.idx.Aliases[alias] = e.Name
	if err := l.save(); err != nil {
		if had {
			l.idx.Aliases[alias] = old
		} else {
			delete(l.idx.Aliases, alias)
		}
		return err
	}
	return nil
}
