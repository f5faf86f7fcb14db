// Times mcpctl's tools through the official TypeScript SDK client over stdio: the client issue
// 9's peer figures were measured with. Medians of N calls after 20 warm-up calls, in ms.
//
// Usage: node bench.mjs BIN LIBRARY_DIR [N]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const [bin, lib, nArg] = process.argv.slice(2);
if (!bin || !lib) {
  console.error("usage: node bench.mjs BIN LIBRARY_DIR [N]");
  process.exit(2);
}
const n = Number(nArg || 200);
if (!Number.isInteger(n) || n < 1) {
  console.error(`N must be a whole number of calls, not ${nArg}`);
  process.exit(2);
}
// A fresh home, so no kept view or search index of another run is used.
const home = mkdtempSync(join(tmpdir(), "mcpctl-sdkbench-"));
const env = { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: join(home, "config"), XDG_CACHE_HOME: join(home, "cache"), XDG_STATE_HOME: join(home, "state"), LOG_LEVEL: "error" };
const transport = new StdioClientTransport({ command: bin, args: ["serve", "--library", lib], env, stderr: "pipe" });
const client = new Client({ name: "mcpctl-sdkbench", version: "1" });
let stderr = "";
transport.stderr?.on("data", (d) => { stderr = (stderr + d).slice(-4000); });
try {
  await run();
} catch (err) {
  console.error(`${err.message}\nthe server's last words:\n${stderr}`);
  process.exitCode = 1;
} finally {
  await client.close().catch(() => {});
  rmSync(home, { recursive: true, force: true });
}

async function run() {
  const start = performance.now();
  await client.connect(transport);
  const figures = { "spawn to initialize": performance.now() - start };

  // The steady state: the library read and the search index built.
  for (const deadline = Date.now() + 300_000; ; ) {
    const h = await client.callTool({ name: "health_check", arguments: {} });
    if (h.structuredContent?.search?.index === "ready") break;
    if (Date.now() > deadline) throw new Error("the search index was not ready within 5 minutes");
    await new Promise((r) => setTimeout(r, 100));
  }
  const page = await client.callTool({ name: "list_prompts", arguments: { limit: 1, offset: 1 } });
  const id = page.structuredContent.prompts[0].id;

  for (const [name, tool, args] of [
    ["get_prompt", "get_prompt", { id }],
    ["list_prompts limit 100", "list_prompts", { limit: 100 }],
    ["search, a word in most prompts", "search_prompts", { query: "reviewer" }],
    ["search, two words", "search_prompts", { query: "refactor caching" }],
  ]) {
    const times = [];
    for (let i = 0; i < 20 + n; i++) {
      const t = performance.now();
      const res = await client.callTool({ name: tool, arguments: args });
      if (res.isError) throw new Error(`${tool}: ${JSON.stringify(res.content)}`);
      if (i >= 20) times.push(performance.now() - t);
    }
    times.sort((a, b) => a - b);
    figures[name] = times[times.length >> 1];
  }
  for (const [k, v] of Object.entries(figures)) console.log(`${k.padEnd(32)} ${v.toFixed(2)} ms`);
}
