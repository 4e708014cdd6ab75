// Package gguf reads and writes GGUF files, the model format of llama.cpp
// and ggml.
//
// Reading: Open maps a file into memory (mmap on Unix,
// CreateFileMapping/MapViewOfFile on Windows, a plain read elsewhere) and
// parses its header, metadata and tensor table; tensor data is returned as
// zero-copy views into the mapping. GGUF versions 2 and 3 are read (their
// layout is identical; v3 only allowed big-endian files, which this package
// refuses with a clear error, as it does GGUF v1 with its 32-bit counts).
// Every metadata value type is supported, including arrays of arrays (up to
// 8 levels; llama.cpp itself rejects nested arrays). Metadata keeps file
// order.
//
// The parser treats its input as hostile: every count and length is checked
// against the bytes left in the file before anything is allocated, tensor
// sizes are computed with overflow checks, tensors must be aligned, lie in
// the file and not overlap, and names and keys must be unique. A malformed
// file gives an error wrapping ErrFormat (or ErrUnsupported), never a panic.
// The reader is a little more lenient than llama.cpp: tensors may appear in
// any order and with gaps, and tensor names may be longer than 63 bytes.
//
// Split models (<prefix>-00001-of-0000N.gguf with split.no, split.count and
// split.tensors.count keys, as made by llama.cpp's gguf-split) are opened
// through their first shard: Open finds the other shards in the same
// directory, checks their split keys and the total tensor count, and
// presents one tensor table in which each tensor records its shard. The
// metadata is the first shard's. Opening a later shard with Open is an
// error that names the first shard; OpenSingle opens any one shard alone.
//
// Writing: a Writer collects metadata and tensors and writes a v3 file with
// the layout of llama.cpp's gguf writer, so that re-writing a file read
// from llama.cpp with the same metadata and tensors reproduces it byte for
// byte. WriteFile writes atomically through a temporary file and rename.
package gguf
