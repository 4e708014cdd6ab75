package model

// SmolLM3 (llama.cpp's src/models/smollm3.cpp): the Llama layer, but every
// fourth layer (3, 7, 11, ...) attends without rotary embeddings (NoPE).
// The step is fixed in llama.cpp, not read from the file.

func init() { register("smollm3", loadLlama(llamaVariant{noRopeStep: 4})) }
