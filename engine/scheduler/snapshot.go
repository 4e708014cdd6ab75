package scheduler

import (
	"fmt"
	"hash/fnv"
)

// A hybrid model's sequence carries a recurrent state beside its KV
// blocks, and the state at the end of a cached prefix is not in the
// blocks: the prefix cache of a hybrid model keeps snapshots of the state
// at block boundaries, as vLLM's hybrid allocator and llama.cpp's
// checkpoints do. The scheduler ends a prompt's chunks at block
// boundaries (and cuts one at the last boundary before the prompt's last
// token), and after each step copies the state of a sequence that stands
// at a boundary into a snapshot slot of the cache, keyed by its tokens so
// far; a new sequence takes the longest cached prefix that has a
// snapshot, starts its state from the copy and computes the rest. The
// snapshots are slots of the cache beyond MaxSeqs' (StateSlots), reused
// least recently used first; each costs the model's StateBytes.

// DefaultSnapshotsPerSeq is how many state snapshots the prefix cache of
// a hybrid model keeps per running sequence when Config.StateSnapshots is
// 0: a long shared prompt leaves one at each chunk's end.
const DefaultSnapshotsPerSeq = 4

// StateSlots returns the recurrent state slots the cache of a hybrid
// model has for cfg (defaults filled in, Sized): one per running
// sequence, and the prefix cache's snapshots (StateSnapshots; 0 means
// DefaultSnapshotsPerSeq per sequence, a negative count or NoPrefixCache
// none). engine/fit counts their memory with it.
func StateSlots(cfg Config) int {
	return cfg.MaxSeqs + snapshotCount(cfg)
}

// snapshotCount returns the number of snapshot slots of cfg.
func snapshotCount(cfg Config) int {
	switch {
	case cfg.NoPrefixCache || cfg.StateSnapshots < 0:
		return 0
	case cfg.StateSnapshots == 0:
		return DefaultSnapshotsPerSeq * cfg.MaxSeqs
	}
	return cfg.StateSnapshots
}

// snapshot is a copy of a sequence's state after its first n tokens.
type snapshot struct {
	slot, n int
	used    uint64 // the tick of its last use
}

// snapshots holds the prefix cache's state snapshots.
type snapshots struct {
	free  []int                // free snapshot slots
	byKey map[uint64]*snapshot // by prefixKeys' key of the tokens
	tick  uint64
}

// newSnapshots returns a store over the cache's slots [from, from+n).
func newSnapshots(from, n int) *snapshots {
	s := &snapshots{byKey: map[uint64]*snapshot{}}
	for i := from + n - 1; i >= from; i-- {
		s.free = append(s.free, i)
	}
	return s
}

// prefixKeys returns the keys of tokens' prefixes at the block
// boundaries bs, 2·bs, ... up to at most n tokens: keys[i] for the first
// (i+1)·bs tokens, a 64-bit FNV-1a hash of their ids and count.
func prefixKeys(tokens []int32, bs, n int) []uint64 {
	h := fnv.New64a()
	var buf [4]byte
	var keys []uint64
	for i, t := range tokens[:min(n, len(tokens))] {
		buf[0], buf[1], buf[2], buf[3] = byte(t), byte(t>>8), byte(t>>16), byte(t>>24)
		h.Write(buf[:])
		if (i+1)%bs == 0 {
			keys = append(keys, h.Sum64()^uint64(i+1))
		}
	}
	return keys
}

// saveSnapshot copies sq's state into a snapshot when sq stands at a
// block boundary that has none yet, taking the least recently used
// snapshot's slot when none is free.
func (s *Scheduler) saveSnapshot(sq *seq) error {
	bs, n := s.cfg.BlockSize, sq.computed
	if s.snaps == nil || sq.slot < 0 || n == 0 || n%bs != 0 {
		return nil
	}
	keys := prefixKeys(sq.tokens, bs, n)
	key := keys[len(keys)-1]
	ss := s.snaps
	ss.tick++
	if sn, ok := ss.byKey[key]; ok {
		sn.used = ss.tick
		return nil
	}
	slot := -1
	if len(ss.free) > 0 {
		slot, ss.free = ss.free[len(ss.free)-1], ss.free[:len(ss.free)-1]
	} else {
		var oldest uint64
		for k, sn := range ss.byKey {
			if slot < 0 || sn.used < ss.byKey[oldest].used {
				slot, oldest = sn.slot, k
			}
		}
		if slot < 0 {
			return nil
		}
		delete(ss.byKey, oldest)
	}
	if err := s.cache.CopyState(sq.slot, slot); err != nil {
		ss.free = append(ss.free, slot)
		return fmt.Errorf("scheduler: state snapshot: %w", err)
	}
	ss.byKey[key] = &snapshot{slot: slot, n: n, used: ss.tick}
	return nil
}

// matchHybrid is the prefix cache's match for a hybrid model's sequence:
// the longest prefix of its tokens (short of the last) that has a state
// snapshot and whose blocks are all cached, its state restored into sq's
// slot. It returns the cached tokens (0: none) and the pool's copies.
func (s *Scheduler) matchHybrid(sq *seq) (int, error) {
	if s.snaps == nil {
		return 0, nil
	}
	bs := s.cfg.BlockSize
	keys := prefixKeys(sq.tokens, bs, len(sq.tokens)-1)
	for i := len(keys) - 1; i >= 0; i-- {
		sn, ok := s.snaps.byKey[keys[i]]
		if !ok {
			continue
		}
		p := (i + 1) * bs
		n, copies := s.pool.Match(sq.kv, sq.tokens[:p+1])
		if n != p {
			// The blocks were evicted: start over from nothing.
			s.pool.Free(sq.kv)
			sq.kv = s.pool.NewSeq()
			return 0, nil
		}
		if err := s.copyBlocks(copies); err != nil {
			return 0, err
		}
		if err := s.cache.CopyState(sn.slot, sq.slot); err != nil {
			return 0, fmt.Errorf("scheduler: restoring a state snapshot: %w", err)
		}
		s.snaps.tick++
		sn.used = s.snaps.tick
		return p, nil
	}
	return 0, nil
}

// alignChunk shortens a hybrid sequence's prompt chunk of n tokens to end
// at a block boundary (the last one before its last token when the chunk
// would reach it), so that the step leaves a state to snapshot there; any
// other sequence's chunk ends at the tail of a prompt with pictures when it
// would cross it.
func (s *Scheduler) alignChunk(sq *seq, n int) int {
	if !s.recurrent {
		if t := s.tail(sq); t > sq.computed && t < sq.computed+n {
			return t - sq.computed
		}
		return n
	}
	if s.snaps == nil {
		return n
	}
	bs, end := s.cfg.BlockSize, sq.computed+n
	cut := min(end, len(sq.tokens)-1) / bs * bs
	if cut > sq.computed && cut < end {
		return cut - sq.computed
	}
	return n
}
