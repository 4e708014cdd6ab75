// Package kvcache decides which cache cells each sequence uses: a paged
// block allocator with per-sequence block tables, automatic prefix caching,
// reference counting, copy-on-write, LRU eviction and sliding-window
// release. It is bookkeeping only: the keys and values live in per-layer
// tensors the model owns, one row per cell, and this package imports
// nothing else from Saji.
//
// # Blocks, groups and tables
//
// A Pool has one or more layer groups (Options.Groups), each with its own
// blocks of BlockSize cells, its own free list and its own cache. Models
// whose layers all attend to everything have one group; Gemma 3 has a
// group of sliding-window layers and one of full-attention layers. A Seq
// has one block table per group; position p lives in cell
// table[p/BlockSize]*BlockSize + p%BlockSize (Pool.Cells lists them).
//
// A scheduler step for a sequence is: Reserve(s, s.Len(), n) so the tables
// cover [0, n), perform the returned copies, run the forward pass writing
// positions [s.Len(), n), then Commit(s, tokens[:n]). Reserve either
// succeeds entirely or leaves everything as it was (ErrNoSpace: wait or
// preempt; ErrTooLarge: the group can never hold the sequence).
//
// # Prefix caching
//
// A full block is identified by its whole prefix: the model (Options.Seed)
// and every token up to and including the block. Prefixes form a tree of
// hash-consed nodes: a node is found from its parent node by a hash of the
// block's tokens and is accepted only if its parent is that very node and
// its tokens are equal, so a node reached from the root is exactly the
// prompt's prefix. A hash collision therefore costs a cache hit, never
// correctness; the hash is keyed per pool, so clients cannot aim for
// collisions either. On Commit, each block that became full is cached
// under its node in every group, unless that group already caches a block
// for the node: then the new one stays private (two identical prompts run
// together compute their blocks twice, once each, and share afterwards).
//
// Match walks the tree for a new prompt and attaches the cached blocks of
// the longest usable prefix to the sequence, adding a reference to each.
// It never covers the whole prompt, since the last token must run to give
// logits: when every block is cached, the last one is attached by
// copy-on-write, a private block that receives a Copy of the cached one
// and in which the last token is recomputed.
//
// Blocks are reference counted. When the count of a cached block drops to
// zero it is not freed but joins an LRU list, still findable; the
// allocator takes free blocks first and then evicts from the head of that
// list. Free releases a sequence's blocks last block first, so the tail of
// a prompt is evicted before its head, which more prompts share. With
// Options.NoPrefixCache nothing is cached and blocks go straight back to
// the free list.
//
// # Copy-on-write and forks
//
// Cached blocks are full and never written again, and a block held by
// several sequences (Fork) is never written in place: Reserve gives the
// writer a private copy of the block holding its first written position
// and returns a Copy for the caller to perform. The copy's source stays
// reserved (pinned) until the sequence's next Commit or Free, so no other
// sequence can reuse it before the copy has run.
//
// # Sliding windows
//
// In a group with Window W, a query at position q sees positions p with
// q-p < W. After Commit(tokens), blocks entirely below len(tokens)-W+1 are
// released (their table entries become -1, Cells reports -1) and their
// references dropped like Free's, so a long conversation holds about
// W/BlockSize+1 blocks of that group. Match accepts a prefix when each
// group caches the blocks its window needs at the match point; earlier
// blocks of a windowed group may already be evicted.
//
// # The disk tier
//
// Disk (disk.go) keeps full blocks in a folder that outlives the process:
// one checksummed file per block of a group, named by a model key and the
// prefix's Chain key, a sha256 chain over the blocks' tokens that, unlike
// the in-memory hashes, is the same in every process. The pool does not
// use it itself: the scheduler reads blocks from it into fresh blocks and
// commits them, and hands it the blocks of ended sequences to write.
//
// # Concurrency
//
// Every method takes the pool's one mutex, so a scheduler goroutine and a
// metrics reader calling Stats may share a pool. Misuse (writing from a
// position other than the stored length, committing backwards or past the
// reservation, using a freed sequence) returns an error or does nothing;
// nothing panics.
package kvcache
