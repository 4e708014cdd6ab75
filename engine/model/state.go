package model

import (
	"fmt"
	"slices"

	"saji/kernels"
	"saji/kernels/quant"
)

// Recurrent layers keep, for each sequence, a fixed-size state instead of
// (or beside) keys and values: LFM2's short convolution its last inputs
// (a window of K-1 rows of channels), Mamba-2 that window and its SSM
// state, gated delta-net that window and a heads×dk×dv matrix. A cache
// holds each state as an F32 tensor of one row per slot: the contiguous
// cache one slot, a paged cache one per sequence the scheduler runs at
// once (SeqBatch.Slot). A sequence's chunk that starts at position 0
// starts from zeros; any other chunk continues from the position its slot
// has reached, and the cache refuses a chunk that does not (a state does
// not go back: a preempted sequence is recomputed from its first token).

// checkpoints is the number of states a contiguous cache keeps besides the
// live one: the states at the end of its last multi-token chunks, so that
// a sequence truncated back to one of them (saji bench's depth before
// each repetition, a reply regenerated after its prompt) continues from
// there instead of being refused.
const checkpoints = 2

// StateSpec is one fixed-size F32 tensor a recurrent layer keeps per
// sequence: Rows rows of Cols values.
type StateSpec struct {
	// Name says what the state holds ("conv", "ssm").
	Name       string
	Rows, Cols int
}

// Values returns the number of values of the state.
func (s StateSpec) Values() int { return s.Rows * s.Cols }

// RecurrentLayer is a layer that keeps state, and its states.
type RecurrentLayer struct {
	Layer  int
	States []StateSpec
}

// StateBytes returns the memory one sequence's state takes over layers:
// what each slot of a cache costs beside its KV cells.
func StateBytes(layers []RecurrentLayer) int64 {
	var n int64
	for _, l := range layers {
		for _, s := range l.States {
			n += int64(s.Values()) * 4
		}
	}
	return n
}

// recurrentLayer returns the states of layer i (nil for an attention
// layer).
func (m *base) recurrentLayer(i int) []StateSpec {
	for _, l := range m.recurrent {
		if l.Layer == i {
			return l.States
		}
	}
	return nil
}

// newStates allocates slots slots of every recurrent layer's states in c,
// each on its layer's backend, zeroed.
func (m *base) newStates(c *Cache, slots int) error {
	if len(m.recurrent) == 0 {
		return nil
	}
	if slots <= 0 {
		return fmt.Errorf("model: a cache of a model with recurrent layers needs state slots, not %d", slots)
	}
	c.state = make([][]kernels.Tensor, m.hp.Layers)
	for _, l := range m.recurrent {
		for _, s := range l.States {
			t, err := m.backends[l.Layer].New(quant.TypeF32, s.Values(), slots)
			if err != nil {
				return fmt.Errorf("model: recurrent state: %w", err)
			}
			c.state[l.Layer] = append(c.state[l.Layer], t)
		}
	}
	c.slotPos = make([]int, slots)
	return nil
}

// Slots returns the number of recurrent state slots of the cache (0 for a
// model without recurrent layers).
func (c *Cache) Slots() int { return len(c.slotPos) }

// CopyState copies the recurrent state of slot src to slot dst in every
// recurrent layer, with the position it has reached: a snapshot of a
// sequence's state at a block boundary of its prefix, or the restoring
// of one for a sequence that shares the prefix. The values are copied
// exactly.
func (c *Cache) CopyState(src, dst int) error {
	if src < 0 || dst < 0 || src >= len(c.slotPos) || dst >= len(c.slotPos) {
		return fmt.Errorf("model: copying state slot %d to %d of %d", src, dst, len(c.slotPos))
	}
	if src == dst {
		return nil
	}
	for _, ts := range c.state {
		for _, t := range ts {
			if err := copyRows(t, []int32{int32(src)}, []int32{int32(dst)}); err != nil {
				return fmt.Errorf("model: copying state: %w", err)
			}
		}
	}
	c.slotPos[dst] = c.slotPos[src]
	return nil
}

// admitState checks a sequence's chunk against the state of its slot:
// positions that follow each other from 0 (a fresh state) or from the
// position the slot has reached. It returns whether the slot starts from
// zeros.
func (c *Cache) admitState(slot int, pos []int32) (bool, error) {
	if slot < 0 || slot >= len(c.slotPos) {
		return false, fmt.Errorf("model: state slot %d of %d", slot, len(c.slotPos))
	}
	for j := 1; j < len(pos); j++ {
		if pos[j] != pos[j-1]+1 {
			return false, fmt.Errorf("model: a recurrent model reads a sequence's positions in order, not %d after %d", pos[j], pos[j-1])
		}
	}
	if pos[0] != 0 && int(pos[0]) != c.slotPos[slot] && !c.restore(slot, int(pos[0])) {
		return false, fmt.Errorf("model: the recurrent state of slot %d has read %d positions, the chunk starts at %d (a state does not go back)", slot, c.slotPos[slot], pos[0])
	}
	return pos[0] == 0, nil
}

// restore brings back the checkpoint at position p into slot (a
// contiguous cache's live state), and reports whether there was one.
func (c *Cache) restore(slot, p int) bool {
	for i, at := range c.ckpt {
		if at == p {
			return c.CopyState(i+1, slot) == nil
		}
	}
	return false
}

// checkpoint keeps the live state of a contiguous cache, which stands at
// position p after a multi-token chunk, in a checkpoint slot (replacing
// the oldest), unless one holds that position already.
func (c *Cache) checkpoint(p int) {
	if len(c.ckpt) == 0 || slices.Contains(c.ckpt, p) {
		return
	}
	i := c.next
	c.next = (c.next + 1) % len(c.ckpt)
	c.ckpt[i] = -1
	if c.CopyState(0, i+1) == nil {
		c.ckpt[i] = p
	}
}

// zeroSlots clears the states of slots in every recurrent layer.
func (c *Cache) zeroSlots(slots []int32) error {
	if len(slots) == 0 {
		return nil
	}
	for _, ts := range c.state {
		for _, t := range ts {
			b := t.Backend()
			z, err := b.New(quant.TypeF32, kernels.Cols(t), len(slots))
			if err != nil {
				return fmt.Errorf("model: clearing state: %w", err)
			}
			err = b.SetRows(t, z, slots)
			if r, ok := b.(kernels.Recycler); ok {
				r.Recycle(z)
			}
			if err != nil {
				return fmt.Errorf("model: clearing state: %w", err)
			}
		}
	}
	return nil
}

// stateStep is the recurrent part of a step: each sequence's rows and
// slot, and where each slot's state will be once the step succeeds.
type stateStep struct {
	seqs []kernels.ConvSeq
	ends []int // per sequence: the position after its last token
}

// prepareState checks the step's sequences against their slots, zeroes
// the slots of those that start at position 0, and records in st what the
// slots reach. pos holds the positions of the sequences' tokens in order,
// slots their slots.
func (c *Cache) prepareState(st *step, ns, slots []int) error {
	if c.state == nil {
		return nil
	}
	var fresh []int32
	at := 0
	for i, n := range ns {
		z, err := c.admitState(slots[i], st.pos[at:at+n])
		if err != nil {
			return err
		}
		if z {
			fresh = append(fresh, int32(slots[i]))
		}
		for _, s := range st.rec.seqs {
			if s.Slot == slots[i] {
				return fmt.Errorf("model: two sequences of the batch share state slot %d", s.Slot)
			}
		}
		st.rec.seqs = append(st.rec.seqs, kernels.ConvSeq{N: n, Slot: slots[i]})
		st.rec.ends = append(st.rec.ends, int(st.pos[at+n-1])+1)
		at += n
	}
	return c.zeroSlots(fresh)
}

// finishState records where the step left each slot: its sequence's next
// position, or nowhere (only position 0 may follow) when the step failed.
func (c *Cache) finishState(st *step, err error) {
	for i, s := range st.rec.seqs {
		if err != nil {
			c.slotPos[s.Slot] = -1
			continue
		}
		c.slotPos[s.Slot] = st.rec.ends[i]
		if !c.paged && s.N > 1 {
			c.checkpoint(st.rec.ends[i])
		}
	}
}

// layerState is a recurrent layer's part of a step: its state tensors and
// the sequences' slots.
type layerState struct {
	states []kernels.Tensor
	seqs   []kernels.ConvSeq
}

// recurrentLayer returns layer i's part of the step.
func (st *step) recurrentLayer(i int) layerState {
	return layerState{states: st.cache.state[i], seqs: st.rec.seqs}
}

// shortConv runs the causal short convolution of x with taps w (K rows of
// channels) over each sequence's window in state.
func (g *graph) shortConv(x, w, state kernels.Tensor, seqs []kernels.ConvSeq) kernels.Tensor {
	if g.err != nil {
		return nil
	}
	y := g.new(kernels.Cols(x), kernels.Rows(x))
	if g.err == nil {
		g.fail(g.b.ShortConv(y, x, w, state, seqs))
	}
	return y
}
