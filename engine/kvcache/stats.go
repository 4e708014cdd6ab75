package kvcache

// GroupStats counts the blocks of one layer group by state. Total is
// Used + Cached + Free.
type GroupStats struct {
	Total  int // blocks in the group
	Used   int // held by a live sequence
	Cached int // held by nobody but kept for prefix reuse (evictable)
	Free   int // on the free list
}

// Stats is a snapshot of a pool's state and counters.
type Stats struct {
	Groups []GroupStats
	// StoredTokens counts the filled cells of held blocks, each block once
	// however many sequences share it; CapacityTokens counts all their
	// cells. Both sum over groups.
	StoredTokens, CapacityTokens int
	// QueryTokens and HitTokens count the tokens asked for in Match and
	// the tokens it served from the cache.
	QueryTokens, HitTokens int64
	// Evictions counts cached blocks dropped to make room.
	Evictions int64
}

// HitRate returns HitTokens/QueryTokens, or 0 before any query.
func (s Stats) HitRate() float64 {
	if s.QueryTokens == 0 {
		return 0
	}
	return float64(s.HitTokens) / float64(s.QueryTokens)
}

// Utilization returns StoredTokens/CapacityTokens: how full the held
// blocks are. It is 0 when no block is held.
func (s Stats) Utilization() float64 {
	if s.CapacityTokens == 0 {
		return 0
	}
	return float64(s.StoredTokens) / float64(s.CapacityTokens)
}

// Stats returns a snapshot of the pool.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	st := Stats{
		Groups:      make([]GroupStats, len(p.groups)),
		QueryTokens: p.queryTokens,
		HitTokens:   p.hitTokens,
		Evictions:   p.evictions,
	}
	for gi, g := range p.groups {
		gs := GroupStats{Total: len(g.blocks), Cached: g.nlru, Free: len(g.free)}
		gs.Used = gs.Total - gs.Cached - gs.Free
		for i := range g.blocks {
			if b := &g.blocks[i]; b.ref > 0 {
				st.StoredTokens += int(b.filled)
				st.CapacityTokens += p.bs
			}
		}
		st.Groups[gi] = gs
	}
	return st
}
