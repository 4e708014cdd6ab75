// The check runner the client scripts share. A script registers named
// checks, one per point of the API it drives, each with the features it
// needs, and run() runs them in order, each to the end: a failure names
// its check and the run goes on.
//
// A feature is the branch of issue #20 that brings it: @main (what Saji
// had before), @apifix, @schema, @tools, @reason, @agents, @llamasrv;
// @vision is issue #25's pictures.
// SAJI_CLIENT_CHECKS and SAJI_CLIENT_SKIP are comma-separated lists of
// selectors: a feature (@schema), a check's name (tools.named; a name
// also selects the checks under it: tools selects tools.named), or a
// script's check (openai:tools.named). SAJI_CLIENT_CHECKS runs the checks
// a name selects, and those whose features are all listed (@main is
// implied: @schema runs what main and the schema branch can pass);
// SAJI_CLIENT_SKIP leaves out the checks a name selects and those that
// need a listed feature. A check may also skip itself, throwing Skip (a
// fixture it needs is not served). The last line is "SCRIPT: N passed,
// N failed, N skipped"; the exit status is 1 when a check failed.
// (TestRealClients fails when no script ran any check.)
import assert from "node:assert/strict";

const list = (v) => (v ?? "").split(",").map((s) => s.trim()).filter(Boolean);
const only = list(process.env.SAJI_CLIENT_CHECKS);
const skip = list(process.env.SAJI_CLIENT_SKIP);

// named reports whether one of selectors names the check called name of
// script.
function named(selectors, script, name) {
  return selectors.some((sel) => {
    if (sel.startsWith("@")) return false;
    const [sc, n] = sel.includes(":") ? sel.split(":", 2) : [script, sel];
    return sc === script && (name === n || name.startsWith(n + "."));
  });
}

// features returns the features (without "@") that selectors list.
const features = (selectors) => selectors.filter((s) => s.startsWith("@")).map((s) => s.slice(1));

// selected reports whether the check runs.
function selected(script, { name, needs }) {
  if (named(skip, script, name) || needs.some((f) => features(skip).includes(f))) return false;
  if (only.length === 0 || named(only, script, name)) return true;
  const want = features(only);
  return want.length > 0 && needs.every((f) => f === "main" || want.includes(f));
}

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
  // A scripted model with a vision projector, writing script.plain: the
  // @vision checks that need one skip themselves until it is served.
  vision: process.env.SAJI_VISION_MODEL || "vision",
};

/** PICTURE is a 2×2 PNG picture (red, green, blue, white), base64. */
export const PICTURE = "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAG0lEQVR4nGL6z8DA8J+BhZHh/38GBkAAAAD//x0vBATwkV0VAAAAAElFTkSuQmCC";

/** BLIND is what the runner says of a picture sent to a model that cannot see. */
export const BLIND = "cannot see images";

/** Skip, thrown by a check, skips it: what it needs is not served. */
export class Skip extends Error {}

/** needVision skips the check unless env.vision is served and can see. */
export async function needVision() {
  const res = await rawPost("/api/show", { model: env.vision });
  const caps = res.ok ? (await res.json()).capabilities ?? [] : [];
  if (!caps.includes("vision")) throw new Skip(`no vision fixture model (${env.vision}) is served`);
}

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

/** check registers a check called name, which needs the features in needs (space-separated, without "@"). */
export function check(name, needs, fn) {
  registered.push({ name, needs: needs.split(" "), fn });
}

/** run runs the selected checks and exits. */
export async function run(scriptName) {
  let passed = 0, failed = 0, skipped = 0;
  const results = {};
  for (const c of registered) {
    const { name, fn } = c;
    if (!selected(scriptName, c)) {
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
      if (e instanceof Skip) {
        skipped++;
        console.log(`skip ${scriptName} ${name}: ${e.message}`);
        continue;
      }
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
