// Drives Saji's Anthropic dialect (/v1/messages), which Claude Code and
// other agents speak, with the official @anthropic-ai/sdk, one check per
// point of the API. Run by TestRealClients; checks.mjs says how to select
// checks.
import Anthropic from "@anthropic-ai/sdk";
import { assert, check, run, env, script, rawPost, PICTURE, BLIND, needVision } from "./checks.mjs";

const client = new Anthropic({ baseURL: env.url, apiKey: env.key, maxRetries: 0 });
const hi = [{ role: "user", content: "hi" }];
const weather = { name: "get_weather", description: "Weather of a city",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] } };
const time = { name: "get_time", description: "Time in a time zone",
  input_schema: { type: "object", properties: { zone: { type: "string", enum: ["UTC", "CET"] } }, required: ["zone"] } };

// text joins a message's text blocks.
const text = (m) => m.content.filter((b) => b.type === "text").map((b) => b.text).join("");
// prompt is a message's prompt tokens: input_tokens counts those the
// prompt cache did not hold, as Anthropic's usage does.
const prompt = (m) => m.usage.input_tokens + (m.usage.cache_read_input_tokens ?? 0) + (m.usage.cache_creation_input_tokens ?? 0);

// All of these are #20 point 5 (Anthropic POST /v1/messages).

check("messages", "agents", async () => {
  const m = await client.messages.create({ model: env.plain, max_tokens: 64, messages: hi });
  assert.equal(m.type, "message");
  assert.equal(m.role, "assistant");
  assert.ok(m.id.startsWith("msg_"), m.id);
  assert.equal(m.model, env.plain);
  assert.equal(text(m), script.plain);
  assert.equal(m.stop_reason, "end_turn");
  assert.equal(m.usage.output_tokens, 3);
  assert.ok(m.usage.input_tokens > 0);
});

check("messages.system", "agents", async () => {
  const a = await client.messages.create({ model: env.plain, max_tokens: 64, messages: hi, system: "Be brief." });
  assert.equal(text(a), script.plain);
  const b = await client.messages.create({ model: env.plain, max_tokens: 64, messages: hi,
    system: [{ type: "text", text: "Be brief.", cache_control: { type: "ephemeral" } }] });
  assert.equal(prompt(b), prompt(a));
  // Content as blocks, as agents send it.
  const c = await client.messages.create({ model: env.plain, max_tokens: 64, system: "Be brief.",
    messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }] });
  assert.equal(prompt(c), prompt(a));
});

check("messages.max_tokens", "agents", async () => {
  const m = await client.messages.create({ model: env.plain, max_tokens: 2, messages: hi });
  assert.equal(m.stop_reason, "max_tokens");
  assert.equal(text(m), "Hello! How");
  assert.equal(m.usage.output_tokens, 2);
});

check("messages.stop_sequences", "agents", async () => {
  const m = await client.messages.create({ model: env.plain, max_tokens: 64, messages: hi, stop_sequences: ["How"] });
  assert.equal(m.stop_reason, "stop_sequence");
  assert.equal(m.stop_sequence, "How");
  assert.equal(text(m), "Hello! ");
});

check("messages.stream", "agents", async () => {
  const stream = client.messages.stream({ model: env.plain, max_tokens: 64, messages: hi });
  const types = [];
  let deltas = "";
  stream.on("streamEvent", (ev) => {
    types.push(ev.type);
    if (ev.type === "content_block_delta" && ev.delta.type === "text_delta") deltas += ev.delta.text;
  });
  const m = await stream.finalMessage();
  assert.equal(deltas, script.plain);
  assert.equal(text(m), script.plain);
  assert.equal(m.stop_reason, "end_turn");
  assert.equal(types[0], "message_start");
  assert.equal(types.at(-1), "message_stop");
  for (const t of ["content_block_start", "content_block_delta", "content_block_stop", "message_delta"]) {
    assert.ok(types.includes(t), `no ${t}: ${types}`);
  }
});

check("tools", "agents", async () => {
  const m = await client.messages.create({ model: env.hermes, max_tokens: 64, messages: hi, tools: [weather, time] });
  assert.equal(m.stop_reason, "tool_use");
  const use = m.content.find((b) => b.type === "tool_use");
  assert.ok(use, JSON.stringify(m.content));
  assert.ok(use.id.startsWith("toolu_"), use.id);
  assert.equal(use.name, "get_weather");
  assert.deepEqual(use.input, { city: script.city });
  // Streamed, the input comes as input_json_delta events.
  const s = await client.messages.stream({ model: env.hermes, max_tokens: 64, messages: hi, tools: [weather] }).finalMessage();
  assert.deepEqual(s.content.find((b) => b.type === "tool_use")?.input, { city: script.city });
  // The result goes back as a tool_result block.
  const next = await client.messages.create({ model: env.plain, max_tokens: 64, tools: [weather], messages: [...hi,
    { role: "assistant", content: m.content },
    { role: "user", content: [{ type: "tool_result", tool_use_id: use.id, content: "sunny" }] }] });
  assert.equal(text(next), script.plain);
});

check("tools.choice", "agents tools", async () => {
  const named = await client.messages.create({ model: env.hermes, max_tokens: 400, messages: hi, tools: [weather, time],
    tool_choice: { type: "tool", name: "get_time" } });
  const use = named.content.find((b) => b.type === "tool_use");
  assert.equal(use?.name, "get_time", JSON.stringify(named.content));
  assert.ok(["UTC", "CET"].includes(use.input.zone));
  const any = await client.messages.create({ model: env.plain, max_tokens: 400, messages: hi, tools: [weather], tool_choice: { type: "any" } });
  assert.ok(any.content.some((b) => b.type === "tool_use"), JSON.stringify(any.content));
});

check("thinking", "agents reason", async () => {
  const m = await client.messages.create({ model: env.think, max_tokens: 256, messages: hi, thinking: { type: "enabled", budget_tokens: 128 } });
  assert.equal(m.content[0].type, "thinking", JSON.stringify(m.content));
  assert.equal(m.content[0].thinking.trim(), script.reasoning);
  assert.equal(text(m).trim(), script.answer);
  const s = client.messages.stream({ model: env.think, max_tokens: 256, messages: hi, thinking: { type: "enabled", budget_tokens: 128 } });
  let thinking = "";
  s.on("thinking", (delta) => { thinking += delta; });
  await s.finalMessage();
  assert.equal(thinking.trim(), script.reasoning);
});

check("count_tokens", "agents", async () => {
  const req = { model: env.plain, messages: hi, system: "Be brief." };
  const n = await client.messages.countTokens(req);
  const m = await client.messages.create({ ...req, max_tokens: 8 });
  assert.equal(n.input_tokens, prompt(m));
  const t = await client.messages.countTokens({ ...req, tools: [weather] });
  assert.ok(t.input_tokens > n.input_tokens);
});

check("errors", "agents", async () => {
  await assert.rejects(client.messages.create({ model: "no-such-model", max_tokens: 8, messages: hi }),
    (e) => e instanceof Anthropic.NotFoundError && e.error?.type === "error" && e.error.error?.type === "not_found_error");
  await assert.rejects(client.messages.create({ model: env.plain, messages: hi }),
    (e) => e instanceof Anthropic.BadRequestError && e.error?.error?.type === "invalid_request_error");
  const res = await rawPost("/v1/messages", "{not json", { "anthropic-version": "2023-06-01" });
  const body = await res.json();
  assert.equal(res.status, 400);
  assert.equal(body.type, "error");
  assert.equal(body.error.type, "invalid_request_error");
  assert.equal(typeof body.error.message, "string");
});

// --- #25: pictures (image blocks, base64)

const look = [{ role: "user", content: [
  { type: "image", source: { type: "base64", media_type: "image/png", data: PICTURE } },
  { type: "text", text: "What is in this picture?" },
] }];

check("vision.refused", "vision", async () => {
  await assert.rejects(client.messages.create({ model: env.plain, max_tokens: 20, messages: look }),
    (e) => e instanceof Anthropic.BadRequestError && e.error?.error?.message?.includes(BLIND));
});

check("vision.messages", "vision", async () => {
  await needVision();
  // A tiny model with random weights: a reply, whatever its words.
  const r = await client.messages.create({ model: env.vision, max_tokens: 8, temperature: 0, messages: look });
  assert.ok(r.usage.output_tokens > 0, "a reply");
});

await run("anthropic");
