// visdump records llama.cpp's reference figures for a language model and
// its vision projector (libmtmd): the chunks mtmd makes of a prompt with
// one picture (text tokens, image token count), the picture's embeddings
// as mtmd_encode_chunk returns them, the logits after the whole prompt,
// and a greedy continuation.
//
// Usage: visdump MODEL MMPROJ IMAGE.rgb WIDTH HEIGHT PROMPT OUT.json [threads] [n_predict]
//
// IMAGE.rgb is raw 8-bit RGB, row after row. PROMPT holds mtmd's default
// media marker (<__media__>) where the picture goes. The context is 512
// cells, one batch of 512, F16 KV cache, flash attention auto for the
// language model and the projector (llama.cpp's defaults).
#include "llama.h"
#include "mtmd.h"
#include "mtmd-helper.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string jstr(const std::string &s) {
    std::string o = "\"";
    for (unsigned char c : s) {
        switch (c) {
        case '"': o += "\\\""; break;
        case '\\': o += "\\\\"; break;
        case '\n': o += "\\n"; break;
        default:
            if (c < 0x20) { char b[8]; snprintf(b, sizeof b, "\\u%04x", c); o += b; }
            else o += (char)c;
        }
    }
    return o + "\"";
}

static void floats(std::ostringstream &o, const float *v, size_t n) {
    o << "[";
    for (size_t i = 0; i < n; i++) {
        char b[32];
        snprintf(b, sizeof b, "%.9g", v[i]);
        o << (i ? "," : "") << b;
    }
    o << "]";
}

int main(int argc, char **argv) {
    if (argc < 8) {
        fprintf(stderr, "usage: %s MODEL MMPROJ IMAGE.rgb WIDTH HEIGHT PROMPT OUT.json [threads] [n_predict]\n", argv[0]);
        return 2;
    }
    const int w = atoi(argv[4]), h = atoi(argv[5]);
    const int threads = argc > 8 ? atoi(argv[8]) : 1;
    const int n_predict = argc > 9 ? atoi(argv[9]) : 16;
    std::ifstream in(argv[3], std::ios::binary);
    std::vector<unsigned char> rgb((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if ((int)rgb.size() != w * h * 3) {
        fprintf(stderr, "image: %zu bytes for %dx%d\n", rgb.size(), w, h);
        return 1;
    }

    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) return 1;
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = cp.n_ubatch = 512;
    cp.n_threads = cp.n_threads_batch = threads;
    llama_context *lctx = llama_init_from_model(model, cp);
    if (!lctx) return 1;

    mtmd_context_params mparams = mtmd_context_params_default();
    mparams.use_gpu = false;
    mparams.n_threads = threads;
    mparams.print_timings = false;
    mtmd_context *mctx = mtmd_init_from_file(argv[2], model, mparams);
    if (!mctx) return 1;

    mtmd_bitmap *bmp = mtmd_bitmap_init(w, h, rgb.data());
    mtmd_input_text text = {argv[6], strlen(argv[6]), true, true};
    mtmd_input_chunks *chunks = mtmd_input_chunks_init();
    const mtmd_bitmap *bmps[] = {bmp};
    if (mtmd_tokenize(mctx, chunks, &text, bmps, 1) != 0) return 1;

    const int n_embd = llama_model_n_embd_inp(model);
    std::ostringstream o;
    o << "{\"generator\": {\"tool\": \"visdump (libmtmd)\", \"llama_cpp_commit\": \"3f545bec\"},\n";
    o << " \"prompt\": " << jstr(argv[6]) << ", \"width\": " << w << ", \"height\": " << h << ", \"threads\": " << threads << ",\n";
    o << " \"non_causal\": " << (mtmd_decode_use_non_causal(mctx, nullptr) ? "true" : "false") << ",\n";
    o << " \"chunks\": [";
    std::vector<float> embd;
    for (size_t i = 0; i < mtmd_input_chunks_size(chunks); i++) {
        const mtmd_input_chunk *c = mtmd_input_chunks_get(chunks, i);
        o << (i ? ", " : "");
        if (mtmd_input_chunk_get_type(c) == MTMD_INPUT_CHUNK_TYPE_TEXT) {
            size_t n = 0;
            const llama_token *t = mtmd_input_chunk_get_tokens_text(c, &n);
            o << "{\"type\": \"text\", \"tokens\": [";
            for (size_t j = 0; j < n; j++) o << (j ? "," : "") << t[j];
            o << "]}";
        } else {
            size_t n = mtmd_input_chunk_get_n_tokens(c);
            o << "{\"type\": \"image\", \"n_tokens\": " << n << ", \"n_pos\": " << mtmd_input_chunk_get_n_pos(c) << "}";
            if (mtmd_encode_chunk(mctx, c) != 0) return 1;
            const float *e = mtmd_get_output_embd(mctx);
            embd.insert(embd.end(), e, e + n * n_embd);
        }
    }
    o << "],\n \"n_embd\": " << n_embd << ",\n \"embd\": ";
    floats(o, embd.data(), embd.size());

    llama_pos n_past = 0;
    if (mtmd_helper_eval_chunks(mctx, lctx, chunks, 0, 0, cp.n_batch, true, &n_past) != 0) return 1;
    const llama_vocab *vocab = llama_model_get_vocab(model);
    const int n_vocab = llama_vocab_n_tokens(vocab);
    o << ",\n \"n_past\": " << n_past << ",\n \"logits\": ";
    floats(o, llama_get_logits_ith(lctx, -1), n_vocab);
    o << ",\n \"greedy\": [";
    for (int i = 0; i < n_predict; i++) {
        const float *l = llama_get_logits_ith(lctx, -1);
        llama_token best = 0;
        for (int j = 1; j < n_vocab; j++) if (l[j] > l[best]) best = j;
        o << (i ? "," : "") << best;
        llama_batch b = llama_batch_get_one(&best, 1);
        if (llama_decode(lctx, b) != 0) return 1;
    }
    o << "]}\n";
    std::ofstream(argv[7]) << o.str();

    mtmd_input_chunks_free(chunks);
    mtmd_bitmap_free(bmp);
    mtmd_free(mctx);
    llama_free(lctx);
    llama_model_free(model);
    return 0;
}
