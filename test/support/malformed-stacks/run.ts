// Running generated stacks through the engine's plan+apply path (load → variables → runApply)
// against the local host over real HTTP, and judging each refusal: it must not throw, must be a
// refusal with error diagnostics, must contain every defect's expected diagnostic (at its
// address), must print no raw stack trace, and must leave both the host (counted where requests
// arrive: no write, no prepare) and state exactly as they were.

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HostClient } from "../../../src/client/client.ts";
import type { Diagnostic } from "../../../src/core/index.ts";
import { loadStackConfig } from "../../../src/engine/config/load.ts";
import { resolveVariables } from "../../../src/engine/config/variables/resolve.ts";
import { runApply } from "../../../src/engine/run.ts";
import { DEV_TOKEN } from "../../../src/host/index.ts";
import { HostProvider } from "../../../src/provider/provider.ts";
import { bundledRegistry } from "../../../src/registry/bundled.ts";
import { openLocalState } from "../../../src/state/index.ts";
import type { StateStore } from "../../../src/state/types.ts";
import { startCountingHost, type CountingHost } from "../host-writes.ts";
import { baseStack } from "./base.ts";
import type { JsonObject } from "./document.ts";
import type { MalformedStack } from "./generate.ts";
import { Rng } from "./random.ts";

export interface MalformedRig {
  host: CountingHost;
  provider: HostProvider;
  store: StateStore;
  /** The valid stack, already applied: every malformed stack is planned over its state. */
  base: JsonObject;
  close(): Promise<void>;
}

const TRACE = /\n\s+at .+:\d+:\d+|Maximum call stack|RangeError|TypeError|ReferenceError/;

/** Starts a host, applies a base stack generated from `seed`, and returns everything to break it against. */
export async function openMalformedRig(seed: number): Promise<MalformedRig> {
  const dir = mkdtempSync(join(tmpdir(), "takoform-malformed-"));
  const contentFile = join(dir, "index.js");
  writeFileSync(contentFile, `export default { async fetch() { return new Response("base ${seed}"); } };\n`);
  const host = await startCountingHost();
  const client = await HostClient.connect({ endpoint: host.url, token: DEV_TOKEN.token });
  const provider = new HostProvider({ client, registry: bundledRegistry, defaultSpace: "default" });
  const store = openLocalState(join(dir, "state.db"));
  const base = baseStack(new Rng(seed), `m${seed}`, contentFile);
  const loaded = loadStackConfig(JSON.stringify(base));
  if (loaded.config === null) throw new Error(`the base stack does not load: ${loaded.diagnostics.map((d) => d.summary).join("; ")}`);
  const applied = await runApply({ provider, stack: loaded.config, variables: resolveVariables(loaded.config.variables, {}) }, store, {
    lock: { holder: "malformed-base" },
  });
  if (applied.status !== "applied")
    throw new Error(`the base stack did not apply (${applied.status}): ${applied.diagnostics.map((d) => `${d.summary} ${d.detail ?? ""}`).join("; ")}`);
  return {
    host,
    provider,
    store,
    base,
    close: async () => {
      await store.close();
      client.close();
      await host.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

async function stateFingerprint(store: StateStore): Promise<string> {
  const records = await store.list();
  return JSON.stringify([await store.serial(), records.map((r) => [r.address, r.uid, r.generation, r.serial, r.status, r.dependencies])]);
}

function matches(d: Diagnostic, code: string, address: string | undefined): boolean {
  return d.severity === "error" && d.code === code && (address === undefined || d.address === address);
}

function describe(stack: MalformedStack): string {
  const text = typeof stack.source === "string" ? stack.source : Buffer.from(stack.source).toString("latin1");
  return `${stack.id} [${stack.stage}: ${stack.kinds.join(", ")}] ${stack.descriptions.join("; ")}\n  ${text.length > 600 ? `${text.slice(0, 600)}…` : text}`;
}

/** Runs one malformed stack; returns what is wrong with how it was refused (empty: refused properly). */
export async function refuseMalformed(rig: MalformedRig, stack: MalformedStack): Promise<string[]> {
  const problems: string[] = [];
  const writes = rig.host.writes.length;
  const prepares = rig.host.prepares.length;
  const before = await stateFingerprint(rig.store);
  let diagnostics: Diagnostic[] = [];
  try {
    const loaded = loadStackConfig(stack.source, { file: "stack.json" });
    diagnostics = loaded.diagnostics;
    if (loaded.config !== null) {
      const variables = resolveVariables(loaded.config.variables, {});
      diagnostics = [...diagnostics, ...variables.diagnostics];
      if (!diagnostics.some((d) => d.severity === "error")) {
        const run = await runApply({ provider: rig.provider, stack: loaded.config, variables }, rig.store, { lock: { holder: "malformed" } });
        diagnostics = [...diagnostics, ...run.diagnostics];
        if (run.status !== "plan-failed") problems.push(`the apply ended "${run.status}", not "plan-failed"`);
      }
    }
  } catch (error) {
    problems.push(`threw: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  }
  const errors = diagnostics.filter((d) => d.severity === "error");
  if (errors.length === 0 && problems.length === 0) problems.push("accepted: no error diagnostic");
  for (const e of stack.expectations) {
    if (errors.some((d) => matches(d, e.code, e.address))) continue;
    const shown = errors.slice(0, 8).map((d) => `${d.code ?? "-"}@${d.address ?? "-"} ${d.summary}`);
    problems.push(
      `no ${e.code}${e.address !== undefined ? ` at ${e.address}` : ""} among: ${shown.join(" | ")}${errors.length > 8 ? ` (and ${errors.length - 8} more)` : ""}`,
    );
  }
  for (const d of diagnostics) {
    if (d.summary === "") problems.push("a diagnostic without a summary");
    const text = [d.summary, d.detail, d.cause, d.repair].filter((t) => t !== undefined).join("\n");
    if (TRACE.test(text)) problems.push(`a raw trace in a diagnostic: ${text.slice(0, 300)}`);
  }
  if (rig.host.writes.length !== writes) problems.push(`host writes: ${JSON.stringify(rig.host.writes.slice(writes))}`);
  if (rig.host.prepares.length !== prepares) problems.push(`host prepares: ${rig.host.prepares.length - prepares}`);
  if ((await stateFingerprint(rig.store)) !== before) problems.push("state changed");
  return problems.length === 0 ? [] : [describe(stack), ...problems.map((p) => `  - ${p}`)];
}
