package scheduler

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"slices"
	"time"

	"saji/engine/kvcache"
	"saji/engine/model"
	"saji/kernels/quant"
)

// The prompt cache on disk (Config.PromptCache). When a sequence ends, the
// full blocks of its stored tokens that the folder lacks are written there
// in the background; when a prompt's prefix misses in memory but its next
// blocks are on disk, they are read into fresh blocks before the prompt
// runs, and committed so that the in-memory prefix cache holds them too.
//
// Only committed tokens are saved: a speculative step's rejected draft
// tokens are never committed (spec.go), so no file holds one. A file's
// key is its prefix's chain of block hashes below the model key, which
// covers the weights (Config.ModelDigest), the cell type, the block size,
// the group's shape and the layout of the cells (diskLayout).
//
// Saving never holds up decoding for long: the ended sequence's blocks
// stay held by a fork of it while at most saveBlocksPerStep of them are
// read out per loop turn (a copy of their cells' bytes), and the disk
// tier's writer writes them. Under memory pressure (a
// reservation or an admission that finds no room) the saves still pending
// are dropped and their blocks let go.
//
// Models with sliding-window layers have no disk tier: their windowed
// groups release the blocks a long conversation scrolls past, so a saved
// prefix would need its window's blocks saved apart from the prefix chain.

// diskLayout names the layout of a block's cells on disk: model.Cache's
// ReadCells order, in the cache's element type. Changing the layout must
// change it, and with it every key.
const diskLayout = "saji-kv-layout-1"

// saveBlocksPerStep is the most blocks a loop turn reads out for saving.
const saveBlocksPerStep = 8

// saveRetry is how long an idle loop waits for the disk writer before it
// reads out more blocks.
const saveRetry = 5 * time.Millisecond

// pendingSave is an ended sequence whose blocks are being saved: a fork
// holding its blocks, its tokens, the cells of group 0 and the chain keys,
// and the blocks still to read out.
type pendingSave struct {
	kv     *kvcache.Seq
	tokens []int32
	cells  []int32
	keys   []kvcache.Key
	todo   []int
}

// openDisk turns the disk tier on for a model of groups with cells of type
// kv, when the config asks for it and the model allows it.
func (s *Scheduler) openDisk(groups []model.KVGroup, kv quant.Type) {
	if s.cfg.PromptCache == nil || s.cfg.ModelDigest.IsZero() || s.cfg.NoPrefixCache {
		return
	}
	if len(groups) != 1 || groups[0].Window != 0 {
		s.cfg.Logger.Info("scheduler: no prompt cache on disk for a model with sliding-window layers")
		return
	}
	if s.recurrent {
		// The folder holds keys and values, not the recurrent state a
		// hybrid model's prefix also needs.
		s.cfg.Logger.Info("scheduler: no prompt cache on disk for a model with recurrent layers")
		return
	}
	g := groups[0]
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%x\x00%v\x00%d\x00%d/%d/%d", diskLayout, s.cfg.ModelDigest[:], kv, s.cfg.BlockSize, len(g.Layers), g.KDim, g.VDim)
	h.Sum(s.diskKey[:0])
	s.disk, s.kvType = s.cfg.PromptCache, kv
}

// restore reads the blocks of sq's prompt that follow its n cached
// positions from disk, as far as the folder has them in a row, into fresh
// blocks, and commits them. It returns the positions now stored. It never
// covers the last token, which must run to give logits, nor goes past the
// start of the last chunk of a prompt with pictures (tail), and it restores
// nothing after a copy-on-write match (n not on a block boundary) or
// where the pool has no room.
func (s *Scheduler) restore(sq *seq, n int) int {
	bs := s.cfg.BlockSize
	if s.disk == nil || n%bs != 0 {
		return n
	}
	last := min(len(sq.tokens)-1, s.tail(sq)) / bs
	first := n / bs
	if first >= last {
		return n
	}
	keys := kvcache.Chains(s.diskKey, sq.tokens, bs, last)
	k := first
	for k < last && s.disk.Has(s.diskKey, keys[k], 0) {
		k++
	}
	// Leave a block for each running sequence's next token.
	k = min(k, first+s.pool.FreeBlocks(0)-len(s.running)-1)
	if k <= first {
		return n
	}
	copies, err := s.pool.Reserve(sq.kv, n, k*bs)
	if err == nil {
		err = s.copyBlocks(copies)
	}
	if err != nil {
		s.cfg.Logger.Debug("scheduler: no room to restore from disk", "seq", sq.id, "err", err)
		return n
	}
	cells := s.pool.Cells(sq.kv, 0, k*bs, nil)
	done := first
	for i := first; i < k; i++ {
		b, ok := s.disk.Get(s.diskKey, keys[i], 0, uint32(s.kvType))
		if !ok || !slices.Equal(b.Tokens, sq.tokens[i*bs:(i+1)*bs]) {
			break
		}
		if err := s.cache.WriteCells(0, cells[i*bs:(i+1)*bs], b.Payload); err != nil {
			s.cfg.Logger.Warn("scheduler: cannot restore a block from the prompt cache", "seq", sq.id, "err", err)
			break
		}
		done = i + 1
	}
	if err := s.pool.Commit(sq.kv, sq.tokens[:done*bs]); err != nil {
		s.cfg.Logger.Warn("scheduler: cannot commit restored blocks", "seq", sq.id, "err", err)
		return n
	}
	s.pool.Trim(sq.kv)
	if done > first {
		s.mu.Lock()
		s.stats.RestoredTokens += int64(done-first) * int64(bs)
		s.mu.Unlock()
		s.cfg.Logger.Debug("scheduler: restored from disk", "seq", sq.id, "tokens", (done-first)*bs)
	}
	return done * bs
}

// queueSave arranges for the full blocks of sq, which is ending, that the
// folder lacks to be saved: a fork of sq keeps them from being reused
// until they are read out.
func (s *Scheduler) queueSave(sq *seq) {
	if s.disk == nil || sq.kv == nil {
		return
	}
	bs := s.cfg.BlockSize
	stored := min(sq.kv.Len(), len(sq.tokens))
	keys := kvcache.Chains(s.diskKey, sq.tokens, bs, stored/bs)
	var todo []int
	for i, k := range keys {
		if !s.disk.Has(s.diskKey, k, 0) {
			todo = append(todo, i)
		}
	}
	if len(todo) == 0 {
		return
	}
	kv := s.pool.Fork(sq.kv)
	s.saves = append(s.saves, &pendingSave{kv: kv, tokens: slices.Clone(sq.tokens[:len(keys)*bs]),
		cells: s.pool.Cells(kv, 0, len(keys)*bs, nil), keys: keys, todo: todo})
}

// saveStep reads out up to limit pending blocks and hands them to the
// disk tier's writer (all of them when wait is set, writing them at once
// where the queue is full). It reports whether saves are still pending.
func (s *Scheduler) saveStep(limit int, wait bool) bool {
	bs := s.cfg.BlockSize
	for len(s.saves) > 0 && limit > 0 {
		ps := s.saves[0]
		for len(ps.todo) > 0 && limit > 0 {
			i := ps.todo[0]
			cells, err := s.cache.ReadCells(0, ps.cells[i*bs:(i+1)*bs], nil)
			if err != nil {
				s.cfg.Logger.Warn("scheduler: cannot read a block to save", "err", err)
				ps.todo = nil
				break
			}
			b := kvcache.DiskBlock{Model: s.diskKey, Chain: ps.keys[i], CellType: uint32(s.kvType), Tokens: ps.tokens[i*bs : (i+1)*bs]}
			payload := func() ([]byte, error) { return cells, nil }
			err = s.disk.Enqueue(b, payload)
			if errors.Is(err, kvcache.ErrDiskBusy) {
				if !wait {
					return true // the writer is behind: next turn
				}
				err = s.disk.Save(b, payload)
			}
			if errors.Is(err, kvcache.ErrDiskClosed) {
				s.dropSaves()
				return false
			}
			if err != nil {
				s.cfg.Logger.Warn("scheduler: cannot save a block", "err", err)
			}
			ps.todo = ps.todo[1:]
			limit--
		}
		if len(ps.todo) == 0 {
			s.pool.Free(ps.kv)
			s.saves = s.saves[1:]
		}
	}
	return len(s.saves) > 0
}

// dropSaves gives up the pending saves and lets their blocks go. It
// reports whether there were any.
func (s *Scheduler) dropSaves() bool {
	if len(s.saves) == 0 {
		return false
	}
	for _, ps := range s.saves {
		s.pool.Free(ps.kv)
	}
	s.cfg.Logger.Debug("scheduler: dropped pending prompt cache saves", "sequences", len(s.saves))
	s.saves = nil
	return true
}
