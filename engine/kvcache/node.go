package kvcache

import "slices"

// node is the identity of one token prefix that ends on a block boundary:
// its parent (the prefix one block shorter, nil for the empty prefix) and
// the block's tokens. Nodes are hash-consed: there is at most one indexed
// node per prefix, so two sequences with the same prefix reach the same
// node, and a node found by walking from the root with exact token
// comparisons at every step is exactly the prompt's prefix.
type node struct {
	id     uint64
	parent *node
	tokens []int32
	key    childKey
	// indexed says whether the node is in Pool.index under key. A node
	// whose key another node holds (a hash collision), and every node below
	// it, is not: it still identifies its sequences' prefix but can never
	// be found, so its blocks are never cached. A node stays indexed while
	// it has children.
	indexed bool
	// blocks holds, per group, the cached block with this prefix's last
	// block, or -1.
	blocks []int32
	// refs counts child nodes, cached blocks and sequences holding the
	// node; at 0 the node leaves the index.
	refs int
}

// childKey finds a child in the index: the parent's id and a hash of the
// child's tokens.
type childKey struct{ parent, h uint64 }

func (p *Pool) newNode(parent *node, toks []int32, k childKey) *node {
	p.nextNode++
	nd := &node{id: p.nextNode, parent: parent, tokens: slices.Clone(toks), key: k, blocks: make([]int32, len(p.groups))}
	for g := range nd.blocks {
		nd.blocks[g] = -1
	}
	return nd
}

// child returns the indexed child of parent with the given tokens, or nil.
func (p *Pool) child(parent *node, toks []int32) *node {
	nd := p.index[childKey{parent.id, p.hashFn(toks)}]
	if nd == nil || nd.parent != parent || !slices.Equal(nd.tokens, toks) {
		return nil
	}
	return nd
}

// intern returns the node of parent's prefix followed by toks, with a
// reference for the caller, creating it if needed.
func (p *Pool) intern(parent *node, toks []int32) *node {
	k := childKey{parent.id, p.hashFn(toks)}
	nd := p.index[k]
	if nd == nil || nd.parent != parent || !slices.Equal(nd.tokens, toks) {
		taken := nd != nil
		nd = p.newNode(parent, toks, k)
		// Below an unindexed node nothing can be found either.
		if !taken && (parent == p.root || parent.indexed) {
			nd.indexed = true
			p.index[k] = nd
		}
		parent.refs++
	}
	nd.refs++
	return nd
}

// release drops a reference to nd; nodes nobody holds leave the index and
// release their parent.
func (p *Pool) release(nd *node) {
	for {
		nd.refs--
		if nd.refs > 0 || nd == p.root {
			return
		}
		if nd.indexed {
			delete(p.index, nd.key)
			nd.indexed = false
		}
		nd = nd.parent
	}
}
