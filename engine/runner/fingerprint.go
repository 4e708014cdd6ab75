package runner

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"

	"saji/engine/gguf"
	"saji/engine/kvcache"
)

// fingerprintSamples is how many pieces of each shard's tensor data
// Fingerprint reads, fingerprintPiece bytes each.
const (
	fingerprintSamples = 64
	fingerprintPiece   = 4096
)

// Fingerprint returns a stable digest of a model file's weights for the
// prompt cache on disk, cheap enough for every load: a sha256 of each
// shard's size, its whole header (metadata and tensor table, the
// vocabulary included) and evenly spaced pieces of its tensor data. Two
// files that share a header but not their weights (a fine-tune saved with
// the same metadata) differ in the sampled pieces unless they differ
// nowhere the samples fall, which for real fine-tunes (every tensor
// changed) does not happen. Hashing the whole file would take seconds per
// gigabyte at every load.
func Fingerprint(f *gguf.File) (kvcache.Key, error) {
	h := sha256.New()
	io.WriteString(h, "saji-gguf-fingerprint-1\x00")
	for i, path := range f.Paths() {
		if err := fingerprintShard(h, path, f.DataOffset(i)); err != nil {
			return kvcache.Key{}, fmt.Errorf("runner: fingerprint of %s: %w", path, err)
		}
	}
	var k kvcache.Key
	h.Sum(k[:0])
	return k, nil
}

// fingerprintShard adds one shard to h: its size, its header (the bytes
// before the data section at data) and samples of its data.
func fingerprintShard(h io.Writer, path string, data int64) error {
	fd, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return err
	}
	size := st.Size()
	binary.Write(h, binary.LittleEndian, size)
	if data < 0 || data > size {
		return fmt.Errorf("data section at %d of a %d-byte file", data, size)
	}
	if _, err := io.Copy(h, io.NewSectionReader(fd, 0, data)); err != nil {
		return err
	}
	// The pieces start at the data's start and end at its end.
	span := max(0, size-data-fingerprintPiece)
	buf := make([]byte, fingerprintPiece)
	for i := range int64(fingerprintSamples) {
		off := data + span*i/(fingerprintSamples-1)
		n := min(int64(len(buf)), size-off)
		if n <= 0 {
			break
		}
		if _, err := fd.ReadAt(buf[:n], off); err != nil {
			return err
		}
		h.Write(buf[:n])
	}
	return nil
}
