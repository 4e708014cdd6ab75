// Drives Saji's OpenAI dialect with the official openai client. Usage:
// SAJI_URL=http://127.0.0.1:PORT SAJI_MODEL=name node openai.mjs
import assert from "node:assert/strict";
import OpenAI from "openai";

const model = process.env.SAJI_MODEL;
const client = new OpenAI({ baseURL: process.env.SAJI_URL + "/v1", apiKey: process.env.SAJI_KEY || "none" });
const results = {};

// models
const models = [];
for await (const m of client.models.list()) models.push(m.id);
assert.ok(models.includes(model), `models: ${models}`);
results.models = models.length;

// chat, not streamed
const chat = await client.chat.completions.create({
  model, messages: [{ role: "user", content: "the cat" }], max_tokens: 6, temperature: 0, logprobs: true, top_logprobs: 2,
});
assert.equal(chat.object, "chat.completion");
assert.equal(chat.choices[0].message.role, "assistant");
assert.ok(["stop", "length"].includes(chat.choices[0].finish_reason));
assert.ok(chat.usage.completion_tokens <= 6 && chat.usage.prompt_tokens > 0);
results.chat = chat.choices[0].message.content.length;

// chat, streamed, with usage
const stream = await client.chat.completions.create({
  model, messages: [{ role: "user", content: "the cat" }], max_tokens: 6, temperature: 0, stream: true,
  stream_options: { include_usage: true },
});
let text = "", finish = null, usage = null;
for await (const chunk of stream) {
  if (chunk.usage) usage = chunk.usage;
  for (const c of chunk.choices) {
    text += c.delta.content ?? "";
    if (c.finish_reason) finish = c.finish_reason;
  }
}
assert.equal(text, chat.choices[0].message.content, "streamed and non-streamed text differ");
assert.equal(finish, chat.choices[0].finish_reason);
assert.equal(usage.completion_tokens, chat.usage.completion_tokens);
results.stream = text.length;

// legacy completions
const cmpl = await client.completions.create({ model, prompt: "the cat sat", max_tokens: 4, temperature: 0 });
assert.equal(cmpl.object, "text_completion");
results.completion = cmpl.choices[0].text.length;

// embeddings
const emb = await client.embeddings.create({ model, input: ["the cat", "a mat"] });
assert.equal(emb.data.length, 2);
const norm = Math.hypot(...emb.data[0].embedding);
assert.ok(Math.abs(norm - 1) < 1e-4, `norm ${norm}`);
results.embedding_dims = emb.data[0].embedding.length;

// tools, on a model whose template has a tool-call format
const toolsModel = process.env.SAJI_TOOLS_MODEL;
if (toolsModel) {
  const tools = [{ type: "function", function: { name: "get_weather", description: "Weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } } }];
  const messages = [
    { role: "user", content: "weather in Paris?" },
    { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } }] },
    { role: "tool", tool_call_id: "call_1", content: "sunny" },
  ];
  const r = await client.chat.completions.create({ model: toolsModel, messages, tools, tool_choice: "auto", max_tokens: 8 });
  assert.ok(["stop", "length", "tool_calls"].includes(r.choices[0].finish_reason));
  for (const c of r.choices[0].message.tool_calls ?? []) JSON.parse(c.function.arguments);
  const st = await client.chat.completions.create({ model: toolsModel, messages, tools, max_tokens: 8, stream: true });
  let done = false;
  for await (const chunk of st) for (const c of chunk.choices) if (c.finish_reason) done = true;
  assert.ok(done);
  results.tools = r.choices[0].finish_reason;

  // tool_choice required: even random weights make a valid call, whole and
  // streamed (the deltas joined as the SDK's helpers do)
  const flag = [{ type: "function", function: { name: "set_flag", description: "Sets the flag",
    parameters: { type: "object", properties: { on: { type: "boolean" } }, required: ["on"] } } }];
  const ask = { model: toolsModel, messages: [{ role: "user", content: "flag?" }], tools: flag, tool_choice: "required",
    parallel_tool_calls: false, max_tokens: 300, seed: 7, temperature: 0.8 };
  const req = await client.chat.completions.create(ask);
  assert.equal(req.choices[0].finish_reason, "tool_calls");
  assert.equal(req.choices[0].message.tool_calls.length, 1);
  assert.equal(req.choices[0].message.tool_calls[0].function.name, "set_flag");
  assert.equal(typeof JSON.parse(req.choices[0].message.tool_calls[0].function.arguments).on, "boolean");
  const rs = client.chat.completions.stream({ ...ask, stream: true });
  const fin = await rs.finalChatCompletion();
  assert.equal(fin.choices[0].finish_reason, "tool_calls");
  assert.equal(typeof JSON.parse(fin.choices[0].message.tool_calls[0].function.arguments).on, "boolean");
  results.tools_required = fin.choices[0].message.tool_calls[0].function.arguments;
}

// errors come back as the client's typed errors
await assert.rejects(
  client.chat.completions.create({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }),
  (e) => e instanceof OpenAI.NotFoundError);
await assert.rejects(
  client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], n: 2 }),
  (e) => e instanceof OpenAI.BadRequestError);

// a stream the client aborts
const ctl = new AbortController();
const long = await client.chat.completions.create(
  { model, messages: [{ role: "user", content: "the cat" }], stream: true }, { signal: ctl.signal });
let n = 0;
try {
  for await (const _ of long) { if (++n === 3) ctl.abort(); }
} catch (e) {
  assert.ok(e.name === "AbortError" || e instanceof OpenAI.APIUserAbortError, String(e));
}
results.aborted_after = n;
console.log(JSON.stringify(results));
