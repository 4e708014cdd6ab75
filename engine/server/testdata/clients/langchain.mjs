// Drives Saji's OpenAI dialect with LangChain's ChatOpenAI
// (@langchain/openai), as LangChain agents do, one check per point of the
// API. Run by TestRealClients; checks.mjs says how to select checks.
import { ChatOpenAI } from "@langchain/openai";
import { tool } from "@langchain/core/tools";
import { z } from "zod";
import { assert, check, run, env, script } from "./checks.mjs";
import { person, personSchema } from "./schemas.mjs";

const chat = (model, extra = {}) => new ChatOpenAI({
  model, apiKey: env.key, configuration: { baseURL: env.url + "/v1" }, maxRetries: 0, temperature: 0, ...extra,
});
const getWeather = tool(async ({ city }) => `sunny in ${city}`,
  { name: "get_weather", description: "Weather of a city", schema: z.object({ city: z.string() }) });
const getTime = tool(async ({ zone }) => `noon ${zone}`,
  { name: "get_time", description: "Time in a time zone", schema: z.object({ zone: z.enum(["UTC", "CET"]) }) });

// --- what main has

check("invoke", "main", async () => {
  const r = await chat(env.plain).invoke("hi");
  assert.equal(r.content, script.plain);
  assert.equal(r.usage_metadata.output_tokens, 3);
  assert.equal(r.response_metadata.finish_reason, "stop");
});

check("stream", "main", async () => {
  let text = "";
  for await (const chunk of await chat(env.plain, { streamUsage: true }).stream("hi")) text += chunk.content;
  assert.equal(text, script.plain);
});

check("bindTools", "main", async () => {
  const r = await chat(env.hermes).bindTools([getWeather, getTime]).invoke("weather in Paris?");
  assert.equal(r.tool_calls.length, 1, JSON.stringify(r));
  assert.equal(r.tool_calls[0].name, "get_weather");
  assert.deepEqual(r.tool_calls[0].args, { city: script.city });
  // The tool runs and its message goes back through the template.
  const result = await getWeather.invoke(r.tool_calls[0]);
  const next = await chat(env.plain).bindTools([getWeather]).invoke([["user", "weather in Paris?"], r, result]);
  assert.equal(next.content, script.plain);
});

check("errors", "main", async () => {
  await assert.rejects(chat("no-such-model").invoke("hi"), (e) => e.status === 404 || /404/.test(e.message));
});

// --- #20 points 2 to 4

check("structured", "schema", async () => {
  const r = await chat(env.json).withStructuredOutput(personSchema, { method: "jsonSchema", name: "person" }).invoke("hi");
  assert.deepEqual(r, person);
});

check("tools.named", "tools", async () => {
  const r = await chat(env.hermes, { maxTokens: 400 }).bindTools([getWeather, getTime], { tool_choice: "get_time" }).invoke("hi");
  assert.equal(r.tool_calls[0]?.name, "get_time", JSON.stringify(r));
  assert.ok(["UTC", "CET"].includes(r.tool_calls[0].args.zone));
});

check("tools.required", "tools", async () => {
  const r = await chat(env.plain, { maxTokens: 400 }).bindTools([getWeather], { tool_choice: "required" }).invoke("hi");
  assert.ok(r.tool_calls.length >= 1, JSON.stringify(r));
});

check("reasoning", "reason", async () => {
  const r = await chat(env.think).invoke("hi");
  assert.equal(r.additional_kwargs.reasoning_content?.trim(), script.reasoning, JSON.stringify(r));
  assert.equal(String(r.content).trim(), script.answer);
});

await run("langchain");
