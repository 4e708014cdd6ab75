// Drives Saji's OpenAI dialect with the Vercel AI SDK (ai) and its
// @ai-sdk/openai-compatible provider, as apps built on it do, one check
// per point of the API. Run by TestRealClients; checks.mjs says how to
// select checks.
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import { embedMany, generateText, Output, streamText, tool } from "ai";
import { z } from "zod";
import { assert, check, run, env, script } from "./checks.mjs";
import { person, personSchema } from "./schemas.mjs";

const saji = createOpenAICompatible({
  name: "saji", baseURL: env.url + "/v1", apiKey: env.key, includeUsage: true, supportsStructuredOutputs: true,
});
const prompt = "hi";
const tools = {
  get_weather: tool({ description: "Weather of a city", inputSchema: z.object({ city: z.string() }) }),
  get_time: tool({ description: "Time in a time zone", inputSchema: z.object({ zone: z.enum(["UTC", "CET"]) }) }),
};

// --- what main has

check("generateText", "main", async () => {
  const r = await generateText({ model: saji(env.plain), prompt, temperature: 0, maxRetries: 0 });
  assert.equal(r.text, script.plain);
  assert.equal(r.finishReason, "stop");
  assert.equal(r.usage.outputTokens, 3);
});

check("streamText", "main", async () => {
  const r = streamText({ model: saji(env.plain), prompt, maxRetries: 0 });
  let text = "";
  for await (const t of r.textStream) text += t;
  assert.equal(text, script.plain);
  assert.equal(await r.finishReason, "stop");
  assert.equal((await r.usage).outputTokens, 3);
});

check("embed", "main", async () => {
  const r = await embedMany({ model: saji.embeddingModel(env.tiny), values: ["the cat", "a mat"], maxRetries: 0 });
  assert.equal(r.embeddings.length, 2);
  return r.embeddings[0].length;
});

check("tools", "main", async () => {
  const r = await generateText({ model: saji(env.hermes), prompt, tools, maxRetries: 0 });
  assert.equal(r.finishReason, "tool-calls");
  assert.equal(r.toolCalls.length, 1);
  assert.equal(r.toolCalls[0].toolName, "get_weather");
  assert.deepEqual(r.toolCalls[0].input, { city: script.city });
  const s = streamText({ model: saji(env.hermes), prompt, tools, maxRetries: 0 });
  const calls = await s.toolCalls;
  assert.equal(calls[0]?.toolName, "get_weather");
  assert.deepEqual(calls[0].input, { city: script.city });
});

check("errors", "main", async () => {
  await assert.rejects(generateText({ model: saji("no-such-model"), prompt, maxRetries: 0 }),
    (e) => e.statusCode === 404 && /no-such-model/.test(e.message));
});

// --- #20 points 2 to 4

check("object", "schema", async () => {
  // generateText with an object output (generateObject is deprecated);
  // supportsStructuredOutputs: the schema goes as response_format json_schema.
  const r = await generateText({ model: saji(env.json), output: Output.object({ schema: personSchema }), prompt, maxRetries: 0 });
  assert.deepEqual(r.output, person);
});

check("tools.required", "tools", async () => {
  const r = await generateText({ model: saji(env.plain), prompt, tools, toolChoice: "required", maxRetries: 0, maxOutputTokens: 400 });
  assert.ok(r.toolCalls.length >= 1, r.text);
});

check("tools.named", "tools", async () => {
  const r = await generateText({ model: saji(env.hermes), prompt, tools, toolChoice: { type: "tool", toolName: "get_time" },
    maxRetries: 0, maxOutputTokens: 60 });
  assert.equal(r.toolCalls[0]?.toolName, "get_time", r.text);
  assert.ok(["UTC", "CET"].includes(r.toolCalls[0].input.zone));
});

check("reasoning", "reason", async () => {
  const r = await generateText({ model: saji(env.think), prompt, maxRetries: 0 });
  assert.equal(r.reasoningText?.trim(), script.reasoning, JSON.stringify(r.content));
  assert.equal(r.text.trim(), script.answer);
  const s = streamText({ model: saji(env.think), prompt, maxRetries: 0 });
  let reasoning = "", text = "";
  for await (const part of s.fullStream) {
    if (part.type === "reasoning-delta") reasoning += part.text;
    if (part.type === "text-delta") text += part.text;
  }
  assert.equal(reasoning.trim(), script.reasoning);
  assert.equal(text.trim(), script.answer);
});

await run("aisdk");
