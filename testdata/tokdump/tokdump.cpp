// tokdump records llama.cpp's tokenization of a list of texts for one GGUF
// file (loaded vocabulary only) in the JSON schema of Saji's tokenizer
// figures: for each text the ids in the four modes of llama_tokenize
// (add_special, parse_special), the pieces of the add-and-parse ids
// (llama_token_to_piece, special on) and the detokenized plain ids
// (llama_detokenize, remove_special and unparse_special off). Texts are
// read as lowercase hex, one per line, so that they may hold any bytes;
// the output holds them as hex too.
//
// Usage: tokdump MODEL TEXTS.hex OUT.json
#include "llama.h"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

// hex encodes bytes as lowercase hex.
static std::string hex(const std::string &s) {
    static const char *d = "0123456789abcdef";
    std::string o;
    for (unsigned char c : s) {
        o += d[c >> 4];
        o += d[c & 15];
    }
    return o;
}

// unhex decodes a line of hex; exits on bad input.
static std::string unhex(const std::string &h) {
    auto v = [](char c) -> int {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        fprintf(stderr, "tokdump: bad hex character %c\n", c);
        exit(1);
    };
    if (h.size() % 2) {
        fprintf(stderr, "tokdump: odd hex line\n");
        exit(1);
    }
    std::string o;
    for (size_t i = 0; i < h.size(); i += 2) o += (char)(v(h[i]) * 16 + v(h[i + 1]));
    return o;
}

static std::vector<llama_token> tokenize(const llama_vocab *vocab, const std::string &text, bool add, bool special) {
    std::vector<llama_token> toks(text.size() + 8);
    int n = llama_tokenize(vocab, text.c_str(), text.size(), toks.data(), toks.size(), add, special);
    if (n < 0) {
        toks.resize(-n);
        n = llama_tokenize(vocab, text.c_str(), text.size(), toks.data(), toks.size(), add, special);
    }
    toks.resize(n);
    return toks;
}

static std::string ids(const std::vector<llama_token> &v) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); i++) o += (i ? "," : "") + std::to_string(v[i]);
    return o + "]";
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: tokdump MODEL TEXTS.hex OUT.json\n");
        return 2;
    }
    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.vocab_only = true;
    llama_model *model = llama_model_load_from_file(argv[1], mp);
    if (!model) {
        fprintf(stderr, "tokdump: cannot load %s\n", argv[1]);
        return 1;
    }
    const llama_vocab *vocab = llama_model_get_vocab(model);

    std::ifstream in(argv[2]);
    std::vector<std::string> texts;
    for (std::string line; std::getline(in, line);) texts.push_back(unhex(line));

    std::string eog = "[";
    bool first = true;
    for (int id = 0; id < llama_vocab_n_tokens(vocab); id++) {
        if (llama_vocab_is_eog(vocab, id)) {
            eog += (first ? "" : ",") + std::to_string(id);
            first = false;
        }
    }
    eog += "]";

    FILE *out = fopen(argv[3], "w");
    if (!out) {
        fprintf(stderr, "tokdump: cannot write %s\n", argv[3]);
        return 1;
    }
    fprintf(out, "{\"schema_version\":1,\"kind\":\"tokenizer\",\"generator\":{\"tool\":\"testdata/tokdump/tokdump.cpp\",\"llama_cpp\":\"3f545bec\"},\n");
    fprintf(out, "\"model\":{\"n_vocab\":%d,\"bos_id\":%d,\"eos_id\":%d,\"add_bos\":%s,\"add_eos\":%s,\"eog_ids\":%s},\n\"cases\":[\n",
            llama_vocab_n_tokens(vocab), llama_vocab_bos(vocab), llama_vocab_eos(vocab),
            llama_vocab_get_add_bos(vocab) ? "true" : "false", llama_vocab_get_add_eos(vocab) ? "true" : "false", eog.c_str());
    for (size_t i = 0; i < texts.size(); i++) {
        const std::string &t = texts[i];
        auto plain = tokenize(vocab, t, false, false);
        auto both = tokenize(vocab, t, true, true);
        std::string pieces = "[";
        for (size_t j = 0; j < both.size(); j++) {
            char buf[256];
            int n = llama_token_to_piece(vocab, both[j], buf, sizeof buf, 0, true);
            pieces += std::string(j ? "," : "") + "\"" + hex(std::string(buf, n > 0 ? n : 0)) + "\"";
        }
        pieces += "]";
        std::vector<char> dt(t.size() * 4 + 64);
        int dn = llama_detokenize(vocab, plain.data(), plain.size(), dt.data(), dt.size(), false, false);
        std::string detok(dt.data(), dn > 0 ? dn : 0);
        fprintf(out, "{\"id\":\"c%02zu\",\"text_hex\":\"%s\",\"plain\":%s,\"add_special\":%s,\"parse_special\":%s,\"add_and_parse_special\":%s,\"pieces_hex\":%s,\"detok_plain_hex\":\"%s\"}%s\n",
                i, hex(t).c_str(), ids(plain).c_str(), ids(tokenize(vocab, t, true, false)).c_str(),
                ids(tokenize(vocab, t, false, true)).c_str(), ids(both).c_str(), pieces.c_str(), hex(detok).c_str(),
                i + 1 < texts.size() ? "," : "");
    }
    fprintf(out, "]}\n");
    fclose(out);
    llama_model_free(model);
    llama_backend_free();
    return 0;
}
