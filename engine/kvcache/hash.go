package kvcache

import (
	"encoding/binary"
	"hash/maphash"
)

// key is a block's chain hash: 128 bits, from two independently seeded
// maphash runs. The map is keyed by it and a hit is also verified against
// the cached block's recorded parent key and tokens.
type key struct{ a, b uint64 }

// hasher computes chain hashes with seeds drawn once per pool. Keyed
// hashes make it infeasible for a client to craft prompts whose blocks
// collide with another client's; the seeds never leave the process, so
// nothing depends on hash values being stable across runs.
type hasher struct {
	s1, s2 maphash.Seed
	buf    []byte
}

func newHasher() *hasher {
	return &hasher{s1: maphash.MakeSeed(), s2: maphash.MakeSeed()}
}

// root is the start of every chain: the hash of the model seed.
func (h *hasher) root(seed uint64) key {
	b := binary.LittleEndian.AppendUint64(h.buf[:0], seed)
	h.buf = b
	return key{maphash.Bytes(h.s1, b), maphash.Bytes(h.s2, b)}
}

// block hashes a parent key followed by a block's tokens.
func (h *hasher) block(parent key, toks []int32) key {
	b := h.buf[:0]
	b = binary.LittleEndian.AppendUint64(b, parent.a)
	b = binary.LittleEndian.AppendUint64(b, parent.b)
	for _, t := range toks {
		b = binary.LittleEndian.AppendUint32(b, uint32(t))
	}
	h.buf = b
	return key{maphash.Bytes(h.s1, b), maphash.Bytes(h.s2, b)}
}
