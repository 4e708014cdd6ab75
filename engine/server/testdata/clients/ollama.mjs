// Drives Saji's Ollama dialect (/api) with the official ollama client, one
// check per point of the API. Run by TestRealClients; checks.mjs says how
// to select checks.
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { Ollama } from "ollama";
import { assert, check, run, env, script, rawPost, weatherTool, PICTURE, BLIND, needVision } from "./checks.mjs";

const ollama = new Ollama({ host: env.url, headers: { authorization: `Bearer ${env.key}` } });
const hi = [{ role: "user", content: "hi" }];
const greedy = { temperature: 0 };

// chatStream reads a streamed chat: content, thinking, tool calls, the last part.
async function chatStream(req) {
  const out = { content: "", thinking: "", calls: [], last: null };
  for await (const part of await ollama.chat({ ...req, stream: true })) {
    out.content += part.message.content ?? "";
    out.thinking += part.message.thinking ?? "";
    out.calls.push(...(part.message.tool_calls ?? []));
    out.last = part;
  }
  return out;
}

// names lists the models /api/tags lists.
async function names() {
  return (await ollama.list()).models.map((m) => m.name);
}

// --- what main has had since the dialect's first version

check("tags", "main", async () => {
  const ns = await names();
  for (const m of [env.tiny, env.plain, env.think]) assert.ok(ns.includes(m + ":latest"), JSON.stringify(ns));
  return ns.length;
});

check("show", "main", async () => {
  const show = await ollama.show({ model: env.hermes });
  assert.ok(show.capabilities.includes("completion"));
  assert.ok(show.capabilities.includes("tools"), show.capabilities);
  assert.ok(show.template.includes("<tool_call>"));
  const arch = show.model_info["general.architecture"];
  assert.ok(show.model_info[arch + ".context_length"] > 0, JSON.stringify(show.model_info));
});

check("ps", "main", async () => {
  const ps = await ollama.ps();
  assert.ok(ps.models.length >= 1);
});

check("chat", "main", async () => {
  const r = await ollama.chat({ model: env.plain, messages: hi, options: greedy });
  assert.equal(r.message.role, "assistant");
  assert.equal(r.message.content, script.plain);
  assert.ok(r.done);
  assert.equal(r.done_reason, "stop");
  assert.equal(r.eval_count, 3);
  const latest = await ollama.chat({ model: env.plain + ":latest", messages: hi });
  assert.equal(latest.message.content, script.plain);
});

check("chat.stream", "main", async () => {
  const whole = await ollama.chat({ model: env.tiny, messages: hi, options: { ...greedy, num_predict: 6 } });
  assert.ok(whole.done && whole.eval_count <= 6);
  const s = await chatStream({ model: env.tiny, messages: hi, options: { ...greedy, num_predict: 6 } });
  assert.equal(s.content, whole.message.content);
  assert.ok(s.last.done);
});

check("generate", "main", async () => {
  const gen = await ollama.generate({ model: env.tiny, prompt: "the cat sat", options: { ...greedy, num_predict: 4 } });
  assert.ok(gen.done && gen.eval_count <= 4);
  let text = "";
  for await (const part of await ollama.generate({ model: env.tiny, prompt: "the cat sat", stream: true, options: { ...greedy, num_predict: 4 } })) {
    text += part.response;
  }
  assert.equal(text, gen.response);
});

check("generate.suffix", "main", async () => {
  const show = await ollama.show({ model: env.fim });
  assert.ok(show.capabilities.includes("insert"), show.capabilities);
  const r = await ollama.generate({ model: env.fim, prompt: "def add(a, b):\n    ", suffix: "\n\nprint(add(1, 2))\n" });
  assert.equal(r.response, script.middle);
});

check("embed", "main", async () => {
  const r = await ollama.embed({ model: env.tiny, input: ["the cat", "a mat"] });
  assert.equal(r.embeddings.length, 2);
  return r.embeddings[0].length;
});

check("tools", "main", async () => {
  const r = await ollama.chat({ model: env.hermes, messages: hi, tools: [weatherTool] });
  assert.equal(r.message.tool_calls?.length, 1, JSON.stringify(r.message));
  assert.equal(r.message.tool_calls[0].function.name, "get_weather");
  assert.deepEqual(r.message.tool_calls[0].function.arguments, { city: script.city });
  const s = await chatStream({ model: env.hermes, messages: hi, tools: [weatherTool] });
  assert.equal(s.calls[0]?.function.name, "get_weather");
  // The call and its result go back through the template.
  const next = await ollama.chat({ model: env.plain, tools: [weatherTool],
    messages: [...hi, r.message, { role: "tool", content: "sunny", tool_name: "get_weather" }] });
  assert.equal(next.message.content, script.plain);
});

check("errors", "main", async () => {
  await assert.rejects(ollama.chat({ model: "no-such-model", messages: hi }),
    (e) => e.name === "ResponseError" && e.status_code === 404 && e.error.length > 0);
  const res = await rawPost("/api/chat", "{not json");
  assert.equal(res.status, 400);
  assert.equal(typeof (await res.json()).error, "string");
});

// --- #20 point 4: reasoning

check("think", "reason", async () => {
  const r = await ollama.chat({ model: env.think, messages: hi, think: true });
  assert.equal(r.message.thinking?.trim(), script.reasoning, JSON.stringify(r.message));
  assert.equal(r.message.content.trim(), script.answer);
  const s = await chatStream({ model: env.think, messages: hi, think: true });
  assert.equal(s.thinking.trim(), script.reasoning);
  assert.equal(s.content.trim(), script.answer);
  const g = await ollama.generate({ model: env.think, prompt: "hi", think: true });
  assert.equal(g.thinking?.trim(), script.reasoning, JSON.stringify(g));
  assert.equal(g.response.trim(), script.answer);
});

check("think.level", "reason", async () => {
  const r = await ollama.chat({ model: env.think, messages: hi, think: "low" });
  assert.equal(r.message.content.trim(), script.answer);
});

check("think.harmony", "reason tools", async () => {
  // gpt-oss takes a level.
  const r = await ollama.chat({ model: env.gptoss, messages: hi, think: "low", tools: [weatherTool] });
  assert.equal(r.message.thinking, script.toolReasoning, JSON.stringify(r.message));
  assert.equal(r.message.tool_calls?.[0]?.function.name, "get_weather");
  assert.deepEqual(r.message.tool_calls[0].function.arguments, { city: script.city });
});

check("show.thinking", "reason", async () => {
  const show = await ollama.show({ model: env.think });
  assert.ok(show.capabilities.includes("thinking"), show.capabilities);
  const plain = await ollama.show({ model: env.tiny });
  assert.ok(!plain.capabilities.includes("thinking"), plain.capabilities);
});

// --- #20 point 5: the surfaces clients call

check("show.context_length", "apifix", async () => {
  // Ollama reports the trained context (the tiny model's is 2048); the
  // serving one (128) is /api/ps's.
  const show = await ollama.show({ model: env.tiny });
  const arch = show.model_info["general.architecture"];
  assert.equal(show.model_info[arch + ".context_length"], 2048, JSON.stringify(show.model_info));
  const ps = await ollama.ps();
  assert.equal(ps.models.find((m) => m.name === env.tiny + ":latest")?.context_length, 128);
});

check("generate.context", "apifix", async () => {
  const a = await ollama.generate({ model: env.tiny, prompt: "the cat", options: { ...greedy, num_predict: 3 } });
  assert.ok(Array.isArray(a.context) && a.context.length > 3, JSON.stringify(a.context));
  const b = await ollama.generate({ model: env.tiny, prompt: " sat", context: a.context, options: { ...greedy, num_predict: 3 } });
  assert.ok(b.context.length > a.context.length);
  assert.deepEqual(b.context.slice(0, a.context.length), a.context);
});

check("logprobs", "apifix", async () => {
  const r = await ollama.chat({ model: env.plain, messages: hi, logprobs: true, top_logprobs: 2 });
  assert.equal(r.logprobs?.length, r.eval_count, JSON.stringify(r.logprobs));
  assert.equal(r.logprobs.map((l) => l.token).join(""), script.plain);
  for (const l of r.logprobs) {
    assert.ok(l.logprob <= 0);
    assert.equal(l.top_logprobs.length, 2);
  }
  const g = await ollama.generate({ model: env.plain, prompt: "hi", logprobs: true });
  assert.ok(g.logprobs?.length > 0);
});

check("embeddings.legacy", "apifix", async () => {
  const r = await ollama.embeddings({ model: env.tiny, prompt: "the cat" });
  assert.equal(r.embedding.length, 256);
});

// created makes sure the library holds "created": the plain model's
// GGUF file as a blob, then a model from it, as `ollama create` sends a
// Modelfile's FROM file. It returns the create's streamed statuses.
async function created() {
  if ((await names()).includes("created:latest")) return [];
  const path = process.env.SAJI_CREATE_GGUF;
  assert.ok(path, "SAJI_CREATE_GGUF is not set");
  const data = await readFile(path);
  const digest = "sha256:" + createHash("sha256").update(data).digest("hex");
  const blob = `${env.url}/api/blobs/${digest}`;
  if ((await fetch(blob, { method: "HEAD" })).status !== 200) {
    const put = await fetch(blob, { method: "POST", body: data });
    assert.equal(put.status, 201, await put.text());
  }
  const statuses = [];
  for await (const p of await ollama.create({ model: "created", files: { "created.gguf": digest }, stream: true })) statuses.push(p.status);
  return statuses;
}

check("create", "apifix", async () => {
  const bad = await fetch(`${env.url}/api/blobs/sha256:${"0".repeat(64)}`, { method: "POST", body: "not the digest's" });
  assert.equal(bad.status, 400);
  assert.equal((await fetch(`${env.url}/api/blobs/sha256:${"0".repeat(64)}`, { method: "HEAD" })).status, 404);
  const statuses = await created();
  assert.equal(statuses.at(-1), "success", statuses);
  assert.ok((await names()).includes("created:latest"));
  const r = await ollama.chat({ model: "created", messages: hi });
  assert.equal(r.message.content, script.plain);
});

check("copy.delete", "apifix", async () => {
  await created();
  await ollama.copy({ source: "created", destination: "created-copy" });
  assert.ok((await names()).includes("created-copy:latest"));
  const r = await ollama.chat({ model: "created-copy", messages: hi });
  assert.equal(r.message.content, script.plain);
  await ollama.delete({ model: "created-copy" });
  await ollama.delete({ model: "created" });
  const left = await names();
  assert.ok(!left.includes("created-copy:latest") && !left.includes("created:latest"), left);
  await assert.rejects(ollama.delete({ model: "no-such-model" }), (e) => e.status_code === 404);
});

check("pull", "apifix", async () => {
  // No network in the tests: a pull of a model nobody has fails in
  // Ollama's shape, not as an unknown route.
  await assert.rejects(async () => {
    for await (const _ of await ollama.pull({ model: "hf.co/saji-test/no-such-model-GGUF:Q4_K_M", stream: true }));
  }, (e) => !/404 page not found/.test(e.message) && e.message.length > 0);
  await assert.rejects(ollama.pull({ model: "hf.co/saji-test/no-such-model-GGUF:Q4_K_M" }),
    (e) => !/404 page not found/.test(e.message));
  // SAJI_PULL_MODEL, when set, is a model the server can download (the
  // plain model, from a fake Hugging Face): Ollama's progress lines, then
  // the model serves under the name it was pulled by.
  const name = process.env.SAJI_PULL_MODEL;
  if (!name) return "no SAJI_PULL_MODEL";
  const statuses = [];
  for await (const p of await ollama.pull({ model: name, stream: true })) statuses.push(p.status);
  assert.equal(statuses[0], "pulling manifest", statuses);
  assert.equal(statuses.at(-1), "success", statuses);
  assert.ok(statuses.some((s) => s.startsWith("pulling sha256") || /^pulling [0-9a-f]{12}/.test(s)), statuses);
  const r = await ollama.chat({ model: name, messages: hi });
  assert.equal(r.message.content, script.plain);
  await ollama.delete({ model: name });
});

// --- #25: pictures (images, base64)

// picture is PICTURE's bytes: the client sends them as base64.
const picture = Buffer.from(PICTURE, "base64");
const look = [{ role: "user", content: "What is in this picture?", images: [picture] }];

check("vision.refused", "vision", async () => {
  // The picture reaches the runner, which refuses it to a model without a projector.
  const blind = (e) => e.name === "ResponseError" && e.status_code === 400 && e.error.includes(BLIND);
  await assert.rejects(ollama.chat({ model: env.plain, messages: look }), blind);
  await assert.rejects(ollama.chat({ model: env.plain, messages: look, stream: true }).then(async (it) => { for await (const _ of it); }), blind);
  await assert.rejects(ollama.generate({ model: env.plain, prompt: "What is in this picture?", images: [PICTURE] }), blind);
  await assert.rejects(ollama.generate({ model: env.plain, prompt: "What?", images: ["bm90IGFuIGltYWdl"] }),
    (e) => e.status_code === 400 && e.error.includes("images[0]: not a JPEG, PNG, WebP or GIF image"));
  const show = await ollama.show({ model: env.plain });
  assert.ok(!show.capabilities.includes("vision"), show.capabilities);
});

check("vision.chat", "vision", async () => {
  await needVision();
  const show = await ollama.show({ model: env.vision });
  assert.ok(show.capabilities.includes("vision"), show.capabilities);
  // A tiny model with random weights: its greedy reply is the same whole
  // and streamed.
  const options = { ...greedy, num_predict: 8 };
  const r = await ollama.chat({ model: env.vision, messages: look, options });
  assert.equal(typeof r.message.content, "string");
  assert.ok(r.eval_count > 0, "a reply");
  const s = await chatStream({ model: env.vision, messages: look, options });
  assert.equal(s.content, r.message.content);
  const g = await ollama.generate({ model: env.vision, prompt: "What is in this picture?", images: [picture], options });
  assert.ok(g.eval_count > 0, "a reply");
});

await run("ollama");
