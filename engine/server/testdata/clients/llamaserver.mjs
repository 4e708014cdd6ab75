// Drives Saji's llama-server endpoints (/completion, /tokenize,
// /detokenize, /apply-template, /props, /infill, /v1/rerank; #20 point 5)
// as llama.cpp's web UI and tools call them: plain fetch, as llama.cpp has
// no npm client. Run by TestRealClients; checks.mjs says how to select
// checks.
import { assert, check, run, env, script, rawPost } from "./checks.mjs";

// post posts body to path and returns the decoded JSON, checking the status.
async function post(path, body, status = 200) {
  const res = await rawPost(path, body);
  const text = await res.text();
  assert.equal(res.status, status, `${path}: ${text}`);
  return JSON.parse(text);
}

check("completion", "llamasrv", async () => {
  const r = await post("/completion", { model: env.plain, prompt: "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n", n_predict: 16 });
  assert.equal(r.content, script.plain);
  assert.equal(r.stop, true);
  assert.equal(r.stop_type, "eos");
  assert.equal(r.tokens_predicted, 3);
  assert.ok(r.tokens_evaluated > 0);
  const limited = await post("/completion", { model: env.plain, prompt: "hi", n_predict: 1 });
  assert.equal(limited.content, "Hello");
  assert.equal(limited.stop_type, "limit");
});

check("completion.stream", "llamasrv", async () => {
  const res = await rawPost("/completion", { model: env.plain, prompt: "hi", stream: true });
  assert.equal(res.status, 200);
  let text = "", last = null;
  for (const line of (await res.text()).split("\n")) {
    if (!line.startsWith("data: ")) continue;
    last = JSON.parse(line.slice(6));
    text += last.content;
  }
  assert.equal(text, script.plain);
  assert.equal(last.stop, true);
});

check("tokenize", "llamasrv", async () => {
  const t = await post("/tokenize", { model: env.tiny, content: "the cat sat", with_pieces: true });
  assert.deepEqual(t.tokens.map((x) => x.piece).join(""), " the cat sat");
  const ids = t.tokens.map((x) => x.id);
  const plain = await post("/tokenize", { model: env.tiny, content: "the cat sat" });
  assert.deepEqual(plain.tokens, ids);
  const d = await post("/detokenize", { model: env.tiny, tokens: ids });
  assert.equal(d.content.trim(), "the cat sat");
});

check("apply-template", "llamasrv", async () => {
  const r = await post("/apply-template", { model: env.plain, messages: [{ role: "user", content: "hi" }] });
  assert.ok(r.prompt.includes("<|im_start|>user\nhi<|im_end|>"), r.prompt);
  assert.ok(r.prompt.endsWith("<|im_start|>assistant\n"), r.prompt);
});

check("props", "llamasrv", async () => {
  const res = await fetch(`${env.url}/props?model=${env.plain}`, { headers: { authorization: `Bearer ${env.key}` } });
  assert.equal(res.status, 200);
  const p = await res.json();
  assert.ok(p.default_generation_settings, JSON.stringify(p));
  assert.ok(p.default_generation_settings.n_ctx > 0 || p.n_ctx > 0, JSON.stringify(p));
  assert.ok(p.total_slots >= 1);
  assert.ok(p.chat_template.includes("<|im_start|>"));
});

check("infill", "llamasrv", async () => {
  const r = await post("/infill", { model: env.fim, input_prefix: "def add(a, b):\n    ", input_suffix: "\n\nprint(add(1, 2))\n", n_predict: 16 });
  assert.equal(r.content, script.middle);
  // A model without FIM tokens: llama-server's 501 not_supported_error.
  const bad = await rawPost("/infill", { model: env.plain, input_prefix: "def", input_suffix: "\n" });
  const body = await bad.json();
  assert.equal(bad.status, 501, JSON.stringify(body));
  assert.equal(body.error?.type, "not_supported_error", JSON.stringify(body));
});

check("rerank", "llamasrv", async () => {
  // A model that cannot rank gets a clear 4xx; SAJI_RERANK_MODEL, when
  // set, is one that can.
  const bad = await rawPost("/v1/rerank", { model: env.plain, query: "panda", documents: ["hi", "a bear"] });
  const body = await bad.text();
  assert.ok(bad.status >= 400 && bad.status < 500 && bad.status !== 404, `a model that cannot rank: ${bad.status} ${body}`);
  assert.equal(typeof JSON.parse(body).error?.message, "string", body);
  const model = process.env.SAJI_RERANK_MODEL;
  if (!model) return "no SAJI_RERANK_MODEL";
  const r = await post("/v1/rerank", { model, query: "What is a panda?", top_n: 2,
    documents: ["hi", "it is a bear", "The giant panda is a bear species endemic to China."] });
  assert.equal(r.results.length, 2);
  for (const x of r.results) assert.ok(Number.isInteger(x.index) && typeof x.relevance_score === "number");
  assert.ok(r.results[0].relevance_score >= r.results[1].relevance_score);
});

await run("llamaserver");
