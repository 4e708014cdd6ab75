package gguf

import (
	"fmt"
	"math"
	"strings"
)

// Metadata keys of split models, as written by llama.cpp's gguf-split.
// split.no is 0-based; file names count from 1.
const (
	KeySplitNo           = "split.no"
	KeySplitCount        = "split.count"
	KeySplitTensorsCount = "split.tensors.count"
)

// SplitPath returns the name llama.cpp gives shard no (0-based) of count:
// "<prefix>-00001-of-00003.gguf" for no 0 and count 3.
func SplitPath(prefix string, no, count int) string {
	return fmt.Sprintf("%s-%05d-of-%05d.gguf", prefix, no+1, count)
}

// splitPrefix strips the "-0000N-of-0000M.gguf" suffix of shard no of
// count from path, reporting false when path does not end with it.
func splitPrefix(path string, no, count int) (string, bool) {
	suffix := fmt.Sprintf("-%05d-of-%05d.gguf", no+1, count)
	if len(path) <= len(suffix) || !strings.HasSuffix(path, suffix) {
		return "", false
	}
	return strings.TrimSuffix(path, suffix), true
}

// splitKeys returns split.count (0 when absent) and split.no of a header.
func splitKeys(h *header) (count, no uint64, err error) {
	get := func(key string) (uint64, bool, error) {
		i, ok := h.kvIndex[key]
		if !ok {
			return 0, false, nil
		}
		n, err := h.kvs[i].Value.AsUint()
		if err != nil {
			return 0, true, fmt.Errorf("%w: key %q: %w", ErrFormat, key, err)
		}
		return n, true, nil
	}
	count, _, err = get(KeySplitCount)
	if err != nil || count <= 1 {
		return count, 0, err
	}
	if count > math.MaxUint16 {
		return 0, 0, fmt.Errorf("%w: split count %d is too large", ErrFormat, count)
	}
	no, ok, err := get(KeySplitNo)
	if err != nil {
		return 0, 0, err
	}
	if !ok {
		return 0, 0, fmt.Errorf("%w: split model without a %q key", ErrFormat, KeySplitNo)
	}
	if no >= count {
		return 0, 0, fmt.Errorf("%w: split number %d is not below the split count %d", ErrFormat, no, count)
	}
	return count, no, nil
}

// openSplit opens shards 1..count-1 of the split model whose first shard
// is first, checks their split keys and merges their tensor tables. All
// shards are closed if anything fails.
func openSplit(first *shard, count int) (*File, error) {
	shards := []*shard{first}
	fail := func(err error) (*File, error) {
		for _, s := range shards {
			_ = s.close()
		}
		return nil, err
	}
	prefix, ok := splitPrefix(first.path, 0, count)
	if !ok {
		return fail(fmt.Errorf("gguf: %s: first shard of a %d-file split model, but its name does not end in %q",
			first.path, count, SplitPath("", 0, count)))
	}
	for i := 1; i < count; i++ {
		p := SplitPath(prefix, i, count)
		s, err := openShard(p)
		if err != nil {
			return fail(fmt.Errorf("gguf: shard %d of %d: %w", i+1, count, err))
		}
		shards = append(shards, s)
		c, no, err := splitKeys(s.hdr)
		if err != nil {
			return fail(fmt.Errorf("gguf: %s: %w", p, err))
		}
		if c != uint64(count) || no != uint64(i) {
			return fail(fmt.Errorf("gguf: %s: %w: split keys say shard %d of %d, want %d of %d",
				p, ErrFormat, no+1, c, i+1, count))
		}
	}
	f, err := newFile(shards)
	if err != nil {
		return nil, err // newFile closed the shards
	}
	if i, ok := first.hdr.kvIndex[KeySplitTensorsCount]; ok {
		n, err := first.hdr.kvs[i].Value.AsUint()
		if err != nil || n != uint64(len(f.tensors)) {
			f.Close()
			return nil, fmt.Errorf("gguf: %s: %w: %q says %s tensors, the %d shards hold %d",
				first.path, ErrFormat, KeySplitTensorsCount, first.hdr.kvs[i].Value, count, len(f.tensors))
		}
	} else {
		f.Close()
		return nil, fmt.Errorf("gguf: %s: %w: split model without a %q key", first.path, ErrFormat, KeySplitTensorsCount)
	}
	return f, nil
}
