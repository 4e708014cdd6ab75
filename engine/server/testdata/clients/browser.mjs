// Browser origins and hosts (#20 point 6): what a web page, a browser
// extension or a desktop app's web view gets. Plain HTTP with the headers
// a browser sends, as no npm client sets them. Run by TestRealClients;
// checks.mjs says how to select checks.
import http from "node:http";
import { assert, check, run, env } from "./checks.mjs";

const url = new URL(env.url);

// get sends GET path with headers (Host included, which fetch will not
// set) and returns the status and headers.
function get(path, headers, method = "GET") {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      res.resume();
      res.on("end", () => resolve({ status: res.statusCode, headers: res.headers }));
    });
    req.on("error", reject);
    req.end();
  });
}

// Ollama's default allowlist: pages of localhost and 127.0.0.1 on any
// port, app://, file://, tauri://, the extension schemes and
// vscode-webview:// (the ones #20 names).
const allowed = [
  "http://localhost:3000", "http://127.0.0.1:8080", "https://localhost",
  "app://obsidian.md", "file://", "tauri://localhost",
  "chrome-extension://abcdefghijklmnop", "moz-extension://0c1d2e3f", "vscode-webview://1234",
];

check("cors.foreign", "main", async () => {
  // A web page of another site never reads the API.
  for (const origin of ["https://evil.example", "http://localhost.evil.example", "null"]) {
    const r = await get("/api/tags", { origin });
    assert.ok(r.status === 403 || !r.headers["access-control-allow-origin"], `${origin}: ${r.status}`);
  }
});

check("cors.allowed", "apifix", async () => {
  for (const origin of allowed) {
    const r = await get("/api/tags", { origin });
    assert.equal(r.status, 200, origin);
    assert.equal(r.headers["access-control-allow-origin"], origin);
    const pre = await get("/v1/chat/completions", { origin, "access-control-request-method": "POST",
      "access-control-request-headers": "authorization,content-type" }, "OPTIONS");
    assert.ok(pre.status === 204 || pre.status === 200, `${origin} preflight: ${pre.status}`);
    assert.equal(pre.headers["access-control-allow-origin"], origin);
    assert.match(pre.headers["access-control-allow-headers"] ?? "", /authorization/i);
  }
});

check("host", "apifix", async () => {
  // DNS rebinding: a page of evil.example resolved to 127.0.0.1 sends its
  // own name as the Host.
  for (const host of [`localhost:${url.port}`, `127.0.0.1:${url.port}`, `[::1]:${url.port}`]) {
    assert.equal((await get("/api/tags", { host })).status, 200, host);
  }
  for (const host of [`evil.example:${url.port}`, "evil.example", `192.0.2.1:${url.port}`]) {
    assert.equal((await get("/api/tags", { host })).status, 403, host);
  }
});

await run("browser");
