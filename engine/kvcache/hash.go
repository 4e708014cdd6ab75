package kvcache

import (
	"encoding/binary"
	"hash/maphash"
)

// hasher hashes a block's tokens with the model seed, keyed by a maphash
// seed drawn once per pool: a client cannot craft blocks that collide in
// another client's index, and nothing depends on hash values being stable
// across runs. Collisions cost a cache hit, never correctness: lookups
// compare the tokens and the parent node.
type hasher struct {
	seed  maphash.Seed
	model uint64
	buf   []byte
}

func newHasher(model uint64) *hasher {
	return &hasher{seed: maphash.MakeSeed(), model: model}
}

func (h *hasher) tokens(toks []int32) uint64 {
	b := binary.LittleEndian.AppendUint64(h.buf[:0], h.model)
	for _, t := range toks {
		b = binary.LittleEndian.AppendUint32(b, uint32(t))
	}
	h.buf = b
	return maphash.Bytes(h.seed, b)
}
