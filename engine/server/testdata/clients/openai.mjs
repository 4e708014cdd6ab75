// Drives Saji's OpenAI dialect (/v1) with the official openai client, one
// check per point of the API. Run by TestRealClients; checks.mjs says how
// to select checks.
import OpenAI from "openai";
import { zodResponseFormat } from "openai/helpers/zod";
import {
  assert, check, run, env, script, rawPost, assertOpenAIError, weatherTool, timeTool, PICTURE, BLIND, needVision,
} from "./checks.mjs";
import { personSchema, pydanticPerson, person, PERSON_JSON } from "./schemas.mjs";

const client = new OpenAI({ baseURL: env.url + "/v1", apiKey: env.key, maxRetries: 0 });
const hi = [{ role: "user", content: "hi" }];

// chat reads a whole streamed chat completion: its content, reasoning,
// tool calls (by index), finish reason and usage.
async function streamChat(params) {
  const stream = await client.chat.completions.create({ ...params, stream: true, stream_options: { include_usage: true } });
  const out = { content: "", reasoning: "", calls: [], finish: null, usage: null };
  for await (const chunk of stream) {
    if (chunk.usage) out.usage = chunk.usage;
    for (const c of chunk.choices) {
      out.content += c.delta.content ?? "";
      out.reasoning += c.delta.reasoning_content ?? "";
      for (const tc of c.delta.tool_calls ?? []) {
        const call = (out.calls[tc.index] ??= { id: "", name: "", arguments: "" });
        call.id ||= tc.id ?? "";
        call.name += tc.function?.name ?? "";
        call.arguments += tc.function?.arguments ?? "";
      }
      if (c.finish_reason) out.finish = c.finish_reason;
    }
  }
  return out;
}

// --- what main has had since the API's first version

check("models", "main", async () => {
  const ids = [];
  for await (const m of client.models.list()) ids.push(m.id);
  for (const m of [env.tiny, env.plain, env.think, env.hermes]) assert.ok(ids.includes(m), `models: ${ids}`);
  const one = await client.models.retrieve(env.tiny);
  assert.equal(one.id, env.tiny);
  return ids.length;
});

check("chat", "main", async () => {
  const r = await client.chat.completions.create({ model: env.plain, messages: hi, temperature: 0, logprobs: true, top_logprobs: 2 });
  assert.equal(r.object, "chat.completion");
  assert.equal(r.choices[0].message.role, "assistant");
  assert.equal(r.choices[0].message.content, script.plain);
  assert.equal(r.choices[0].finish_reason, "stop");
  assert.equal(r.usage.completion_tokens, 3);
  assert.ok(r.usage.prompt_tokens > 0);
  assert.equal(r.choices[0].logprobs.content.length, 3);
});

check("chat.stream", "main", async () => {
  const whole = await client.chat.completions.create({ model: env.tiny, messages: hi, max_tokens: 6, temperature: 0 });
  const s = await streamChat({ model: env.tiny, messages: hi, max_tokens: 6, temperature: 0 });
  assert.equal(s.content, whole.choices[0].message.content, "streamed and whole text differ");
  assert.equal(s.finish, whole.choices[0].finish_reason);
  assert.equal(s.usage.completion_tokens, whole.usage.completion_tokens);
  const p = await streamChat({ model: env.plain, messages: hi });
  assert.equal(p.content, script.plain);
  assert.equal(p.finish, "stop");
});

// Copilot's Ollama provider sends the names /api/tags lists (NAME:latest)
// to /v1/chat/completions.
check("chat.latest", "main", async () => {
  const r = await client.chat.completions.create({ model: env.plain + ":latest", messages: hi });
  assert.equal(r.choices[0].message.content, script.plain);
});

check("completions", "main", async () => {
  const r = await client.completions.create({ model: env.tiny, prompt: "the cat sat", max_tokens: 4, temperature: 0 });
  assert.equal(r.object, "text_completion");
  assert.equal(r.choices.length, 1);
});

check("completions.suffix", "main", async () => {
  // Fill-in-the-middle, as editors' autocomplete asks for it.
  const r = await client.completions.create({ model: env.fim, prompt: "def add(a, b):\n    ", suffix: "\n\nprint(add(1, 2))\n", max_tokens: 16 });
  assert.equal(r.choices[0].text, script.middle);
  await assert.rejects(client.completions.create({ model: env.plain, prompt: "def add(a, b):", suffix: "\n" }),
    (e) => e instanceof OpenAI.BadRequestError);
});

check("embeddings", "main", async () => {
  const r = await client.embeddings.create({ model: env.tiny, input: ["the cat", "a mat"] });
  assert.equal(r.data.length, 2);
  const norm = Math.hypot(...r.data[0].embedding);
  assert.ok(Math.abs(norm - 1) < 1e-4, `norm ${norm}`);
  return r.data[0].embedding.length;
});

check("schema.subset", "main", async () => {
  const schema = { type: "object", properties: { name: { type: "string" }, age: { type: "integer" } }, required: ["name", "age"] };
  const r = await client.chat.completions.create({
    model: env.json, messages: hi, max_tokens: 40,
    response_format: { type: "json_schema", json_schema: { name: "p", schema } },
  });
  const v = JSON.parse(r.choices[0].message.content);
  assert.equal(typeof v.name, "string");
  assert.ok(Number.isInteger(v.age));
});

check("tools.auto", "main", async () => {
  const r = await client.chat.completions.create({ model: env.hermes, messages: hi, tools: [weatherTool, timeTool] });
  assert.equal(r.choices[0].finish_reason, "tool_calls");
  const calls = r.choices[0].message.tool_calls;
  assert.equal(calls.length, 1);
  assert.equal(calls[0].function.name, "get_weather");
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { city: script.city });
  const s = await streamChat({ model: env.hermes, messages: hi, tools: [weatherTool] });
  assert.equal(s.finish, "tool_calls");
  assert.equal(s.calls.length, 1);
  assert.equal(s.calls[0].name, "get_weather");
  assert.ok(s.calls[0].id);
  assert.deepEqual(JSON.parse(s.calls[0].arguments), { city: script.city });
  // The call and its result go back through the template.
  const messages = [...hi, r.choices[0].message, { role: "tool", tool_call_id: calls[0].id, content: "sunny" }];
  const next = await client.chat.completions.create({ model: env.plain, messages, tools: [weatherTool] });
  assert.equal(next.choices[0].message.content, script.plain);
});

check("tools.harmony", "tools reason", async () => {
  // gpt-oss: the analysis channel is reasoning, a commentary to functions.X a call.
  const r = await client.chat.completions.create({ model: env.gptoss, messages: hi, tools: [weatherTool], reasoning_effort: "low" });
  const m = r.choices[0].message;
  assert.equal(r.choices[0].finish_reason, "tool_calls", JSON.stringify(m));
  assert.equal(m.tool_calls[0].function.name, "get_weather");
  assert.deepEqual(JSON.parse(m.tool_calls[0].function.arguments), { city: script.city });
  assert.equal(m.reasoning_content, script.toolReasoning);
  assert.ok(!m.content, JSON.stringify(m));
  const s = await streamChat({ model: env.gptoss, messages: hi, tools: [weatherTool] });
  assert.equal(s.reasoning, script.toolReasoning);
  assert.equal(s.calls[0]?.name, "get_weather");
  assert.deepEqual(JSON.parse(s.calls[0].arguments), { city: script.city });
});

// Concurrent requests to several models each get their own reply, the
// same as alone: nothing leaks between sequences of one batch. (The
// scripted models' margins make their replies independent of how a batch
// sums; the random tiny model's greedy ties could flip.)
check("isolation", "main", async () => {
  const reqs = [
    { model: env.plain, messages: hi },
    { model: env.hermes, messages: hi, tools: [weatherTool] },
    { model: env.json, messages: hi },
    { model: env.think, messages: hi },
    { model: env.plain, messages: [{ role: "user", content: "the cat sat" }], max_tokens: 2 },
  ];
  const key = (r) => JSON.stringify([r.choices[0].message.content, r.choices[0].message.tool_calls?.map((c) => c.function)]);
  const alone = [];
  for (const q of reqs) alone.push(key(await client.chat.completions.create(q)));
  const together = await Promise.all([...reqs, ...reqs, ...reqs].map((q) => client.chat.completions.create(q)));
  together.forEach((r, i) => assert.equal(key(r), alone[i % reqs.length], `request ${i}`));
});

check("errors", "main", async () => {
  await assert.rejects(client.chat.completions.create({ model: "no-such-model", messages: hi }),
    (e) => e instanceof OpenAI.NotFoundError && typeof e.error?.message === "string");
  await assert.rejects(client.chat.completions.create({ model: env.tiny, messages: hi, n: 2 }),
    (e) => e instanceof OpenAI.BadRequestError);
  await assert.rejects(client.chat.completions.create({ model: env.tiny, messages: hi, temperature: 7 }),
    (e) => e instanceof OpenAI.BadRequestError);
  const res = await rawPost("/v1/chat/completions", "{not json");
  assertOpenAIError(await res.json(), 400, res);
});

check("abort", "main", async () => {
  const ctl = new AbortController();
  const long = await client.chat.completions.create({ model: env.tiny, messages: hi, stream: true }, { signal: ctl.signal });
  let n = 0;
  try {
    for await (const _ of long) if (++n === 3) ctl.abort();
  } catch (e) {
    assert.ok(e.name === "AbortError" || e instanceof OpenAI.APIUserAbortError, String(e));
  }
  // Nothing of the aborted stream leaks into the next request.
  const r = await client.chat.completions.create({ model: env.plain, messages: hi });
  assert.equal(r.choices[0].message.content, script.plain);
  return n;
});

// --- #20 point 1: context overflow (the tiny model's context is 128 tokens)

check("overflow.length", "apifix", async () => {
  // Continue sends max_tokens 4096 whatever the context.
  const r = await client.chat.completions.create({ model: env.tiny, messages: hi, max_tokens: 4096, temperature: 0, ignore_eos: true });
  assert.equal(r.choices[0].finish_reason, "length");
  assert.ok(r.usage.prompt_tokens + r.usage.completion_tokens <= 128, JSON.stringify(r.usage));
  const s = await streamChat({ model: env.tiny, messages: hi, max_tokens: 4096, temperature: 0, ignore_eos: true });
  assert.equal(s.finish, "length");
});

check("overflow.prompt", "main", async () => {
  const long = "the cat sat on the mat ".repeat(100);
  await assert.rejects(client.chat.completions.create({ model: env.tiny, messages: [{ role: "user", content: long }] }),
    (e) => e instanceof OpenAI.BadRequestError && /context/i.test(e.message) && /\d/.test(e.message));
});

// --- #20 point 2: JSON Schema as zod and Pydantic write it, and GBNF

check("schema.zod", "schema", async () => {
  const r = await client.chat.completions.parse({ model: env.json, messages: hi, max_tokens: 60,
    response_format: zodResponseFormat(personSchema, "person") });
  assert.deepEqual(r.choices[0].message.parsed, person);
});

check("schema.pydantic", "schema", async () => {
  const r = await client.chat.completions.create({ model: env.json, messages: hi, max_tokens: 60,
    response_format: { type: "json_schema", json_schema: { name: "Person", schema: pydanticPerson, strict: true } } });
  assert.equal(r.choices[0].message.content, PERSON_JSON);
});

check("schema.unsupported", "schema", async () => {
  // Keywords the recogniser does not know are ignored, not refused.
  const schema = { type: "object", properties: { name: { type: "string", contentMediaType: "text/plain", "x-vendor": 1 } },
    required: ["name"], dependentRequired: { name: [] } };
  const r = await client.chat.completions.create({ model: env.json, messages: hi, max_tokens: 40,
    response_format: { type: "json_schema", json_schema: { name: "p", schema } } });
  assert.equal(typeof JSON.parse(r.choices[0].message.content).name, "string");
});

check("schema.grammar", "schema", async () => {
  const r = await client.chat.completions.create({ model: env.plain, messages: hi, max_tokens: 8,
    grammar: 'root ::= "yes" | "no"' });
  assert.ok(["yes", "no"].includes(r.choices[0].message.content), r.choices[0].message.content);
});

// --- #20 point 3: tool calls enforced, and every template's format

check("tools.required", "tools", async () => {
  // The plain model never calls a tool by itself.
  const r = await client.chat.completions.create({ model: env.plain, messages: hi, tools: [weatherTool], tool_choice: "required", max_tokens: 400 });
  const calls = r.choices[0].message.tool_calls ?? [];
  assert.ok(calls.length >= 1, JSON.stringify(r.choices[0].message));
  assert.equal(calls[0].function.name, "get_weather");
  assert.equal(typeof JSON.parse(calls[0].function.arguments).city, "string");
});

check("tools.named", "tools", async () => {
  // The hermes model would call get_weather.
  const r = await client.chat.completions.create({ model: env.hermes, messages: hi, tools: [weatherTool, timeTool],
    tool_choice: { type: "function", function: { name: "get_time" } }, max_tokens: 60 });
  const calls = r.choices[0].message.tool_calls ?? [];
  assert.equal(calls.length, 1, JSON.stringify(r.choices[0].message));
  assert.equal(calls[0].function.name, "get_time");
  assert.ok(["UTC", "CET"].includes(JSON.parse(calls[0].function.arguments).zone));
});

check("tools.none", "main", async () => {
  const r = await client.chat.completions.create({ model: env.plain, messages: hi, tools: [weatherTool], tool_choice: "none" });
  assert.equal(r.choices[0].message.content, script.plain);
  assert.ok(!r.choices[0].message.tool_calls?.length);
});

check("tools.xml", "tools reason", async () => {
  // Qwen3-Coder's <function=…><parameter=…>, after a reasoning block.
  const r = await client.chat.completions.create({ model: env.coder, messages: hi, tools: [weatherTool] });
  assert.equal(r.choices[0].finish_reason, "tool_calls");
  assert.equal(r.choices[0].message.reasoning_content?.trim(), script.toolReasoning);
  const calls = r.choices[0].message.tool_calls;
  assert.equal(calls?.length, 1, JSON.stringify(r.choices[0].message));
  assert.equal(calls[0].function.name, "get_weather");
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { city: script.city });
  const s = await streamChat({ model: env.coder, messages: hi, tools: [weatherTool] });
  assert.equal(s.calls[0]?.name, "get_weather");
  assert.deepEqual(JSON.parse(s.calls[0].arguments), { city: script.city });
});

check("tools.parallel", "main", async () => {
  const r = await client.chat.completions.create({ model: env.parallel, messages: hi, tools: [weatherTool], parallel_tool_calls: true });
  const calls = r.choices[0].message.tool_calls ?? [];
  assert.deepEqual(calls.map((c) => JSON.parse(c.function.arguments).city), ["Paris", "Lyon"], JSON.stringify(r.choices[0].message));
  assert.notEqual(calls[0].id, calls[1].id);
  const s = await streamChat({ model: env.parallel, messages: hi, tools: [weatherTool] });
  assert.deepEqual(s.calls.map((c) => JSON.parse(c.arguments).city), ["Paris", "Lyon"]);
});

for (const model of env.formats) {
  // Granite 4's calls are Hermes's <tool_call>, which main parsed.
  check(`tools.format.${model}`, model === "granite" ? "main" : "tools", async () => {
    const r = await client.chat.completions.create({ model, messages: hi, tools: [weatherTool] });
    const calls = r.choices[0].message.tool_calls ?? [];
    assert.equal(calls.length, 1, JSON.stringify(r.choices[0].message));
    assert.equal(calls[0].function.name, "get_weather");
    assert.deepEqual(JSON.parse(calls[0].function.arguments), { city: script.city });
    assert.equal(r.choices[0].finish_reason, "tool_calls");
    const s = await streamChat({ model, messages: hi, tools: [weatherTool] });
    assert.equal(s.calls[0]?.name, "get_weather", JSON.stringify(s));
    assert.deepEqual(JSON.parse(s.calls[0].arguments), { city: script.city });
  });
}

check("tools.generic", "tools", async () => {
  // A template without tool-call syntax gets the tools in the system turn
  // and the generic JSON format, not a 400.
  const r = await client.chat.completions.create({ model: env.generic, messages: hi, tools: [weatherTool] });
  const calls = r.choices[0].message.tool_calls ?? [];
  assert.equal(calls[0]?.function.name, "get_weather", JSON.stringify(r.choices[0].message));
  assert.deepEqual(JSON.parse(calls[0].function.arguments), { city: script.city });
  assert.ok(!r.choices[0].message.content);
  const s = await streamChat({ model: env.generic, messages: hi, tools: [weatherTool], tool_choice: "required" });
  assert.equal(s.calls[0]?.name, "get_weather", JSON.stringify(s));
});

// --- #20 point 4: reasoning

check("reasoning.whole", "reason", async () => {
  const r = await client.chat.completions.create({ model: env.think, messages: hi });
  const m = r.choices[0].message;
  assert.equal(m.reasoning_content?.trim(), script.reasoning, JSON.stringify(m));
  assert.equal(m.content.trim(), script.answer);
});

check("reasoning.stream", "reason", async () => {
  const s = await streamChat({ model: env.think, messages: hi });
  assert.equal(s.reasoning.trim(), script.reasoning);
  assert.equal(s.content.trim(), script.answer);
  assert.equal(s.finish, "stop");
});

check("reasoning.fields", "reason", async () => {
  // reasoning_effort and chat_template_kwargs are accepted.
  for (const extra of [{ reasoning_effort: "low" }, { chat_template_kwargs: { enable_thinking: true } }]) {
    const r = await client.chat.completions.create({ model: env.think, messages: hi, ...extra });
    assert.equal(r.choices[0].message.content.trim(), script.answer);
  }
});

// --- #20 point 5: the surfaces clients call

check("stop.null", "apifix", async () => {
  const r = await client.chat.completions.create({ model: env.plain, messages: hi, stop: null });
  assert.equal(r.choices[0].message.content, script.plain);
});

check("completions.list", "apifix", async () => {
  const r = await client.completions.create({ model: env.tiny, prompt: ["the cat", "a mat"], max_tokens: 3, temperature: 0 });
  assert.deepEqual(r.choices.map((c) => c.index).sort(), [0, 1]);
});

check("completions.tokens", "apifix", async () => {
  const one = await client.completions.create({ model: env.tiny, prompt: [1, 261, 262], max_tokens: 3, temperature: 0 });
  assert.equal(one.choices.length, 1);
  const two = await client.completions.create({ model: env.tiny, prompt: [[1, 261], [1, 262]], max_tokens: 3, temperature: 0 });
  assert.equal(two.choices.length, 2);
});

check("completions.logprobs", "main", async () => {
  // The tiny model's vocabulary is SentencePiece's ("▁the" is " the").
  const r = await client.completions.create({ model: env.tiny, prompt: "the cat", max_tokens: 4, temperature: 0, logprobs: 5 });
  const lp = r.choices[0].logprobs;
  assert.equal(lp.tokens.length, 4);
  const texts = [...lp.tokens, ...lp.top_logprobs.flatMap((t) => Object.keys(t))];
  assert.ok(!texts.join("").includes("\u2581"), `SentencePiece markers: ${JSON.stringify(texts)}`);
  return texts.join("|");
});

check("responses.text", "agents", async () => {
  const r = await client.responses.create({ model: env.plain, input: "hi", instructions: "Be brief." });
  assert.equal(r.status, "completed");
  assert.equal(r.output_text, script.plain);
  assert.ok(r.usage.output_tokens > 0);
});

check("responses.stream", "agents", async () => {
  const stream = await client.responses.create({ model: env.plain, input: [{ role: "user", content: "hi" }], stream: true });
  let text = "", done = null;
  const types = new Set();
  for await (const ev of stream) {
    types.add(ev.type);
    if (ev.type === "response.output_text.delta") text += ev.delta;
    if (ev.type === "response.completed") done = ev.response;
  }
  assert.equal(text, script.plain);
  for (const t of ["response.created", "response.output_item.added", "response.output_text.done", "response.completed"]) {
    assert.ok(types.has(t), `no ${t} event: ${[...types]}`);
  }
  assert.equal(done.output_text ?? done.output[0].content[0].text, script.plain);
});

check("responses.tools", "agents", async () => {
  const tools = [{ type: "function", name: "get_weather", description: "Weather of a city", parameters: weatherTool.function.parameters }];
  const r = await client.responses.create({ model: env.hermes, input: "weather in Paris?", tools });
  const call = r.output.find((o) => o.type === "function_call");
  assert.ok(call, JSON.stringify(r.output));
  assert.equal(call.name, "get_weather");
  assert.deepEqual(JSON.parse(call.arguments), { city: script.city });
  // The call's output goes back as a function_call_output item.
  const next = await client.responses.create({ model: env.plain, tools,
    input: ["weather in Paris?", call, { type: "function_call_output", call_id: call.call_id, output: "sunny" }]
      .map((i) => (typeof i === "string" ? { role: "user", content: i } : i)) });
  assert.equal(next.output_text, script.plain);
});

check("responses.errors", "agents", async () => {
  await assert.rejects(client.responses.create({ model: "no-such-model", input: "hi" }),
    (e) => e instanceof OpenAI.NotFoundError && typeof e.error?.message === "string");
  const res = await rawPost("/v1/responses", "{not json");
  assertOpenAIError(await res.json(), 400, res);
});

check("responses.reasoning", "agents reason", async () => {
  const r = await client.responses.create({ model: env.think, input: "hi", reasoning: { effort: "low" } });
  const reasoning = r.output.find((o) => o.type === "reasoning");
  assert.ok(reasoning, JSON.stringify(r.output));
  const text = [...(reasoning.content ?? []), ...(reasoning.summary ?? [])].map((c) => c.text).join("");
  assert.equal(text.trim(), script.reasoning);
  assert.equal(r.output_text.trim(), script.answer);
});

// --- #25: pictures (image_url parts)

// look is a question about PICTURE, as a data: URI.
const look = [{ role: "user", content: [
  { type: "text", text: "What is in this picture?" },
  { type: "image_url", image_url: { url: `data:image/png;base64,${PICTURE}`, detail: "low" } },
] }];

check("vision.refused", "vision", async () => {
  // The picture reaches the runner, which refuses it to a model without a projector.
  for (const stream of [false, true]) {
    await assert.rejects(client.chat.completions.create({ model: env.plain, messages: look, stream }),
      (e) => e instanceof OpenAI.BadRequestError && e.error?.message?.includes(BLIND));
  }
  await assert.rejects(client.chat.completions.create({ model: env.plain, messages: [{ role: "user", content: [
    { type: "image_url", image_url: { url: "https://example.com/cat.png" } }] }] }),
  (e) => e instanceof OpenAI.BadRequestError && e.error?.message?.includes("--allow-image-urls"));
  await assert.rejects(client.chat.completions.create({ model: env.plain, messages: [{ role: "user", content: [
    { type: "image_url", image_url: { url: "data:image/png;base64,bm90IGFuIGltYWdl" } }] }] }),
  (e) => e instanceof OpenAI.BadRequestError && e.error?.message?.includes("not a JPEG, PNG, WebP or GIF"));
});

check("vision.chat", "vision", async () => {
  await needVision();
  // A tiny model with random weights: a reply, and the picture's tokens
  // are in its prompt.
  const r = await client.chat.completions.create({ model: env.vision, messages: look, temperature: 0, max_tokens: 8 });
  assert.equal(typeof r.choices[0].message.content, "string");
  assert.ok(r.usage.completion_tokens > 0, "a reply");
  const text = await client.chat.completions.create({ model: env.vision, messages: [{ role: "user", content: "What is in this picture?" }], temperature: 0, max_tokens: 1 });
  assert.ok(r.usage.prompt_tokens > text.usage.prompt_tokens, "the picture's tokens are in the prompt");
  // The same request again, streamed and from the prefix cache: the same
  // greedy reply.
  const s = await streamChat({ model: env.vision, messages: look, temperature: 0, max_tokens: 8 });
  assert.equal(s.content, r.choices[0].message.content);
});

await run("openai");
