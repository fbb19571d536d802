// Issue 24, item 4, through the command: with `TAKOFORM_TOKEN=it` every "it" of every message used
// to be replaced ("defin[redacted]ion"). A token that short is now refused when the provider's
// settings are read, before any request: one diagnostic that reads as written (no marker in it),
// saying why, for the environment variable and for the provider block's token alike; nothing
// reaches the host.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HostRequest, HostResponse } from "../../src/host/index.ts";
import { runCli, Scratch, startHost, type TestHost } from "../scenario/harness.ts";

const KV = "takoform_edge_kv_namespace";

describe("a token too short to redact, through the command", () => {
  let host: TestHost;
  let requests = 0;
  const scratch = new Scratch();
  beforeAll(async () => {
    host = await startHost();
    const handle = host.host.handle.bind(host.host);
    host.host.handle = (request: HostRequest): Promise<HostResponse> => {
      requests++;
      return handle(request);
    };
    scratch.write("stack.json", JSON.stringify({ resource: { [KV]: { cache: { name: "short-token-cache" } } } }));
  });
  afterAll(async () => {
    await host.close();
    scratch.cleanup();
  });

  it("TAKOFORM_TOKEN=it: plan and apply are refused before any request, in readable words", async () => {
    for (const args of [["plan"], ["apply", "--auto-approve"]]) {
      const run = await runCli([...args, "--config", "stack.json"], { cwd: scratch.dir, env: { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "it" } });
      expect(run.code, run.stderr).toBe(1);
      expect(run.stderr).toContain("Error: TAKOFORM_TOKEN cannot be used as a bearer token");
      expect(run.stderr).toContain(
        "TAKOFORM_TOKEN is 2 characters long; takoform needs at least 16, because it removes the token from every message it prints, and a token this short also occurs inside ordinary words and names: removing it would garble messages, and the gaps would give the token away.",
      );
      expect(run.stderr).toContain("Set TAKOFORM_TOKEN to the whole credential your host issued (at least 16 characters)");
      expect(run.stderr).toContain("Code: takoform.provider/not-configured");
      expect(`${run.stdout}${run.stderr}`).not.toContain("[redacted]");
      expect(run.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
    }
    expect(requests).toBe(0);
    expect(host.mutations).toEqual([]);
  }, 60_000);

  it("a short token from the provider block (a sensitive variable) is refused the same way, as data with --json", async () => {
    const p = new Scratch();
    try {
      p.write(
        "stack.json",
        JSON.stringify({
          variable: { token: { type: "string", sensitive: true } },
          provider: { takoform: [{ endpoint: host.url, token: "${var.token}" }] },
          resource: { [KV]: { cache: { name: "short-token-cache" } } },
        }),
      );
      const run = await runCli(["plan", "--config", "stack.json", "--json"], { cwd: p.dir, env: { TF_VAR_token: "tok3n", TAKOFORM_ENDPOINT: undefined } });
      expect(run.code, run.stderr).toBe(1);
      const doc = JSON.parse(run.stdout) as { diagnostics: Record<string, unknown>[] };
      expect(doc.diagnostics).toEqual([
        expect.objectContaining({
          severity: "error",
          code: "takoform.provider/not-configured",
          summary: "The provider's token cannot be used as a bearer token",
          detail: expect.stringMatching(/^The provider's token is 5 characters long; takoform needs at least 16, /),
          repair: expect.stringContaining("Set the TakoformProvider's token to the whole credential"),
        }),
      ]);
      expect(run.stdout).not.toContain("tok3n");
      expect(requests).toBe(0);
    } finally {
      p.cleanup();
    }
  }, 60_000);
});
