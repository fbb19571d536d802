// The PostgreSQL state store: team state shared by every working directory and machine that
// reaches one server, behind the same StateStore contract as the local file (and the same
// conformance suite). One workspace per row of takoform_states (schema.ts); each data write is one
// statement, fenced by the lease token in that row (sql.ts); the whole state is read in one round
// trip. Every write holds the workspace row from its update to its commit, so the writes of one
// workspace run one at a time on the server whatever the client does; the steps of one apply
// therefore hand their writes to a group commit (group-commit.ts): the writes issued while a
// transaction is in flight go together in the next one, one round trip and one commit for all.

import type { KnownValue, WriteIntent } from "../../core/index.ts";
import { prepareDocument } from "../document.ts";
import { LeaseLostError, StateConflictError, StateLockedError, StateUsageError, StateWriteError } from "../errors.ts";
import { holderGone, waitForLease, type LeasePolicy } from "../lease.ts";
import { checkInFlightStatus, checkInput, intentColumns, outputRows, parseStateAddress, withoutCredentials } from "../records.ts";
import { settledRow, type ResourceRow } from "../row.ts";
import type { AcquireOptions, AcquiredLease, HostBinding, InFlightStatus, LockInfo, ResourceInput, StateDocument, StateMove, StateStore } from "../types.ts";
import type { PoolClient } from "pg";
import { isRetryable, scrubError } from "./connection.ts";
import { GroupCommit, type BatchedWrite, type Scalar } from "./group-commit.ts";
import { judge, leaseParams, lockOf, type LockColumns } from "./lease.ts";
import { moveRecords } from "./move.ts";
import { connect, PgStateReader, serverDescription, type PgStateOptions } from "./reader.ts";
import { pgUnavailableReason, reportingUnavailable } from "../unavailable.ts";
import { ONE_PER_OBJECT, ONE_PER_UID } from "./schema.ts";
import * as sql from "./sql.ts";

export { openPgStateReadOnly, type PgStateOptions } from "./reader.ts";

/** A holder on another machine is known only by its lease: an expired one is taken over. */
const POLICY: LeasePolicy = { takesOverExpired: true };
const RETRIES = 50;

/** Opens (creating schema, tables and workspace as allowed) a workspace for reading and writing. */
export async function openPgState(options: PgStateOptions): Promise<StateStore> {
  const setup = await connect(options, "write");
  return reportingUnavailable(new PgStateStore(setup), serverDescription(setup));
}

/** What a write statement reports: the serial it wrote (null: refused) and the lock its snapshot saw. */
type Report = LockColumns & { written: number | null; now_ms: number } & Record<string, unknown>;

/** What a record claims: the columns that name its host object. */
type Claim = Pick<ResourceRow, "uid" | "space" | "form_api_version" | "form_kind" | "name">;

interface HeldLease {
  info: LockInfo;
  leaseMs: number;
}

class PgStateStore extends PgStateReader implements StateStore {
  #held: HeldLease | null = null;
  /** The writes that arrive while one is in flight share the next transaction (group-commit.ts). */
  /** The write statements a batch carries, built once for this workspace's tables. */
  readonly #statements = {
    set_intent: sql.setIntent(this.t),
    upsert: sql.upsertSettled(this.t),
    remove: sql.removeRecord(this.t),
    bind_host: sql.bindHost(this.t),
  };
  readonly #group = new GroupCommit<Report>(this.setup.pool, this.#statements, this.setup.secrets, (write) => this.alone(write));

  get lease(): LockInfo | null {
    return this.#held?.info ?? null;
  }

  /** A statement that changes nothing when it fails as a whole (40001, 40P01) is run again on a fresh snapshot. */
  private async retrying<T>(body: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await body();
      } catch (error) {
        if (!isRetryable(error) || attempt >= RETRIES) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, 1 + attempt * 2) * Math.random()));
      }
    }
  }

  /**
   * One fenced write statement: $1 id, $2 our token, $3 clock, then `values`. The token is the
   * one held when the write is issued; the statement checks it inside the transaction that
   * carries it, batched with others (group-commit.ts) or, with an array parameter, alone.
   */
  private async write(name: string, text: string, values: unknown[]): Promise<Report> {
    const all = [this.setup.id, this.#held?.info.token ?? null, this.clock(), ...values];
    const write = { name, text, values: all as Scalar[] };
    return all.every(isScalar) && this.#group.carries(write) ? this.#group.submit(write) : this.alone(write);
  }

  /** A write as one statement and one transaction of its own. */
  private alone(write: BatchedWrite): Promise<Report> {
    return this.retrying(async () => (await this.query<Report>(write.name, write.text, [...write.values]))[0]!);
  }

  /** The error for a write the fence refused, or null when the fence held. */
  private fenceError(report: Report): Error | null {
    const current = lockOf(report);
    const token = this.#held?.info.token ?? null;
    if (token !== null) return current === null || current.token !== token ? new LeaseLostError(token, current) : null;
    if (current === null) return null;
    return new StateLockedError(
      current,
      current.expiresAt <= report.now_ms,
      holderGone(current),
      "the state is locked by another run, and this handle holds no lease, so it may not write",
      POLICY.takesOverExpired,
    );
  }

  async claimStack(stack: string): Promise<string> {
    if (stack === "") throw new StateUsageError("a stack name is not empty");
    // Two statements, so the read takes a snapshot after the update: of two claims at once, the
    // second waits for the first's row lock, finds the stack set and changes nothing, and its
    // read then sees the first one's name.
    await this.retrying(() => this.query("claim_stack", `UPDATE ${this.t.states} SET stack = $2 WHERE id = $1 AND stack IS NULL`, [this.setup.id, stack]));
    return (await this.stack())!;
  }

  // ---- locking ----

  async acquire(options: AcquireOptions): Promise<AcquiredLease> {
    if (this.#held) {
      const current = await this.lockInfo();
      if (current?.token === this.#held.info.token)
        throw new StateUsageError(`this handle already holds the state lease (token ${this.#held.info.token}); release it first`);
    }
    const acquired = await waitForLease(
      options,
      POLICY,
      () => this.setup.now?.() ?? Date.now(),
      () =>
        this.retrying(async () => {
          // Read, judge, then compare-and-set: taken only if nobody changed the lease in between.
          for (;;) {
            const [row] = await this.query<LockColumns & { now_ms: number }>("read_lock", sql.readLock(this.t), [this.setup.id, this.clock()]);
            const decision = judge(lockOf(row), row!.now_ms, options);
            if ("blocked" in decision) return decision;
            const seen = row!.lock_held_token;
            const [taken] = await this.query<LockColumns>("take_lease", sql.takeLease(this.t), [this.setup.id, seen, ...leaseParams(options), this.clock()]);
            if (taken !== undefined) return { acquired: { ...lockOf(taken)!, takenOver: decision.take } };
          }
        }),
    );
    const { takenOver, ...info } = acquired;
    this.#held = { info, leaseMs: options.leaseMs };
    return acquired;
  }

  async renew(): Promise<LockInfo> {
    const held = this.#held;
    if (!held) throw new StateUsageError("this handle holds no state lease to renew");
    const rows = await this.retrying(() =>
      this.query<LockColumns>("renew_lease", sql.renewLease(this.t), [this.setup.id, held.info.token, held.leaseMs, this.clock()]),
    );
    // On failure the lost token is kept, so every later write also fails with LeaseLostError.
    if (rows[0] === undefined) throw new LeaseLostError(held.info.token, await this.lockInfo());
    const info = lockOf(rows[0])!;
    this.#held = { ...held, info };
    return info;
  }

  async release(): Promise<boolean> {
    const held = this.#held;
    if (!held) return false;
    this.#held = null;
    const released = await this.retrying(async () => {
      try {
        return (await this.setup.pool.query(sql.releaseLease(this.t), [this.setup.id, held.info.token])).rowCount ?? 0;
      } catch (error) {
        throw scrubError(error, this.setup.secrets);
      }
    });
    return released > 0;
  }

  // ---- writes ----

  async bindHost(binding: HostBinding): Promise<void> {
    if (typeof binding.origin !== "string" || binding.origin === "" || typeof binding.space !== "string" || binding.space === "") {
      throw new StateWriteError("the host binding", "a binding needs an origin and a space");
    }
    const bound = new Date(this.setup.now?.() ?? Date.now()).toISOString();
    const report = await this.write("bind_host", this.#statements.bind_host, [
      binding.origin,
      binding.hostId,
      binding.space,
      binding.tenant,
      binding.credential,
      bound,
      binding.lane,
    ]);
    if (report.written === null) throw this.fenceError(report) ?? new StateWriteError("the host binding", "the write was refused");
  }

  async putResource(address: string, input: ResourceInput): Promise<void> {
    await this.upsert(address, input, true);
  }

  async settle(address: string, input: ResourceInput | null): Promise<void> {
    if (input === null) {
      await this.remove(address);
      return;
    }
    await this.upsert(address, input, false);
  }

  private async upsert(address: string, input: ResourceInput, refuseInFlight: boolean): Promise<void> {
    const checked = checkInput(address, input);
    const row = settledRow(address, input, checked, 0);
    const report = await this.claiming(address, row, () =>
      this.write("upsert", this.#statements.upsert, [
        address,
        parseStateAddress(address).address,
        row.type,
        row.status,
        row.form_api_version,
        row.form_kind,
        row.form_definition_version,
        row.form_schema_digest,
        row.package_digest,
        row.space,
        row.name,
        row.uid,
        row.generation,
        row.revision,
        row.pending_operation_id,
        row.relation_drift_reason,
        row.attributes,
        row.dependencies,
        row.contributions,
        refuseInFlight,
      ]),
    );
    if (report.written !== null) return;
    const fenced = this.fenceError(report);
    if (fenced) throw fenced;
    if (refuseInFlight && typeof report["in_flight"] === "string") {
      const [status, step] = (report["in_flight"] as string).split(" ");
      throw new StateWriteError(address, `it has an unsettled ${status} intent (step ${step}); settle that write first`);
    }
    this.throwConflict(address, row, report);
  }

  /**
   * Runs a write that may claim a host object. Two writes running at once can both pass the
   * statement's own check (each reads the records as they were before the other); the unique
   * indexes then refuse the second, which is reported as the check would have reported it.
   */
  private async claiming(address: string, row: Claim, body: () => Promise<Report>): Promise<Report> {
    try {
      return await body();
    } catch (error) {
      const constraint = (error as { code?: string; constraint?: string }).code === "23505" ? (error as { constraint?: string }).constraint : undefined;
      if (constraint !== ONE_PER_UID && constraint !== ONE_PER_OBJECT) throw error;
      const by = constraint === ONE_PER_UID ? "uid" : "name";
      const [holder] = await this.query<{ address: string }>(
        `holder_${by}`,
        by === "uid"
          ? `SELECT address FROM ${this.t.resources} WHERE state_id = $1 AND uid = $2 AND split_part(address, '#deposed:', 1) <> $3 LIMIT 1`
          : `SELECT address FROM ${this.t.resources} WHERE state_id = $1 AND space = $2 AND form_api_version = $3 AND form_kind = $4 AND name = $5 AND split_part(address, '#deposed:', 1) <> $6 LIMIT 1`,
        by === "uid"
          ? [this.setup.id, row.uid, parseStateAddress(address).address]
          : [this.setup.id, row.space, row.form_api_version, row.form_kind, row.name, parseStateAddress(address).address],
      );
      const object = by === "uid" ? row.uid! : `${row.space}/${row.form_api_version}/${row.form_kind}/${row.name}`;
      throw new StateConflictError(address, holder?.address ?? "another record written at the same time", by, object);
    }
  }

  private throwConflict(address: string, row: Claim, report: Report): never {
    if (typeof report["uid_holder"] === "string") throw new StateConflictError(address, report["uid_holder"], "uid", row.uid!);
    if (typeof report["object_holder"] === "string") {
      throw new StateConflictError(address, report["object_holder"], "name", `${row.space}/${row.form_api_version}/${row.form_kind}/${row.name}`);
    }
    throw new StateWriteError(address, "the write was refused, and the state does not say why; run the command again");
  }

  async setIntent(address: string, status: InFlightStatus, intent: { stepId: string; write: WriteIntent }): Promise<void> {
    checkInFlightStatus(address, status);
    const write = withoutCredentials(intent.write);
    const at = new Date(this.setup.now?.() ?? Date.now()).toISOString();
    // The statement appends the previous status as the record holds it (sql.ts).
    const whole = JSON.stringify({ stepId: intent.stepId, at, write });
    const prefix = `${whole.slice(0, -1)},"previousStatus":`;
    const columns = intentColumns(write);
    const claimed = { uid: columns.uid, space: columns.space, form_api_version: write.ref.apiVersion, form_kind: write.ref.kind, name: columns.name };
    const report = await this.claiming(address, claimed, () =>
      this.write("set_intent", this.#statements.set_intent, [
        address,
        parseStateAddress(address).address,
        write.type,
        status,
        write.ref.apiVersion,
        write.ref.kind,
        write.ref.definitionVersion,
        write.ref.schemaDigest,
        columns.space,
        columns.name,
        columns.uid,
        prefix,
      ]),
    );
    if (report.written !== null) return;
    const fenced = this.fenceError(report);
    if (fenced) throw fenced;
    if (report["existed"] === false && status !== "creating") {
      throw new StateWriteError(address, `there is no record to mark "${status}"; only a create may start a new record`);
    }
    this.throwConflict(address, claimed, report);
  }

  private async remove(address: string): Promise<boolean> {
    const report = await this.write("remove", this.#statements.remove, [address]);
    if (report.written !== null) return true;
    const fenced = this.fenceError(report);
    if (fenced) throw fenced;
    return false;
  }

  async removeResource(address: string): Promise<boolean> {
    return this.remove(address);
  }

  async putOutputs(outputs: Record<string, { value: KnownValue; sensitive: boolean }>): Promise<void> {
    const rows = outputRows(outputs);
    const report = await this.write("outputs_put", sql.replaceOutputs(this.t), [
      rows.map((r) => r.name),
      rows.map((r) => r.value),
      rows.map((r) => r.sensitive),
    ]);
    if (report.written === null) throw this.fenceError(report) ?? new StateWriteError("the outputs", "the write was refused");
  }

  async moveResource(from: string, to: string): Promise<StateMove> {
    return this.fencedTransaction(sql.bumpSerial(this.t), [], "the move was refused", (client, serial) =>
      moveRecords(client, this.t, this.setup.id, from, to, serial),
    );
  }

  async replaceState(document: StateDocument): Promise<void> {
    const prepared = prepareDocument(document);
    const b = prepared.binding;
    const head = [prepared.lineage, prepared.serial, b?.origin, b?.host_id, b?.space, b?.tenant, b?.credential, b?.bound_at, b?.lane];
    await this.fencedTransaction(
      sql.replaceHead(this.t),
      head.map((v) => v ?? null),
      "the replacement was refused",
      async (client) => {
        await client.query(`DELETE FROM ${this.t.resources} WHERE state_id = $1`, [this.setup.id]);
        if (prepared.resources.length > 0) await client.query(sql.insertRecords(this.t), [this.setup.id, JSON.stringify(prepared.resources)]);
        await client.query(`DELETE FROM ${this.t.outputs} WHERE state_id = $1`, [this.setup.id]);
        if (prepared.outputs.length > 0) {
          await client.query(
            `INSERT INTO ${this.t.outputs} (state_id, name, value, sensitive) SELECT $1, * FROM unnest($2::text[], $3::text[], $4::boolean[])`,
            [this.setup.id, prepared.outputs.map((o) => o.name), prepared.outputs.map((o) => o.value), prepared.outputs.map((o) => o.sensitive)],
          );
        }
      },
    );
    this.currentLineage = prepared.lineage;
  }

  /**
   * A write of several statements in one transaction: `head` (a fenced update of the workspace
   * row, reporting as every write does: $1 id, $2 our token, $3 clock, then `values`) holds the
   * row and fixes the serial; `body` writes the rest. A refused head, or a body that throws,
   * rolls everything back.
   */
  private async fencedTransaction<T>(head: string, values: unknown[], refused: string, body: (client: PoolClient, serial: number) => Promise<T>): Promise<T> {
    return this.retrying(async () => {
      const client = await this.setup.pool.connect();
      let broken: Error | undefined;
      try {
        await client.query("BEGIN");
        const report = (await client.query<Report>(head, [this.setup.id, this.#held?.info.token ?? null, this.clock(), ...values])).rows[0]!;
        if (report.written === null) throw this.fenceError(report) ?? new StateWriteError("the state", refused);
        const result = await body(client, Number(report.written));
        await client.query("COMMIT");
        return result;
      } catch (error) {
        // A connection that failed is not given back to the pool (nor asked to roll back).
        if (pgUnavailableReason(error) !== undefined) broken = error as Error;
        else await client.query("ROLLBACK").catch(() => undefined);
        throw scrubError(error, this.setup.secrets);
      } finally {
        client.release(broken);
      }
    });
  }
}

/**
 * What a batch can carry as a literal. A string with a NUL cannot be written into a query's text
 * (the message would end there); alone, as a bound parameter, the server refuses it cleanly.
 */
function isScalar(value: unknown): value is Scalar {
  if (typeof value === "string") return !value.includes("\u0000");
  return value === null || typeof value === "number" || typeof value === "boolean";
}
