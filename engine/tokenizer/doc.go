// Package tokenizer turns text into token ids and back exactly as
// llama.cpp does for the same GGUF vocabulary.
//
// A Tokenizer is built from a GGUF file's tokenizer.ggml.* metadata
// (FromGGUF, Open) or from plain data (New). Three algorithms are
// implemented (Gemma 4's a variant of BPE):
//
//   - SPM ("llama"): SentencePiece-style merging of adjacent pieces by token
//     score, with U+2581 for spaces, a leading space before text that starts
//     the input or follows a special token, and <0xNN> byte fallback.
//   - BPE ("gpt2"): byte-level BPE over ranked merges after a pre-tokenizer
//     chosen by tokenizer.ggml.pre (GPT-2, Llama-3, Qwen2, StarCoder,
//     Falcon, DeepSeek LLM and Coder, and llama.cpp's default). The
//     pre-tokenizer regexes are hand-written scanners over llama.cpp's
//     Unicode classes (Unicode 15.1), since Go's regexp lacks lookahead and
//     Unicode \s.
//   - Gemma 4's BPE ("gemma4", and "gpt2" with the pre-tokenizers "gemma4"
//     and "granite-embed-multi-311m"): BPE over merges on raw UTF-8, spaces
//     as U+2581, the text cut only into runs of newlines and runs of other
//     characters, <0xNN> byte fallback, a run of newlines that is a token
//     taken whole, and BOS always added.
//   - WPM ("bert"): BERT's WordPiece with lowercasing and accent stripping.
//
// Encode handles special tokens like llama_tokenize: addSpecial adds BOS,
// EOS, CLS and SEP as the vocabulary says, and parseSpecial turns the text
// of control tokens into those tokens (user-defined tokens always are).
// TokenToPiece, Detokenize and the streaming Decoder go back to text;
// Decoder never emits part of a UTF-8 character.
//
// Behaviour follows llama.cpp's src/llama-vocab.cpp and src/unicode.cpp at
// the commit that produced Saji's reference data, including its quirks
// (a second BOS when the text starts with one, the end-of-generation set
// found by token text, strip flags by model name). Where llama.cpp would
// abort or throw (a missing special or byte-fallback token, a code point
// above U+10FFFF in the input), this package degrades gracefully and says
// so in the documentation of the function concerned.
package tokenizer
