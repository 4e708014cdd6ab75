package library

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"saji/engine/units"
)

// ErrDiskFull is wrapped by the errors about a copy that does not fit on
// the library's disk.
var ErrDiskFull = errors.New("library: not enough free disk space")

// copyChunk is the size of each read and write of a copy, and so the
// granularity of its progress and cancellation.
const copyChunk = 4 << 20

// freeMargin is kept free on the disk beyond the copied file.
const freeMargin = 64 << 20

// Import adds the model file at path to the library, after Validate
// accepts it. With copy false the file is added by reference and stays
// where it is; with copy true it is copied into the folder, progress (if
// not nil) being called with the bytes copied and the total. The copy goes
// to a temporary name in the folder, is synced and then renamed into
// place: cancelling ctx or any failure leaves nothing behind. A name
// already taken gets a "-2", "-3"... suffix. Importing a file the library
// already holds (a file of the folder, or one already referenced) returns
// the existing entry. A vision projector is refused (ErrProjector).
func (l *Library) Import(ctx context.Context, path string, copy bool, progress func(done, total int64)) (Entry, error) {
	if isProjector(filepath.Base(path)) {
		return Entry{}, fmt.Errorf("%w: %s: it goes in the folder of its model, which it pairs with", ErrProjector, path)
	}
	v, err := Validate(path)
	if err != nil {
		return Entry{}, err
	}
	if e, ok, err := l.existing(v.Path); ok || err != nil {
		return e, err
	}
	if !copy {
		l.mu.Lock()
		defer l.mu.Unlock()
		name, err := l.freeName(v.Name)
		if err != nil {
			return Entry{}, err
		}
		if l.idx.References == nil {
			l.idx.References = map[string]string{}
		}
		l.idx.References[name] = v.Path
		if err := l.save(); err != nil {
			delete(l.idx.References, name)
			return Entry{}, err
		}
		return l.entry(name, v.Path, true), nil
	}
	if v.Shards > 1 {
		return Entry{}, fmt.Errorf("library: %s is a split model of %d files; add it by reference instead of copying it", v.Path, v.Shards)
	}
	tmp, err := l.copyIn(ctx, v.Path, progress)
	if err != nil {
		return Entry{}, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	name, err := l.freeName(v.Name)
	if err == nil {
		err = os.Rename(tmp, l.localPath(name))
	}
	if err != nil {
		os.Remove(tmp)
		return Entry{}, fmt.Errorf("library: %w", err)
	}
	syncDir(l.dir)
	return l.entry(name, l.localPath(name), false), nil
}

// existing returns the library's entry for the file at abs, if it holds
// it already.
func (l *Library) existing(abs string) (Entry, bool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if filepath.Dir(abs) == l.dir && strings.HasSuffix(abs, ".gguf") && !strings.HasPrefix(filepath.Base(abs), ".") {
		e, err := l.get(strings.TrimSuffix(filepath.Base(abs), ".gguf"))
		return e, true, err
	}
	for name, p := range l.idx.References {
		if p == abs {
			return l.entry(name, p, true), true, nil
		}
	}
	return Entry{}, false, nil
}

// freeName returns base, or base-2, base-3... whichever no model of the
// library uses. Called with mu held.
func (l *Library) freeName(base string) (string, error) {
	base = strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == 0 {
			return '_'
		}
		return r
	}, base)
	if base == "" || base == "." || base == ".." || strings.HasPrefix(base, ".") {
		base = "model" + base
	}
	for i := 1; i < 1<<20; i++ {
		name := base
		if i > 1 {
			name = base + "-" + strconv.Itoa(i)
		}
		_, ref := l.idx.References[name]
		if _, err := os.Lstat(l.localPath(name)); !ref && errors.Is(err, os.ErrNotExist) {
			return name, nil
		}
	}
	return "", fmt.Errorf("library: no free name for %q", base)
}

// copyIn copies src to a synced temporary file of the folder and returns
// its path. On failure or cancellation the temporary file is removed.
func (l *Library) copyIn(ctx context.Context, src string, progress func(done, total int64)) (tmpPath string, err error) {
	in, err := os.Open(src)
	if err != nil {
		return "", fmt.Errorf("library: %w", err)
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return "", fmt.Errorf("library: %w", err)
	}
	total := st.Size()
	if free, ferr := l.free(l.dir); ferr == nil && uint64(total)+freeMargin > free {
		return "", fmt.Errorf("%w: copying %s needs %s but %s has %s free", ErrDiskFull, src, units.Bytes(total+freeMargin), l.dir, units.Bytes(int64(free)))
	}
	out, err := os.CreateTemp(l.dir, ".import-*.partial")
	if err != nil {
		return "", fmt.Errorf("library: %w", err)
	}
	defer func() {
		if err != nil {
			out.Close()
			os.Remove(out.Name())
		}
	}()
	buf := make([]byte, copyChunk)
	var done int64
	if progress != nil {
		progress(0, total)
	}
	for {
		if err := ctx.Err(); err != nil {
			return "", fmt.Errorf("library: copy of %s: %w", src, err)
		}
		n, rerr := in.Read(buf)
		if n > 0 {
			if _, werr := out.Write(buf[:n]); werr != nil {
				return "", writeErr(werr)
			}
			done += int64(n)
			if progress != nil {
				progress(done, total)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return "", fmt.Errorf("library: %w", rerr)
		}
	}
	if done != total {
		return "", fmt.Errorf("library: %s changed size during the copy (%d bytes, then %d)", src, total, done)
	}
	if err := out.Sync(); err != nil {
		return "", writeErr(err)
	}
	if err := out.Chmod(0o644); err != nil {
		return "", fmt.Errorf("library: %w", err)
	}
	if err := out.Close(); err != nil {
		return "", writeErr(err)
	}
	return out.Name(), nil
}

// writeErr wraps a write error, as ErrDiskFull when the disk is full.
func writeErr(err error) error {
	if errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("%w: %w", ErrDiskFull, err)
	}
	return fmt.Errorf("library: %w", err)
}
