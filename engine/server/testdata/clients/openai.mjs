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

// structured output: a schema as zod 4's z.toJSONSchema writes it,
// enforced while sampling; llama-server's grammar field on completions
const zodSchema = {
  $schema: "https://json-schema.org/draft/2020-12/schema", type: "object",
  properties: { id: { type: "integer", minimum: 1, maximum: 999 }, kind: { type: "string", enum: ["a", "b"] },
    tag: { anyOf: [{ type: "string", maxLength: 4 }, { type: "null" }] } },
  required: ["id", "kind", "tag"], additionalProperties: false,
};
const so = await client.chat.completions.create({ model, messages: [{ role: "user", content: "hi" }], max_tokens: 64,
  temperature: 0.8, seed: 1, response_format: { type: "json_schema", json_schema: { name: "thing", strict: true, schema: zodSchema } } });
if (so.choices[0].finish_reason === "stop") {
  const v = JSON.parse(so.choices[0].message.content);
  assert.ok(Number.isInteger(v.id) && v.id >= 1 && v.id <= 999 && ["a", "b"].includes(v.kind), so.choices[0].message.content);
}
results.structured = so.choices[0].finish_reason;
const gr = await client.completions.create({ model, prompt: "the cat", max_tokens: 10, temperature: 0.8, seed: 2,
  grammar: 'root ::= ("yes" | "no") " " [0-9]{1,2}' });
assert.match(gr.choices[0].text, /^(yes|no) [0-9]{1,2}$/);
await assert.rejects(
  client.completions.create({ model, prompt: "hi", grammar: "root ::= [a-" }),
  (e) => e instanceof OpenAI.BadRequestError && /1:10/.test(e.message));
results.grammar = gr.choices[0].text;

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
