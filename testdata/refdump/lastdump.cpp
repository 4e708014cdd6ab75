// lastdump records llama.cpp's logits for the last token of a prompt read
// in one batch that asks for that token's logits only (as a server asks
// for a prompt's): llama.cpp's graphs then run the last layer's
// feed-forward block on that one row, whose matrix products take their
// one-row path. F32 cache, flash attention off, one thread, n_ctx =
// n_batch = n_ubatch = 512, as refdump's primary configuration.
//
// Usage: lastdump DATA MODEL OUT.json TEXT
// (MODEL relative to the testdata folder DATA; TEXT tokenized with the
// model's special tokens added.)
#include "llama.h"

#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: lastdump DATA MODEL OUT.json TEXT\n");
        return 2;
    }
    const std::string data = argv[1], rel = argv[2], text = argv[4];
    llama_backend_init();
    llama_model *model = llama_model_load_from_file((data + "/" + rel).c_str(), llama_model_default_params());
    if (!model) {
        fprintf(stderr, "lastdump: cannot load %s\n", rel.c_str());
        return 1;
    }
    const llama_vocab *vocab = llama_model_get_vocab(model);
    std::vector<llama_token> toks(text.size() + 8);
    const int n = llama_tokenize(vocab, text.c_str(), text.size(), toks.data(), toks.size(), true, true);
    if (n <= 1) {
        fprintf(stderr, "lastdump: the text makes %d tokens\n", n);
        return 1;
    }
    toks.resize(n);
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = cp.n_batch = cp.n_ubatch = 512;
    cp.n_threads = cp.n_threads_batch = 1;
    cp.type_k = cp.type_v = GGML_TYPE_F32;
    cp.flash_attn_type = LLAMA_FLASH_ATTN_TYPE_DISABLED;
    llama_context *ctx = llama_init_from_model(model, cp);
    if (!ctx) {
        fprintf(stderr, "lastdump: cannot create a context\n");
        return 1;
    }
    llama_batch b = llama_batch_init(n, 0, 1);
    for (int i = 0; i < n; i++) {
        b.token[i] = toks[i];
        b.pos[i] = i;
        b.n_seq_id[i] = 1;
        b.seq_id[i][0] = 0;
        b.logits[i] = i == n - 1;
    }
    b.n_tokens = n;
    if (llama_decode(ctx, b)) {
        fprintf(stderr, "lastdump: decode failed\n");
        return 1;
    }
    const float *l = llama_get_logits_ith(ctx, n - 1);
    const int nv = llama_vocab_n_tokens(vocab);
    FILE *f = fopen(argv[3], "w");
    if (!f) {
        fprintf(stderr, "lastdump: cannot write %s\n", argv[3]);
        return 1;
    }
    fprintf(f, "{\"model\": \"%s\", \"config\": {\"kv\": \"f32\", \"flash_attn\": \"off\", \"threads\": 1, \"n_ctx\": 512},\n\"tokens\": [", rel.c_str());
    for (int i = 0; i < n; i++) fprintf(f, "%s%d", i ? ", " : "", toks[i]);
    fprintf(f, "],\n\"last_logits\": [");
    for (int i = 0; i < nv; i++) fprintf(f, "%s%.9g", i ? (i % 8 ? ", " : ",\n") : "", l[i]);
    fprintf(f, "]}\n");
    fclose(f);
    llama_batch_free(b);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
