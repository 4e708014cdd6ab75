package kvcache

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The file format of a block on disk (little-endian):
//
//	magic    [8]byte  "SAJIKVB\n"
//	version  uint32   DiskVersion
//	celltype uint32   the cache's element type, as the caller numbers it
//	group    uint32   the KV group
//	count    uint32   tokens in the block
//	length   uint64   payload bytes
//	model    [32]byte the model key (weights, cell type, layout)
//	chain    [32]byte the prefix's chain key
//	crc      uint32   CRC-32C of the header before it, the tokens and the payload
//	tokens   count × int32
//	payload  length bytes: the cells, in the caller's layout
const (
	// DiskVersion is the version of the block file format; files of
	// another version are ignored and removed.
	DiskVersion = 1
	diskMagic   = "SAJIKVB\n"
	headerSize  = 8 + 4*4 + 8 + 32 + 32 + 4
	crcOffset   = headerSize - 4
	// maxBlockTokens and maxPayload bound what a header may claim, so
	// that a hostile file cannot make a reader allocate without limit.
	maxBlockTokens = 1 << 16
	maxPayload     = 1 << 32
)

// errBadFile is wrapped by the errors of parseBlock.
var errBadFile = errors.New("kvcache: not a block file")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Key is a stable 256-bit identity: of a model's cells (ModelKey) or of a
// token prefix ending on a block boundary (Chain). Unlike the in-memory
// prefix tree's hashes, keys are the same in every process, so they can
// name files.
type Key [32]byte

// IsZero reports whether k is the zero key.
func (k Key) IsZero() bool { return k == Key{} }

// Chain returns the key of the prefix parent followed by the block toks;
// the first block's parent is the model key, so that every prefix key
// depends on the model.
func Chain(parent Key, toks []int32) Key {
	h := sha256.New()
	h.Write(parent[:])
	var b [4]byte
	for _, t := range toks {
		binary.LittleEndian.PutUint32(b[:], uint32(t))
		h.Write(b[:])
	}
	var k Key
	h.Sum(k[:0])
	return k
}

// Chains returns the chain keys of the first n full blocks of tokens, in
// blocks of bs tokens, below model.
func Chains(model Key, tokens []int32, bs, n int) []Key {
	n = min(n, len(tokens)/max(1, bs))
	keys := make([]Key, n)
	parent := model
	for i := range keys {
		parent = Chain(parent, tokens[i*bs:(i+1)*bs])
		keys[i] = parent
	}
	return keys
}

// DiskBlock is one block of one KV group as a file holds it: whose it is,
// which prefix it ends, its tokens and its cells' bytes.
type DiskBlock struct {
	Model, Chain Key
	CellType     uint32
	Group        int
	Tokens       []int32
	Payload      []byte
}

// encode returns the block's file contents.
func (b DiskBlock) encode() []byte {
	buf := make([]byte, headerSize, headerSize+4*len(b.Tokens)+len(b.Payload))
	copy(buf, diskMagic)
	le := binary.LittleEndian
	le.PutUint32(buf[8:], DiskVersion)
	le.PutUint32(buf[12:], b.CellType)
	le.PutUint32(buf[16:], uint32(b.Group))
	le.PutUint32(buf[20:], uint32(len(b.Tokens)))
	le.PutUint64(buf[24:], uint64(len(b.Payload)))
	copy(buf[32:], b.Model[:])
	copy(buf[64:], b.Chain[:])
	for _, t := range b.Tokens {
		buf = le.AppendUint32(buf, uint32(t))
	}
	buf = append(buf, b.Payload...)
	le.PutUint32(buf[crcOffset:], blockCRC(buf))
	return buf
}

// blockCRC is the checksum of a block file's contents: everything but the
// checksum itself.
func blockCRC(file []byte) uint32 {
	c := crc32.Update(0, castagnoli, file[:crcOffset])
	return crc32.Update(c, castagnoli, file[headerSize:])
}

// parseBlock decodes a block file's contents, checking its magic,
// version, lengths and checksum. The payload aliases file.
func parseBlock(file []byte) (DiskBlock, error) {
	var b DiskBlock
	if len(file) < headerSize {
		return b, fmt.Errorf("%w: %d bytes, shorter than a header", errBadFile, len(file))
	}
	if string(file[:8]) != diskMagic {
		return b, fmt.Errorf("%w: bad magic", errBadFile)
	}
	le := binary.LittleEndian
	if v := le.Uint32(file[8:]); v != DiskVersion {
		return b, fmt.Errorf("%w: version %d, not %d", errBadFile, v, DiskVersion)
	}
	b.CellType = le.Uint32(file[12:])
	group := le.Uint32(file[16:])
	count := le.Uint32(file[20:])
	length := le.Uint64(file[24:])
	if group > maxBlockTokens || count > maxBlockTokens || length > maxPayload {
		return b, fmt.Errorf("%w: group %d, %d tokens, %d payload bytes", errBadFile, group, count, length)
	}
	if want := uint64(headerSize) + 4*uint64(count) + length; uint64(len(file)) != want {
		return b, fmt.Errorf("%w: %d bytes, the header says %d", errBadFile, len(file), want)
	}
	if got, want := blockCRC(file), le.Uint32(file[crcOffset:]); got != want {
		return b, fmt.Errorf("%w: checksum %08x, the header says %08x", errBadFile, got, want)
	}
	b.Group = int(group)
	copy(b.Model[:], file[32:64])
	copy(b.Chain[:], file[64:96])
	b.Tokens = make([]int32, count)
	for i := range b.Tokens {
		b.Tokens[i] = int32(le.Uint32(file[headerSize+4*i:]))
	}
	b.Payload = file[headerSize+4*int(count):]
	return b, nil
}
