package sample

import (
	"slices"
	"strings"
)

// TokenTrie is a vocabulary's token texts as a prefix trie, built once
// per model, for GrammarConstraint.Mask: a walk tests a shared prefix
// once and skips a whole subtree at the first byte the grammar refuses.
//
// The nodes are stored flat in preorder: node i's subtree is nodes i to
// end[i]-1, so that skipping it is one assignment. A TokenTrie is
// immutable and safe for concurrent use.
type TokenTrie struct {
	label    []byte   // the byte on the edge into node i (node 0 is the root)
	depth    []uint16 // node i's distance from the root
	end      []int32  // the first node after node i's subtree
	tok      []int32  // the tokens whose text ends at node i: ids[tok[i]:tok[i+1]]
	ids      []int32
	maxDepth int
	vocab    int
}

// trieMaxPiece is the longest token text a TokenTrie holds; longer
// tokens are left out, so never allowed under a grammar.
const trieMaxPiece = 1024

// NewTokenTrie builds the trie of pieces, the text of each token id
// ("" for tokens that write no text, such as control tokens).
func NewTokenTrie(pieces []string) *TokenTrie {
	order := make([]int32, 0, len(pieces))
	for id, p := range pieces {
		if p != "" && len(p) <= trieMaxPiece {
			order = append(order, int32(id))
		}
	}
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(pieces[a], pieces[b]) })
	t := &TokenTrie{vocab: len(pieces)}
	t.label = append(t.label, 0)
	t.depth = append(t.depth, 0)
	t.tok = append(t.tok, 0)
	path := []int32{0} // path[d]: the node at depth d of the previous piece
	prev := ""
	for _, id := range order {
		p := pieces[id]
		common := 0
		for common < len(prev) && common < len(p) && prev[common] == p[common] {
			common++
		}
		path = path[:common+1]
		for d := common; d < len(p); d++ {
			path = append(path, int32(len(t.label)))
			t.label = append(t.label, p[d])
			t.depth = append(t.depth, uint16(d+1))
			t.tok = append(t.tok, int32(len(t.ids)))
		}
		t.ids = append(t.ids, id)
		t.maxDepth = max(t.maxDepth, len(p))
		prev = p
	}
	t.tok = append(t.tok, int32(len(t.ids)))
	// A subtree ends at the next node no deeper than its root.
	t.end = make([]int32, len(t.label))
	var open []int32
	for i := range t.label {
		for len(open) > 0 && t.depth[open[len(open)-1]] >= t.depth[i] {
			t.end[open[len(open)-1]] = int32(i)
			open = open[:len(open)-1]
		}
		open = append(open, int32(i))
	}
	for _, n := range open {
		t.end[n] = int32(len(t.label))
	}
	return t
}

// Vocab returns the number of token ids the trie was built for.
func (t *TokenTrie) Vocab() int { return t.vocab }
