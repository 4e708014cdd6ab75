// Drives Saji's Ollama dialect with the official ollama client. Usage:
// SAJI_URL=http://127.0.0.1:PORT SAJI_MODEL=name node ollama.mjs
import assert from "node:assert/strict";
import { Ollama } from "ollama";

const model = process.env.SAJI_MODEL;
const ollama = new Ollama({ host: process.env.SAJI_URL });
const results = {};

const tags = await ollama.list();
assert.ok(tags.models.some((m) => m.name === model + ":latest"), JSON.stringify(tags));
results.tags = tags.models.length;

const show = await ollama.show({ model });
assert.ok(show.capabilities.includes("completion"));
const arch = show.model_info["general.architecture"];
assert.ok(show.model_info[arch + ".context_length"] > 0, JSON.stringify(show.model_info));
results.context_length = show.model_info[arch + ".context_length"];

const ps = await ollama.ps();
assert.ok(ps.models.length >= 1);

const chat = await ollama.chat({ model, messages: [{ role: "user", content: "the cat" }], options: { temperature: 0, num_predict: 6 } });
assert.equal(chat.message.role, "assistant");
assert.ok(chat.done && chat.eval_count <= 6);
let streamed = "";
for await (const part of await ollama.chat({ model, messages: [{ role: "user", content: "the cat" }], stream: true, options: { temperature: 0, num_predict: 6 } })) {
  streamed += part.message.content;
}
assert.equal(streamed, chat.message.content);
results.chat = streamed.length;

const gen = await ollama.generate({ model, prompt: "the cat sat", options: { temperature: 0, num_predict: 4 } });
assert.ok(gen.done && gen.eval_count <= 4);
let gs = "";
for await (const part of await ollama.generate({ model, prompt: "the cat sat", stream: true, options: { temperature: 0, num_predict: 4 } })) {
  gs += part.response;
}
assert.equal(gs, gen.response);
results.generate = gs.length;

// structured output: format with a schema as Pydantic 2's model_json_schema writes it
const pydanticSchema = {
  properties: { id: { maximum: 999, minimum: 1, title: "Id", type: "integer" },
    kind: { enum: ["a", "b"], title: "Kind", type: "string" },
    tag: { anyOf: [{ maxLength: 4, type: "string" }, { type: "null" }], default: null, title: "Tag" } },
  required: ["id", "kind"], title: "Thing", type: "object",
};
const so = await ollama.chat({ model, messages: [{ role: "user", content: "a thing" }], format: pydanticSchema,
  options: { num_predict: 70, seed: 3 } });
if (so.done_reason === "stop") {
  const v = JSON.parse(so.message.content);
  assert.ok(Number.isInteger(v.id) && ["a", "b"].includes(v.kind), so.message.content);
}
results.structured = so.done_reason;

const emb = await ollama.embed({ model, input: ["the cat", "a mat"] });
assert.equal(emb.embeddings.length, 2);
results.embed_dims = emb.embeddings[0].length;

if (process.env.SAJI_TOOLS_MODEL) {
  const r = await ollama.chat({ model: process.env.SAJI_TOOLS_MODEL, messages: [{ role: "user", content: "weather?" }],
    tools: [{ type: "function", function: { name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } } }],
    options: { num_predict: 8 } });
  assert.ok(r.done);
  results.tools = (r.message.tool_calls ?? []).length;
}

await assert.rejects(ollama.chat({ model: "no-such-model", messages: [{ role: "user", content: "hi" }] }));
console.log(JSON.stringify(results));
