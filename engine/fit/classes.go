package fit

// Class is a typical model of a size, for the tables of what fits a
// machine (saji fit, the app's first run): a Llama-like shape at Q4_K_M.
type Class struct {
	// Name is the size in words ("8B").
	Name string
	// Layers, Embd, FFN, Heads, KVHeads and Vocab are the shape's.
	Layers, Embd, FFN, Heads, KVHeads, Vocab int
}

// Classes are the size classes, smallest first.
var Classes = []Class{
	{"1B", 16, 2048, 8192, 32, 8, 128256},
	{"3B", 28, 3072, 8192, 24, 8, 128256},
	{"8B", 32, 4096, 14336, 32, 8, 128256},
	{"14B", 48, 5120, 13824, 40, 8, 152064},
	{"32B", 64, 5120, 27648, 40, 8, 152064},
	{"70B", 80, 8192, 28672, 64, 8, 128256},
}

// Shape returns the class's shape at Q4_K_M (about 4.89 bits a weight;
// the embeddings at Q4_K, the head at Q6_K).
func (c Class) Shape() ModelShape {
	hd := c.Embd / c.Heads
	layerParams := int64(c.Embd)*int64(c.Heads*hd)*2 + int64(c.Embd)*int64(c.KVHeads*hd)*2 + 3*int64(c.Embd)*int64(c.FFN)
	s := ModelShape{Arch: "llama", Name: c.Name, FileType: "Q4_K - Medium", Layers: c.Layers, Heads: c.Heads,
		HeadDim: hd, ValueDim: hd, Embd: c.Embd, FFN: c.FFN, Vocab: c.Vocab, ContextTrain: 131072,
		EmbdBytes: int64(c.Vocab) * int64(c.Embd) * 144 / 256, OutputBytes: int64(c.Vocab) * int64(c.Embd) * 210 / 256,
		TokenizerEntries: 3 * c.Vocab}
	for range c.Layers {
		s.KVHeads = append(s.KVHeads, c.KVHeads)
		s.LayerBytes = append(s.LayerBytes, layerParams*489/800)
	}
	s.FileSize = s.WeightBytes()
	return s
}
