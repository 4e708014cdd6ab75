package gguf

import (
	"slices"

	"saji/kernels/quant"
)

// Summary is an overview of a model file for people: the facts shown by
// `saji gguf` and by the library. Fields whose key is absent are zero
// (BOS and EOS are -1).
type Summary struct {
	Path         string
	Shards       int
	FileSize     int64
	Version      uint32
	Alignment    uint32
	Architecture string
	Name         string
	Parameters   int64
	// FileType is general.file_type; HasFileType says whether it is set.
	FileType    FileType
	HasFileType bool

	ContextLength   uint64
	EmbeddingLength uint64
	BlockCount      uint64
	HeadCount       uint64
	// HeadCountKV is the KV head count (the largest one when it varies by
	// layer).
	HeadCountKV uint64

	TokenizerModel string
	TokenizerPre   string
	VocabSize      uint64
	BOS, EOS       int64

	KVCount     int
	TensorCount int
	// Types counts the tensors and bytes of each tensor type, largest
	// share of bytes first.
	Types []TypeStat
}

// TypeStat counts the tensors of one type.
type TypeStat struct {
	Type     quant.Type
	Count    int
	Elements int64
	Bytes    int64
}

// Summary gathers the file's overview. It never fails: missing or
// ill-typed keys leave their fields zero.
func (f *File) Summary() Summary {
	s := Summary{
		Path:        f.Path(),
		Shards:      f.Shards(),
		FileSize:    f.FileSize(),
		Version:     f.Version(),
		Alignment:   f.Alignment(),
		Parameters:  f.ParameterCount(),
		KVCount:     len(f.shards[0].hdr.kvs),
		TensorCount: len(f.tensors),
		BOS:         -1,
		EOS:         -1,
	}
	s.Architecture, _ = f.Architecture()
	s.Name, _ = f.Name()
	if ft, err := f.FileType(); err == nil {
		s.FileType, s.HasFileType = ft, true
	}
	if s.Architecture != "" {
		s.ContextLength, _ = f.ContextLength()
		s.EmbeddingLength, _ = f.EmbeddingLength()
		s.BlockCount, _ = f.BlockCount()
		s.HeadCount, _ = f.HeadCount()
		if n, err := f.HeadCountKV(); err == nil {
			s.HeadCountKV = n
		} else if ns, err := f.LayerUints(KeyHeadCountKV); err == nil && len(ns) > 0 {
			s.HeadCountKV = slices.Max(ns)
		}
	}
	s.TokenizerModel, _ = f.TokenizerModel()
	s.TokenizerPre, _ = f.TokenizerPre()
	s.VocabSize, _ = f.VocabSize()
	if id, err := f.BOSTokenID(); err == nil {
		s.BOS = int64(id)
	}
	if id, err := f.EOSTokenID(); err == nil {
		s.EOS = int64(id)
	}
	idx := map[quant.Type]int{}
	for _, t := range f.tensors {
		i, ok := idx[t.Type]
		if !ok {
			i = len(s.Types)
			idx[t.Type] = i
			s.Types = append(s.Types, TypeStat{Type: t.Type})
		}
		s.Types[i].Count++
		s.Types[i].Elements += t.Elements()
		s.Types[i].Bytes += t.Size
	}
	slices.SortStableFunc(s.Types, func(a, b TypeStat) int {
		switch {
		case a.Bytes != b.Bytes:
			if a.Bytes > b.Bytes {
				return -1
			}
			return 1
		default:
			return int(a.Type) - int(b.Type)
		}
	})
	return s
}
