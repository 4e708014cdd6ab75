// Package sample turns a logits vector into the next token and decides when
// generation stops. It knows nothing of models or tokenizers: it works on
// []float32 logits indexed by token id and on int32 token ids, and takes
// text through the small Decoder interface.
//
// # Sampling
//
// A Sampler applies llama.cpp's default chain, in its order:
//
//  1. logit bias (Params.LogitBias; -Inf bans a token),
//  2. repetition, frequency and presence penalties over the last LastN
//     accepted tokens: a repeated token's logit is divided by RepeatPenalty
//     when positive and multiplied by it when not, then count*Frequency +
//     Presence is subtracted,
//  3. top-k, 4. typical-p, 5. top-p, 6. min-p (the filters see the
//     distribution before temperature, as in llama.cpp),
//  7. temperature, and a draw from the softmax of the survivors with a
//     seeded PCG generator (math/rand/v2): the same seed, parameters and
//     logits give the same tokens.
//
// A temperature <= 0 is greedy: the best survivor of the filters, which
// is the highest logit after bias and penalties (ties go to the lowest id)
// unless typical-p is on and drops it, as it would in llama.cpp.
//
// Top-k selects with a bounded heap instead of sorting the vocabulary, and
// top-p without top-k sorts only the tokens above the line a histogram of
// probability mass draws; a Sampler reuses its buffers, so a step
// allocates nothing once it has seen the vocabulary size.
//
// Tokens enter the penalty window through Accept (Next samples and accepts
// in one call). Feed the prompt's tokens through Accept too if they should
// count, as llama.cpp's server does.
//
// # Log-probabilities
//
// LogProbs gives the log-softmax of the raw logits (before bias, penalties
// and temperature) and the top-N alternatives: what llama.cpp's server
// returns as logprobs by default. Sampler.Final exposes the distribution a
// token was actually drawn from (post-sampling probabilities).
//
// # Constrained decoding
//
// ParseGrammar reads a GBNF grammar (llama.cpp's format) and
// SchemaGrammar compiles a JSON Schema into one (SchemaRules, with
// prefixed rule names, to embed it in a larger grammar). A
// GrammarConstraint matches text against a grammar incrementally, and
// Mask tests a whole vocabulary at once by walking a TokenTrie, built
// once per model, with the constraint's cached byte transitions.
//
// # Stopping
//
// StopMatcher finds stop strings in streamed text without ever emitting a
// part of one: it holds back any tail that could begin a stop string, and
// an unfinished UTF-8 sequence. Stopper adds end-of-generation token ids
// and a Decoder on top.
package sample
