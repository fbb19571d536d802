// A sensitive variable that flows into a resource's request never reaches state in the clear, at
// any point of an apply — including the instant a crash leaves the write's intent in flight. The
// apply PROCESS is SIGKILLed right after the intent is durable (before its request), or right
// after the host answered (before the result is recorded); the state file, its WAL and its shared
// memory file are then searched for the secret. The next apply re-derives the intent's key from
// the variable supplied again and resumes the write (the host executes it, or replays it by
// Idempotency-Key); without the variable, or with another value, the resume is refused cleanly
// and state is untouched.

import { readdirSync, readFileSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import type { WriteIntent } from "../../src/provider/types.ts";
import { openLocalStateReadOnly } from "../../src/state/index.ts";
import { runCli, Scratch, startHost, type TestHost } from "./harness.ts";

const SVC = "takoform_mesh_service";
const SECRET = "hunter2-b8f1c0e7d94a.js";
const OTHER = "not-the-secret-51c9.js";
const LEASE = "400ms";

const stack = {
  variable: { entry: { type: "string", sensitive: true } },
  resource: {
    [SVC]: {
      s: { name: "secret-svc", entrypoint: "${var.entry}" },
      // Gets the secret through a reference, not from the variable itself.
      t: { name: "secret-svc-t", entrypoint: `\${${SVC}.s.entrypoint}`, depends_on: [`${SVC}.s`] },
    },
  },
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe("secrets in stored write intents", () => {
  let host: TestHost | undefined;
  let scratch: Scratch | undefined;
  afterEach(async () => {
    await host?.close();
    scratch?.cleanup();
  });

  /** Every file of the state directory (state.db, state.db-wal, state.db-shm) holds no trace of the secret. */
  function assertNoSecretOnDisk(when: string): void {
    const dir = scratch!.path(".takoform");
    const files = readdirSync(dir).filter((f) => f.startsWith("state.db"));
    expect(files, when).toContain("state.db");
    for (const file of files) {
      const bytes = readFileSync(`${dir}/${file}`);
      expect(bytes.includes(Buffer.from(SECRET)), `${when}: ${file} contains the secret`).toBe(false);
      expect(bytes.includes(Buffer.from("hunter2")), `${when}: ${file} contains part of the secret`).toBe(false);
    }
  }

  async function stateSnapshot(): Promise<{ serial: number; inFlight: string }> {
    const reader = openLocalStateReadOnly(scratch!.path(".takoform", "state.db"));
    try {
      return { serial: await reader.serial(), inFlight: JSON.stringify(await reader.inFlight()) };
    } finally {
      await reader.close();
    }
  }

  for (const [hook, label] of [
    ["TAKOFORM_TEST_CRASH_AFTER_INTENTS", "intent recorded, request never sent: the resume executes it"],
    ["TAKOFORM_TEST_CRASH_AFTER_WRITES", "host committed, result never recorded: the resume is replayed by key"],
  ] as const) {
    it(
      label,
      async () => {
        host = await startHost();
        scratch = new Scratch();
        scratch.write("stack.json", JSON.stringify(stack));
        const base = { TAKOFORM_ENDPOINT: host.url, TAKOFORM_TOKEN: "takoform-dev-token", TAKOFORM_LOCK_LEASE: LEASE };
        const args = ["apply", "--config", "stack.json", "--auto-approve", "--force-unlock"];

        const crashed = await runCli(args, { cwd: scratch.dir, env: { ...base, TAKOFORM_VAR_entry: SECRET, [hook]: "1" } });
        expect(crashed.signal, crashed.stderr).toBe("SIGKILL");
        assertNoSecretOnDisk("after the crash");
        const reader = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
        const [inFlight] = await reader.inFlight();
        await reader.close();
        expect(inFlight?.address).toBe(`${SVC}.s`);
        const write = inFlight!.intent!.write as WriteIntent & { sealed?: { alg: string; variables: string[] } };
        expect(write.sealed).toMatchObject({ alg: "AES-256-GCM", variables: ["entry"] });
        expect(write.request.body).toBeUndefined();
        expect(write.attributes).toBeUndefined();
        const hostWrites = host.mutations.length;
        expect(hostWrites).toBe(hook === "TAKOFORM_TEST_CRASH_AFTER_WRITES" ? 1 : 0);
        await sleep(500); // the killed run's lease expires; the next runs take it over explicitly

        // Without the variable: refused before anything (it is required), state untouched.
        const before = await stateSnapshot();
        const missing = await runCli(args, { cwd: scratch.dir, env: base });
        expect(missing.code).toBe(1);
        expect(missing.stderr).toContain("TAKOFORM_VAR_entry");
        expect(await stateSnapshot()).toEqual(before);

        // Another value: the sealed intent does not open; refused, naming the variable; state and host untouched.
        const wrong = await runCli(args, { cwd: scratch.dir, env: { ...base, TAKOFORM_VAR_entry: OTHER } });
        expect(wrong.code).toBe(1);
        expect(wrong.stderr).toContain('The values of "entry" differ from those the interrupted write of takoform_mesh_service.s was sent with');
        expect(wrong.stderr).toContain("TAKOFORM_VAR_entry");
        expect(wrong.stderr).not.toContain(OTHER);
        expect(await stateSnapshot()).toEqual(before);
        expect(host.mutations.length).toBe(hostWrites);
        assertNoSecretOnDisk("after the refused resumes");

        // The same value: the write is resumed and the apply finishes.
        const resumed = await runCli(args, { cwd: scratch.dir, env: { ...base, TAKOFORM_VAR_entry: SECRET } });
        expect(resumed.code, `${resumed.stdout}\n${resumed.stderr}`).toBe(0);
        expect(resumed.stdout).toContain("1 write(s) an interrupted apply had left unfinished were resolved first");
        expect(resumed.stdout).not.toContain(SECRET);
        const first = host.mutations.find((m) => m.name === "secret-svc");
        if (hook === "TAKOFORM_TEST_CRASH_AFTER_WRITES") {
          // The resent request was answered from the host's idempotency record: one resource, one uid.
          expect(host.mutations.filter((m) => m.name === "secret-svc").map((m) => m.status)).toEqual([201, 201]);
        } else {
          expect(first?.status).toBe(201);
        }
        const after = openLocalStateReadOnly(scratch.path(".takoform", "state.db"));
        try {
          expect(await after.inFlight()).toEqual([]);
          const records = await after.list();
          expect(records.map((r) => r.address)).toEqual([`${SVC}.s`, `${SVC}.t`]);
          for (const record of records) {
            const stored = host.host.controls.resource({
              tenant: "dev",
              space: record.space!,
              apiVersion: record.ref!.apiVersion,
              kind: record.ref!.kind,
              name: record.name!,
            });
            expect(stored?.uid).toBe(record.uid);
            // Sealed in the settled record, whether it came from the variable or through the reference.
            expect(record.attributes["entrypoint"]).toMatchObject({ $sensitive: expect.stringMatching(/^sha256:/) });
          }
          expect(host.host.controls.resourceCount()).toBe(2);
        } finally {
          await after.close();
        }
        assertNoSecretOnDisk("after the resumed apply");
        const again = await runCli(["plan", "--config", "stack.json", "--detailed-exitcode"], {
          cwd: scratch.dir,
          env: { ...base, TAKOFORM_VAR_entry: SECRET },
        });
        expect(again.code, again.stdout).toBe(0);
      },
      90_000,
    );
  }
});
