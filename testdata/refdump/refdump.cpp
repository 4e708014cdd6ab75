// refdump records llama.cpp's reference figures for one GGUF model in the
// JSON schema of Saji's shared testdata (kind "model"): for each prompt,
// the tokens, the top-20 logits at every prompt position, the last
// position's logits, and a 32-step greedy continuation.
//
// Usage: refdump MODEL PROMPTS.json OUT.json [f32|f16] [off|auto] [threads]
#include "llama.h"
#include "gguf.h"
#include "ggml.h"

#include <algorithm>
#include <cctype>
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
        case '\r': o += "\\r"; break;
        case '\t': o += "\\t"; break;
        default:
            if (c < 0x20) { char b[8]; snprintf(b, sizeof b, "\\u%04x", c); o += b; }
            else o += (char)c;
        }
    }
    return o + "\"";
}

static bool valid_utf8(const std::string &s) {
    size_t i = 0, n = s.size();
    while (i < n) {
        unsigned char c = s[i];
        int len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
        if (!len || i + len > n) return false;
        for (int k = 1; k < len; k++) if ((s[i + k] & 0xC0) != 0x80) return false;
        i += len;
    }
    return true;
}

static std::string hex(const std::string &s) {
    std::string o; char b[4];
    for (unsigned char c : s) { snprintf(b, sizeof b, "%02x", c); o += b; }
    return o;
}

static std::string upper(std::string s) {
    for (char &c : s) c = toupper((unsigned char)c);
    return s;
}

static std::string f9(float v) { char b[32]; snprintf(b, sizeof b, "%.9g", v); return b; }

static std::string piece(const llama_vocab *vocab, llama_token t, bool special) {
    std::vector<char> buf(256);
    int n = llama_token_to_piece(vocab, t, buf.data(), buf.size(), 0, special);
    if (n < 0) { buf.resize(-n); n = llama_token_to_piece(vocab, t, buf.data(), buf.size(), 0, special); }
    return std::string(buf.data(), n);
}

static std::string maybe(const std::string &s) { return valid_utf8(s) ? jstr(s) : "null"; }

// topk returns the k largest logits, ties by lowest id.
static std::vector<std::pair<int, float>> topk(const float *l, int n, int k) {
    std::vector<int> idx(n);
    for (int i = 0; i < n; i++) idx[i] = i;
    std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int a, int b) {
        return l[a] != l[b] ? l[a] > l[b] : a < b;
    });
    std::vector<std::pair<int, float>> o;
    for (int i = 0; i < k; i++) o.push_back({idx[i], l[idx[i]]});
    return o;
}

static std::string pairs(const std::vector<std::pair<int, float>> &v) {
    std::string o = "[";
    for (size_t i = 0; i < v.size(); i++) o += (i ? "," : "") + std::string("[") + std::to_string(v[i].first) + "," + f9(v[i].second) + "]";
    return o + "]";
}

// minimal prompts.json reader: [{"id": "...", "text": "..."}]
static std::vector<std::pair<std::string, std::string>> read_prompts(const char *path) {
    std::ifstream f(path); std::stringstream ss; ss << f.rdbuf(); std::string s = ss.str();
    std::vector<std::pair<std::string, std::string>> out;
    auto readstr = [&](size_t &i) {
        std::string o; i++; // opening quote
        while (s[i] != '"') {
            if (s[i] == '\\') {
                i++;
                char c = s[i];
                if (c == 'n') o += '\n'; else if (c == 't') o += '\t'; else if (c == 'r') o += '\r';
                else if (c == 'u') { unsigned v = std::stoul(s.substr(i + 1, 4), nullptr, 16); i += 4;
                    if (v < 0x80) o += (char)v; else if (v < 0x800) { o += (char)(0xC0 | (v >> 6)); o += (char)(0x80 | (v & 63)); }
                    else { o += (char)(0xE0 | (v >> 12)); o += (char)(0x80 | ((v >> 6) & 63)); o += (char)(0x80 | (v & 63)); } }
                else o += c;
            } else o += s[i];
            i++;
        }
        i++;
        return o;
    };
    size_t i = 0;
    std::string id;
    while ((i = s.find('"', i)) != std::string::npos) {
        std::string key = readstr(i);
        size_t colon = s.find(':', i); i = s.find('"', colon);
        std::string val = readstr(i);
        if (key == "id") id = val;
        else if (key == "text") out.push_back({id, val});
    }
    return out;
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: refdump MODEL PROMPTS.json OUT.json [f32|f16] [off|auto] [threads] [tail]\n"); return 2; }
    const char *mpath = argv[1];
    std::string kv = argc > 4 ? argv[4] : "f32", fa = argc > 5 ? argv[5] : "off";
    int threads = argc > 6 ? atoi(argv[6]) : 1;
    // tail > 0 decodes each prompt in two batches, the last tail tokens
    // alone, as llama-server does before a context checkpoint.
    int tail = argc > 7 ? atoi(argv[7]) : 0;
    const int n_gen = 32, top_k = 20, n_ctx = 512;

    llama_backend_init();
    llama_model_params mp = llama_model_default_params();
    mp.n_gpu_layers = 0;
    llama_model *model = llama_model_load_from_file(mpath, mp);
    if (!model) { fprintf(stderr, "refdump: cannot load %s\n", mpath); return 1; }
    const llama_vocab *vocab = llama_model_get_vocab(model);
    int n_vocab = llama_vocab_n_tokens(vocab);

    std::string out = "{\n\"schema_version\": 1,\n\"kind\": \"model\",\n";
    out += "\"generator\": {\"tool\": \"refdump (libllama)\", \"llama_cpp_commit\": \"3f545beccee69d9975f466ec7e45fd9aacd8ba90\"},\n";
    char buf[512];
    llama_model_desc(model, buf, sizeof buf);
    std::string arch = llama_model_meta_val_str(model, "general.architecture", buf + 256, 256) >= 0 ? std::string(buf + 256) : "";
    char desc[256]; llama_model_desc(model, desc, sizeof desc);
    std::string file = mpath; file = file.substr(file.find_last_of('/') + 1);
    out += "\"model\": {\"file\": " + jstr(file) + ", \"architecture\": " + jstr(arch) + ", \"desc\": " + jstr(desc);
    out += ", \"n_vocab\": " + std::to_string(n_vocab) + ", \"n_params\": " + std::to_string(llama_model_n_params(model));
    out += ", \"n_ctx_train\": " + std::to_string(llama_model_n_ctx_train(model));
    char tm[128] = "", tp[128] = "";
    llama_model_meta_val_str(model, "tokenizer.ggml.model", tm, sizeof tm);
    llama_model_meta_val_str(model, "tokenizer.ggml.pre", tp, sizeof tp);
    out += ", \"tokenizer_model\": " + jstr(tm) + ", \"tokenizer_pre\": " + jstr(tp);
    out += ", \"bos_id\": " + std::to_string(llama_vocab_bos(vocab)) + ", \"eos_id\": " + std::to_string(llama_vocab_eos(vocab));
    out += std::string(", \"add_bos\": ") + (llama_vocab_get_add_bos(vocab) ? "true" : "false");
    out += std::string(", \"add_eos\": ") + (llama_vocab_get_add_eos(vocab) ? "true" : "false");
    out += ", \"eog_ids\": [";
    bool first = true;
    for (int t = 0; t < n_vocab; t++) if (llama_vocab_is_eog(vocab, t)) { out += (first ? "" : ", ") + std::to_string(t); first = false; }
    out += "]";
    char ft[32] = "";
    if (llama_model_meta_val_str(model, "general.file_type", ft, sizeof ft) >= 0) out += std::string(", \"file_type\": ") + ft;
    gguf_init_params gp = {true, nullptr};
    gguf_context *g = gguf_init_from_file(mpath, gp);
    out += ", \"tensor_types\": {";
    for (int64_t i = 0; i < gguf_get_n_tensors(g); i++)
        out += (i ? ", " : "") + jstr(gguf_get_tensor_name(g, i)) + ": " + jstr(upper(ggml_type_name(gguf_get_tensor_type(g, i))));
    out += "}},\n";
    gguf_free(g);
    out += "\"config\": {\"n_threads\": " + std::to_string(threads) + ", \"n_ctx\": 512, \"n_batch\": 512, \"n_ubatch\": 512, \"type_k\": " + jstr(kv) + ", \"type_v\": " + jstr(kv);
    out += ", \"flash_attn\": " + jstr(fa) + ", \"n_gen\": 32, \"top_k\": 20, \"add_special\": true, \"parse_special\": true";
    if (tail > 0)
        out += ", \"prompt_tail\": " + std::to_string(tail) + ", \"prompt_decode\": \"two batches, the last prompt_tail tokens alone (llama-server's split before a context checkpoint), logits for all positions\"";
    else
        out += ", \"prompt_decode\": \"single batch, logits for all positions\"";
    out += ", \"greedy\": \"argmax (lowest id on ties), one token per llama_decode, EOS not treated specially\"},\n";
    out += "\"prompts\": [";

    auto prompts = read_prompts(argv[2]);
    for (size_t pi = 0; pi < prompts.size(); pi++) {
        llama_context_params cp = llama_context_default_params();
        cp.n_ctx = cp.n_batch = cp.n_ubatch = n_ctx;
        cp.n_seq_max = 1;
        cp.n_threads = cp.n_threads_batch = threads;
        cp.type_k = cp.type_v = kv == "f16" ? GGML_TYPE_F16 : GGML_TYPE_F32;
        cp.flash_attn_type = fa == "auto" ? LLAMA_FLASH_ATTN_TYPE_AUTO : LLAMA_FLASH_ATTN_TYPE_DISABLED;
        llama_context *ctx = llama_init_from_model(model, cp);
        if (!ctx) { fprintf(stderr, "refdump: cannot create a context\n"); return 1; }
        const std::string &text = prompts[pi].second;
        std::vector<llama_token> toks(text.size() + 8);
        int n = llama_tokenize(vocab, text.c_str(), text.size(), toks.data(), toks.size(), true, true);
        toks.resize(n);
        llama_batch b = llama_batch_init(n_ctx, 0, 1);
        const int cut = tail > 0 && tail < n ? n - tail : n;
        std::vector<std::string> tops(n);
        std::vector<float> cur;
        for (int s0 = 0; s0 < n;) {
            const int s1 = s0 < cut ? cut : n;
            for (int i = s0; i < s1; i++) { int j = i - s0; b.token[j] = toks[i]; b.pos[j] = i; b.n_seq_id[j] = 1; b.seq_id[j][0] = 0; b.logits[j] = 1; }
            b.n_tokens = s1 - s0;
            if (llama_decode(ctx, b)) { fprintf(stderr, "refdump: decode failed\n"); return 1; }
            for (int i = s0; i < s1; i++) tops[i] = pairs(topk(llama_get_logits_ith(ctx, i - s0), n_vocab, top_k));
            if (s1 == n) cur.assign(llama_get_logits_ith(ctx, n - 1 - s0), llama_get_logits_ith(ctx, n - 1 - s0) + n_vocab);
            s0 = s1;
        }
        std::string p = std::string(pi ? "," : "") + "\n{\"id\": " + jstr(prompts[pi].first) + ", \"text\": " + jstr(text) + ", \"tokens\": [";
        std::string pieces = "[", phex = "[";
        for (int i = 0; i < n; i++) {
            std::string s = piece(vocab, toks[i], true);
            p += (i ? ", " : "") + std::to_string(toks[i]);
            pieces += (i ? ", " : "") + maybe(s);
            phex += (i ? ", " : "") + jstr(hex(s));
        }
        p += "], \"token_pieces\": " + pieces + "], \"token_pieces_hex\": " + phex + "],\n\"top_logits\": [";
        for (int i = 0; i < n; i++) p += std::string(i ? ",\n" : "\n") + tops[i];
        p += "],\n\"last_logits\": [";
        for (int i = 0; i < n_vocab; i++) p += (i ? "," : "") + f9(cur[i]);
        p += "],\n\"greedy\": {";
        std::vector<llama_token> gen;
        std::string top1 = "[", margin = "[", top5 = "[", gp2 = "[", ghex = "[";
        for (int step = 0; step < n_gen; step++) {
            auto t5 = topk(cur.data(), n_vocab, 5);
            llama_token t = t5[0].first;
            gen.push_back(t);
            top1 += (step ? ", " : "") + f9(t5[0].second);
            margin += (step ? ", " : "") + f9(t5[0].second - t5[1].second);
            top5 += (step ? ",\n" : "\n") + pairs(t5);
            std::string s = piece(vocab, t, false);
            gp2 += (step ? ", " : "") + maybe(s);
            ghex += (step ? ", " : "") + jstr(hex(s));
            if (step == n_gen - 1) break;
            b.n_tokens = 1; b.token[0] = t; b.pos[0] = n + step; b.n_seq_id[0] = 1; b.seq_id[0][0] = 0; b.logits[0] = 1;
            if (llama_decode(ctx, b)) { fprintf(stderr, "refdump: decode failed\n"); return 1; }
            const float *l = llama_get_logits_ith(ctx, 0);
            cur.assign(l, l + n_vocab);
        }
        std::vector<char> dt(4096);
        int dn = llama_detokenize(vocab, gen.data(), gen.size(), dt.data(), dt.size(), false, false);
        std::string dtext = dn >= 0 ? std::string(dt.data(), dn) : "";
        p += "\"tokens\": [";
        for (size_t i = 0; i < gen.size(); i++) p += (i ? ", " : "") + std::to_string(gen[i]);
        p += "], \"pieces\": " + gp2 + "], \"pieces_hex\": " + ghex + "], \"text\": " + maybe(dtext) + ", \"text_hex\": " + jstr(hex(dtext));
        p += ", \"top1_logit\": " + top1 + "], \"margin\": " + margin + "], \"top5\": " + top5 + "]}}";
        out += p;
        llama_batch_free(b);
        llama_free(ctx);
    }
    out += "]\n}\n";
    std::ofstream(argv[3]) << out;
    llama_model_free(model);
    return 0;
}
