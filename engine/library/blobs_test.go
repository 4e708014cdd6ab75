package library

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// digestOf is data's digest as Ollama writes it.
func digestOf(data []byte) string {
	s := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(s[:])
}

// newTestLibrary opens a library in a folder of its own, inside dir (for
// the files a test adds from outside it).
func newTestLibrary(t *testing.T) (l *Library, dir string) {
	t.Helper()
	dir = t.TempDir()
	l, err := Open(filepath.Join(dir, "lib"))
	if err != nil {
		t.Fatal(err)
	}
	return l, dir
}

// TestBlobs checks blobs: stored under their digest only when the content
// matches it, nothing left behind otherwise, and malformed digests refused.
func TestBlobs(t *testing.T) {
	l, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	data := []byte("some bytes")
	d := digestOf(data)
	if ok, err := l.HasBlob(d); ok || err != nil {
		t.Fatalf("HasBlob before: %v %v", ok, err)
	}
	if err := l.WriteBlob(ctx, d, bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	if ok, err := l.HasBlob(strings.Replace(d, ":", "-", 1)); !ok || err != nil {
		t.Errorf("HasBlob after (sha256-): %v %v", ok, err)
	}
	other := digestOf([]byte("other"))
	if err := l.WriteBlob(ctx, other, bytes.NewReader(data)); !errors.Is(err, ErrDigest) {
		t.Errorf("mismatch: %v", err)
	}
	if ok, _ := l.HasBlob(other); ok {
		t.Error("a mismatched blob was kept")
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := l.WriteBlob(cancelled, other, bytes.NewReader([]byte("other"))); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
	left, _ := filepath.Glob(filepath.Join(l.Dir(), blobsDir, ".blob-*"))
	if len(left) != 0 {
		t.Errorf("temporary files left: %v", left)
	}
	for _, bad := range []string{"", "sha256:", "sha256:abc", "md5:" + strings.Repeat("a", 64), "sha256:" + strings.Repeat("A", 64),
		"sha256:" + strings.Repeat("a", 63) + "/", "sha256:../../" + strings.Repeat("a", 58)} {
		if _, err := l.BlobPath(bad); !errors.Is(err, ErrDigest) {
			t.Errorf("BlobPath(%q): %v", bad, err)
		}
	}
	// The blobs folder is not a model of the library.
	if es, err := l.List(); err != nil || len(es) != 0 {
		t.Errorf("List: %v %v", es, err)
	}
}

// TestImportAsAndCopy checks naming a model: a blob becomes a model of
// the chosen name, which stays when the blob goes; a copy of a folder
// model and of a reference; taken and bad names refused.
func TestImportAsAndCopy(t *testing.T) {
	l, dir := newTestLibrary(t)
	ctx := context.Background()
	src := tinyFile(t, dir, "blob")
	e, err := l.ImportAs(ctx, src, "mine")
	if err != nil || e.Name != "mine" || e.ByReference || e.Err != nil {
		t.Fatalf("ImportAs: %+v %v", e, err)
	}
	os.Remove(src)
	if e, err := l.Get("mine"); err != nil || e.Err != nil {
		t.Errorf("after the source went: %+v %v", e, err)
	}
	if _, err := l.ImportAs(ctx, tinyFile(t, dir, "again.gguf"), "mine"); !errors.Is(err, ErrExists) {
		t.Errorf("a taken name: %v", err)
	}
	if _, err := l.ImportAs(ctx, writeFile(t, dir, "junk", []byte("not a model")), "junk"); !errors.Is(err, ErrNotGGUF) {
		t.Errorf("not a model: %v", err)
	}
	for _, bad := range []string{"", "../x", "a/b", ".hidden"} {
		if _, err := l.ImportAs(ctx, tinyFile(t, dir, "t.gguf"), bad); err == nil {
			t.Errorf("name %q accepted", bad)
		}
	}
	if c, err := l.Copy(ctx, "mine", "yours"); err != nil || c.Name != "yours" || c.ByReference {
		t.Fatalf("Copy: %+v %v", c, err)
	}
	if err := l.Delete("mine"); err != nil {
		t.Fatal(err)
	}
	if e, err := l.Get("yours"); err != nil || e.Err != nil {
		t.Errorf("the copy after the original's deletion: %+v %v", e, err)
	}
	ref, err := l.Import(ctx, tinyFile(t, dir, "outside.gguf"), false, nil)
	if err != nil {
		t.Fatal(err)
	}
	if c, err := l.Copy(ctx, ref.Name, "ref2"); err != nil || !c.ByReference || c.Path != ref.Path {
		t.Errorf("Copy of a reference: %+v %v", c, err)
	}
	if _, err := l.Copy(ctx, "yours", "ref2"); !errors.Is(err, ErrExists) {
		t.Errorf("Copy onto a taken name: %v", err)
	}
	if _, err := l.Copy(ctx, "nope", "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Copy of a missing model: %v", err)
	}
	names := []string{}
	es, _ := l.List()
	for _, e := range es {
		names = append(names, e.Name)
	}
	if strings.Join(names, ",") != "outside,ref2,yours" {
		t.Errorf("List: %v", names)
	}
}

// TestAliases checks other names of a model: Get and Delete take them,
// they go with their model, and they cannot shadow a model's name.
func TestAliases(t *testing.T) {
	l, dir := newTestLibrary(t)
	ctx := context.Background()
	for _, n := range []string{"m", "other"} {
		if _, err := l.ImportAs(ctx, tinyFile(t, dir, n+".gguf"), n); err != nil {
			t.Fatal(err)
		}
	}
	const alias = "hf.co/owner/repo-GGUF:Q4_K_M"
	if err := l.SetAlias(alias, "m"); err != nil {
		t.Fatal(err)
	}
	if e, err := l.Get(alias); err != nil || e.Name != "m" {
		t.Errorf("Get(alias): %+v %v", e, err)
	}
	// The alias is kept in the index.
	l2, err := Open(l.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if e, err := l2.Get(alias); err != nil || e.Name != "m" {
		t.Errorf("Get(alias) after reopening: %+v %v", e, err)
	}
	if err := l.SetAlias(alias, "other"); err != nil { // an alias moves
		t.Errorf("moving the alias: %v", err)
	}
	for _, bad := range []struct{ alias, name string }{{"other", "m"}, {"x", "nope"}, {"", "m"}, {"a\x00b", "m"}} {
		if err := l.SetAlias(bad.alias, bad.name); err == nil {
			t.Errorf("SetAlias(%q, %q) accepted", bad.alias, bad.name)
		}
	}
	if err := l.Delete(alias); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Get("other"); !errors.Is(err, ErrNotFound) {
		t.Errorf("the alias's model after Delete(alias): %v", err)
	}
	if _, err := l.Get(alias); !errors.Is(err, ErrNotFound) {
		t.Errorf("the alias after its model went: %v", err)
	}
}
