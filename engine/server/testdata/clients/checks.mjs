// The check runner the client scripts share. A script registers named
// checks, one per point of the API it drives, and run() runs them in
// order, each to the end: a failure names its check and the run goes on.
//
// SAJI_CLIENT_CHECKS=a,b runs only the checks named a or b, or whose name
// starts with "a." or "b." (so "tools" selects "tools.required" and
// "tools.named"); SAJI_CLIENT_SKIP=c,d leaves those out. The last line is
// "SCRIPT: N passed, N failed, N skipped"; the exit status is 1 when a
// check failed. (TestRealClients fails when no script ran any check.)
import assert from "node:assert/strict";

const list = (v) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const only = list(process.env.SAJI_CLIENT_CHECKS);
const skip = list(process.env.SAJI_CLIENT_SKIP);
const matches = (name, names) => names.some((n) => name === n || name.startsWith(n + "."));

/** The environment TestRealClients gives a script: the server and the fixture models. */
export const env = {
  url: process.env.SAJI_URL,
  key: process.env.SAJI_KEY || "none",
  // A random model with a small context (128 tokens).
  tiny: process.env.SAJI_MODEL || "tiny",
  // Scripted models (engine/synth): each writes one reply, whatever the prompt.
  plain: process.env.SAJI_PLAIN_MODEL || "plain", // "Hello! How can I help?" (Qwen 2.5's template)
  think: process.env.SAJI_THINK_MODEL || "think", // <think>…</think> then an answer (Qwen3's)
  hermes: process.env.SAJI_HERMES_MODEL || "hermes", // a get_weather call in <tool_call> (Qwen 2.5's)
  coder: process.env.SAJI_CODER_MODEL || "coder", // reasoning, then a get_weather call in Qwen3-Coder's XML (Qwen 3.5's)
  json: process.env.SAJI_JSON_MODEL || "json", // schemas.mjs's PERSON_JSON (Qwen 2.5's)
  gptoss: process.env.SAJI_GPTOSS_MODEL || "gptoss", // harmony: analysis, then a get_weather call (gpt-oss's)
  fim: process.env.SAJI_FIM_MODEL || "fim", // "return a + b", with fill-in-the-middle tokens
  parallel: "parallel", // two get_weather calls, Paris and Lyon, in <tool_call> (Qwen 2.5's)
  // A get_weather call in each family's own format, with its template.
  formats: ["deepseek-r1", "deepseek-v3.1", "granite", "command-r7b", "functionary"],
  generic: "generic", // {"tool_calls":[{"name":"get_weather",…}]} (a ChatML template without tool syntax)
};

/** What the scripted models write (engine/server/clients_test.go writes them). */
export const script = {
  plain: "Hello! How can I help?",
  reasoning: "The user greets me.",
  answer: "Hello!",
  toolReasoning: "I should check the weather.", // the coder's and gptoss's
  city: "Paris",
  middle: "return a + b",
};

/** weatherTool is the tool the tool-calling models call, as OpenAI's chat API takes it. */
export const weatherTool = {
  type: "function",
  function: {
    name: "get_weather",
    description: "Weather of a city",
    parameters: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
  },
};

/** timeTool is a second tool, for the named tool_choice: the models never call it unless forced. */
export const timeTool = {
  type: "function",
  function: {
    name: "get_time",
    description: "Time in a time zone",
    parameters: { type: "object", properties: { zone: { type: "string", enum: ["UTC", "CET"] } }, required: ["zone"] },
  },
};

const registered = [];

/** check registers a check called name. */
export function check(name, fn) {
  registered.push({ name, fn });
}

/** run runs the selected checks and exits. */
export async function run(scriptName) {
  let passed = 0, failed = 0, skipped = 0;
  const results = {};
  for (const { name, fn } of registered) {
    if ((only.length && !matches(name, only)) || matches(name, skip)) {
      skipped++;
      continue;
    }
    const t0 = Date.now();
    try {
      const r = await fn();
      passed++;
      results[name] = r ?? "ok";
      console.log(`ok   ${scriptName} ${name} (${Date.now() - t0} ms)`);
    } catch (e) {
      failed++;
      console.log(`FAIL ${scriptName} ${name}: ${e?.message ?? e}${where(e)}`);
    }
  }
  console.log(JSON.stringify(results));
  console.log(`${scriptName}: ${passed} passed, ${failed} failed, ${skipped} skipped`);
  process.exit(failed > 0 ? 1 : 0);
}

// where returns " (at FILE:LINE)" for the line of a check that threw e.
function where(e) {
  const line = String(e?.stack ?? "").split("\n").find((l) => /\.mjs:\d+/.test(l) && !/node_modules|checks\.mjs/.test(l));
  const m = line?.match(/([a-z]+\.mjs:\d+)/);
  return m ? ` (at ${m[1]})` : "";
}

/** rawPost posts body as JSON to path on the server and returns the response. */
export async function rawPost(path, body, headers = {}) {
  return fetch(env.url + path, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${env.key}`, ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

/** errorShape checks an OpenAI-dialect error body. */
export function assertOpenAIError(body, status, res) {
  assert.equal(res.status, status, JSON.stringify(body));
  assert.equal(typeof body.error?.message, "string", JSON.stringify(body));
  assert.equal(typeof body.error?.type, "string", JSON.stringify(body));
  assert.ok("param" in body.error && "code" in body.error, JSON.stringify(body));
}

export { assert };
