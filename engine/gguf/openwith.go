package gguf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
)

// OpenOptions chooses how OpenWith holds a model's tensor data.
type OpenOptions struct {
	// NoMmap reads every shard into ordinary process memory instead of
	// mapping the file, like llama.cpp's --no-mmap: loading takes longer,
	// but the weights no longer depend on the page cache, and a file on a
	// slow or network disk is read once, sequentially.
	NoMmap bool
	// Lock asks the operating system to keep the data resident (mlock, like
	// llama.cpp's --mlock), so that it is never paged out or dropped from
	// the page cache. Failure (typically a low RLIMIT_MEMLOCK) is logged as
	// a warning and does not fail the open.
	Lock bool
}

// OpenWith opens the GGUF file at path as Open does (following the shards
// of a split model), holding the tensor data as opts says. With the zero
// OpenOptions it is Open. Cancelling ctx stops a read into memory
// (NoMmap) within readChunk bytes, with ctx's error, and frees what it
// read.
func OpenWith(ctx context.Context, path string, opts OpenOptions) (*File, error) {
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	if opts.NoMmap {
		// Open resolved and checked the shards; read them again, this
		// time into memory, and let the mapping go.
		paths := f.Paths()
		if err := f.Close(); err != nil {
			return nil, err
		}
		shards := make([]*shard, 0, len(paths))
		for _, p := range paths {
			s, err := readShard(ctx, p)
			if err != nil {
				for _, s := range shards {
					_ = s.close()
				}
				return nil, err
			}
			shards = append(shards, s)
		}
		if f, err = newFile(shards); err != nil {
			return nil, err
		}
	}
	if opts.Lock {
		for _, s := range f.shards {
			if err := lockMemory(s.data); err != nil {
				slog.Warn("gguf: cannot lock the model in memory; it may be paged out",
					"path", s.path, "bytes", len(s.data), "err", err)
			}
		}
	}
	return f, nil
}

// readChunk is the most bytes readShard reads between two looks at its
// context: 64 MiB take a few tens of milliseconds from the page cache.
// A variable for the tests.
var readChunk = 64 << 20

// readShard reads the file at path whole into anonymous memory, readChunk
// bytes at a time until ctx is done, and parses it. The shard's close
// releases the memory.
func readShard(ctx context.Context, path string) (*shard, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("gguf: %w", err)
	}
	size := st.Size()
	if int64(int(size)) != size || size < 0 {
		return nil, fmt.Errorf("gguf: %s: file of %d bytes is too large for this platform", path, size)
	}
	data, free, err := allocAnon(int(size))
	if err != nil {
		return nil, fmt.Errorf("gguf: %s: allocating %d bytes: %w", path, size, err)
	}
	s := &shard{path: path, data: data, unmap: free}
	r := io.NewSectionReader(f, 0, size)
	for off := 0; off < len(data); {
		n, err := io.ReadFull(r, data[off:min(len(data), off+readChunk)])
		off += n
		if err == nil {
			err = ctx.Err()
		}
		if err != nil {
			_ = s.close()
			if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) { // EOF: at a chunk's start
				err = fmt.Errorf("file shrank while being read: %w", err)
			}
			return nil, fmt.Errorf("gguf: read %s: %w", path, err)
		}
	}
	if s.hdr, err = parse(data); err != nil {
		_ = s.close()
		return nil, fmt.Errorf("gguf: %s: %w", path, err)
	}
	return s, nil
}
