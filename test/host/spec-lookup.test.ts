// Finding resources by a top-level spec value (the custom-domain hostname claim across a tenant's
// spaces) is an index lookup: an expression index SQLite keeps in the same transaction as every
// resource write and delete. These tests hold the lookup's answers — across spaces, tenants,
// lines, updates and deletes, and over rows written before the index existed — and read SQLite's
// own query plan for the statement the store actually prepares.

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Store, type StoredResource } from "../../src/host/store/index.ts";
import { ResourceStore } from "../../src/host/store/resources.ts";

const EDGE = "edge.takoform-cdk.dev/v1alpha1";
const UPSTREAM = "edge.forms.takoform.com/v1alpha1";
const DOMAIN = "WorkerCustomDomain";

let uids = 0;
function resource(
  tenant: string,
  space: string,
  name: string,
  spec: Record<string, unknown>,
  line: { apiVersion?: string; kind?: string } = {},
): StoredResource {
  const json = JSON.stringify(spec);
  return {
    uid: `uid-${++uids}`,
    tenant,
    space,
    apiVersion: line.apiVersion ?? EDGE,
    kind: line.kind ?? DOMAIN,
    name,
    definitionVersion: "0.1.0",
    schemaDigest: `sha256:${"a".repeat(64)}`,
    spec: json,
    specDigest: `sha256:${"b".repeat(64)}`,
    generation: 1,
    revision: 1,
    nativeId: null,
    conditions: "[]",
    outputs: null,
    createdAt: "2026-01-01T00:00:00Z",
  };
}

const names = (found: StoredResource[]) => found.map((r) => `${r.space}/${r.name}`);

describe("spec-value lookups", () => {
  let store: Store;
  beforeEach(() => {
    store = new Store(":memory:");
    store.resources.indexSpecMember("hostname");
  });
  afterEach(() => store.close());

  it("finds a tenant's holders in every space, and nothing of other tenants, lines or values", () => {
    const r = store.resources;
    r.insert(resource("t1", "prod", "a", { hostname: "x.example.test" }));
    r.insert(resource("t1", "dev", "b", { hostname: "x.example.test" }));
    r.insert(resource("t2", "prod", "c", { hostname: "x.example.test" }));
    r.insert(resource("t1", "prod", "d", { hostname: "y.example.test" }));
    r.insert(resource("t1", "prod", "e", { hostname: "x.example.test" }, { apiVersion: UPSTREAM }));
    r.insert(resource("t1", "prod", "f", { hostname: "x.example.test" }, { kind: "WorkerEndpoint" }));
    r.insert(resource("t1", "prod", "g", { other: "x.example.test" }));
    r.insert(resource("t1", "prod", "h", { hostname: 7 }));
    expect(names(r.bySpecValue("t1", EDGE, DOMAIN, "hostname", "x.example.test"))).toEqual(["dev/b", "prod/a"]);
    expect(names(r.bySpecValue("t2", EDGE, DOMAIN, "hostname", "x.example.test"))).toEqual(["prod/c"]);
    expect(names(r.bySpecValue("t1", UPSTREAM, DOMAIN, "hostname", "x.example.test"))).toEqual(["prod/e"]);
    expect(names(r.bySpecValue("t1", EDGE, DOMAIN, "hostname", "7"))).toEqual([]);
    expect(names(r.bySpecValue("t3", EDGE, DOMAIN, "hostname", "x.example.test"))).toEqual([]);
  });

  it("follows updates and deletes in the same transaction as the write", () => {
    const r = store.resources;
    const a = resource("t1", "prod", "a", { hostname: "old.example.test" });
    r.insert(a);
    r.update({ ...a, spec: JSON.stringify({ hostname: "new.example.test" }), generation: 2 });
    expect(r.bySpecValue("t1", EDGE, DOMAIN, "hostname", "old.example.test")).toEqual([]);
    expect(names(r.bySpecValue("t1", EDGE, DOMAIN, "hostname", "new.example.test"))).toEqual(["prod/a"]);
    // A write rolled back leaves no trace in the lookup either.
    expect(() =>
      store.transaction(() => {
        r.insert(resource("t1", "dev", "b", { hostname: "new.example.test" }));
        throw new Error("refused");
      }),
    ).toThrow("refused");
    expect(names(r.bySpecValue("t1", EDGE, DOMAIN, "hostname", "new.example.test"))).toEqual(["prod/a"]);
    r.delete(a.uid);
    expect(r.bySpecValue("t1", EDGE, DOMAIN, "hostname", "new.example.test")).toEqual([]);
  });

  it("refuses a member that was never indexed, and one that cannot be written into SQL", () => {
    expect(() => store.resources.bySpecValue("t1", EDGE, DOMAIN, "worker", "w")).toThrow(/not indexed/);
    expect(() => store.resources.indexSpecMember("host'name")).toThrow(/cannot be indexed/);
    expect(() => store.resources.indexSpecMember("")).toThrow(/cannot be indexed/);
  });

  it("is an index search, never a scan of the tenant", () => {
    const prepared: string[] = [];
    const db = store.db;
    const prepare = db.prepare.bind(db);
    db.prepare = ((sql: string) => {
      prepared.push(sql);
      return prepare(sql);
    }) as typeof db.prepare;
    const resources = new ResourceStore(db);
    resources.indexSpecMember("hostname");
    db.prepare = prepare;
    const lookup = prepared.find((sql) => sql.includes("json_extract"))!;
    const plan = (db.prepare(`EXPLAIN QUERY PLAN ${lookup}`).all("t1", EDGE, DOMAIN, "x") as { detail: string }[]).map((row) => row.detail);
    expect(plan[0]).toMatch(/^SEARCH resources USING INDEX resources_spec_\w+ \(tenant=\? AND api_version=\? AND kind=\? AND <expr>=\?\)$/);
    expect(plan.join("\n")).not.toMatch(/SCAN resources/);
  });
});

describe("spec-value lookups over an existing data directory", () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "takoform-spec-lookup-"));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it("indexes rows written before the index existed, and keeps the index across restarts", () => {
    const first = new Store(dir);
    first.resources.insert(resource("t1", "prod", "a", { hostname: "x.example.test" }));
    first.close();

    const second = new Store(dir);
    second.resources.indexSpecMember("hostname");
    expect(names(second.resources.bySpecValue("t1", EDGE, DOMAIN, "hostname", "x.example.test"))).toEqual(["prod/a"]);
    second.resources.insert(resource("t1", "dev", "b", { hostname: "x.example.test" }));
    second.close();

    const third = new Store(dir);
    third.resources.indexSpecMember("hostname");
    expect(names(third.resources.bySpecValue("t1", EDGE, DOMAIN, "hostname", "x.example.test"))).toEqual(["dev/b", "prod/a"]);
    const indexes = third.db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name LIKE 'resources_spec_%'").pluck().all();
    expect(indexes).toHaveLength(1);
    third.close();
  });
});
