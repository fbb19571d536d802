import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { abandonKey, bodyDigestHex, cancelKey, commitKey, incarnationKey, mutationKey, uploadStartKey } from "../../src/client/keys.ts";

const QUEUE = { apiVersion: "edge.forms.takoform.com/v1alpha1", kind: "AtLeastOnceQueue" };

describe("Idempotency-Keys (§7.3, §8.8)", () => {
  it("reproduces the worked delete example byte for byte", () => {
    expect(mutationKey("delete", "edge.forms.takoform.com/v1alpha1", "AtLeastOnceQueue", "queue", "prod", "uid-1", "1", "")).toBe(
      "takoform-3af9624b3b3746a796c874a3b25ae89055f8631f01fa7bdfe9bbe10526db94da",
    );
  });

  it("TestIncarnationKeyComposition: op, group, kind, name, space, uid, generation, body digest", () => {
    const key = incarnationKey("delete", QUEUE, "queue", "prod", "uid-1", "1", "");
    expect(key).toBe(mutationKey("delete", QUEUE.apiVersion, QUEUE.kind, "queue", "prod", "uid-1", "1", ""));
    // Only group and kind of the ref enter the key.
    const full = { ...QUEUE, definitionVersion: "9.9.9", schemaDigest: `sha256:${"f".repeat(64)}` };
    expect(incarnationKey("delete", full, "queue", "prod", "uid-1", "1", "")).toBe(key);
    // Every component matters.
    const variants = [
      incarnationKey("observe", QUEUE, "queue", "prod", "uid-1", "1", ""),
      incarnationKey("delete", { ...QUEUE, apiVersion: "other.takoform-cdk.dev/v1alpha1" }, "queue", "prod", "uid-1", "1", ""),
      incarnationKey("delete", { ...QUEUE, kind: "QueueConsumer" }, "queue", "prod", "uid-1", "1", ""),
      incarnationKey("delete", QUEUE, "queue-2", "prod", "uid-1", "1", ""),
      incarnationKey("delete", QUEUE, "queue", "staging", "uid-1", "1", ""),
      incarnationKey("delete", QUEUE, "queue", "prod", "uid-1", "2", ""),
      incarnationKey("delete", QUEUE, "queue", "prod", "uid-1", "1", "00"),
    ];
    expect(new Set([key, ...variants]).size).toBe(variants.length + 1);
    expect(key).toMatch(/^takoform-[0-9a-f]{64}$/);
  });

  it("TestDeleteKeyDistinguishesTwoIncarnationsOfOneName: a re-created resource restarts at generation 1 with a new uid", () => {
    expect(incarnationKey("delete", QUEUE, "queue", "prod", "uid-1", "1", "")).not.toBe(incarnationKey("delete", QUEUE, "queue", "prod", "uid-2", "1", ""));
  });

  it("TestDeleteKeyStillReplaysTheSameDeleteRetried: the same incarnation gets the same key every time", () => {
    expect(incarnationKey("delete", QUEUE, "queue", "prod", "uid-1", "3", "")).toBe(incarnationKey("delete", QUEUE, "queue", "prod", "uid-1", "3", ""));
  });

  it("TestObserveKeyDistinguishesTwoIncarnationsOfOneName", () => {
    expect(incarnationKey("observe", QUEUE, "queue", "prod", "uid-1", "1", "")).not.toBe(incarnationKey("observe", QUEUE, "queue", "prod", "uid-2", "1", ""));
  });

  it("appends the idempotency scope as one more element; without it the key is the Go client's", () => {
    const plain = incarnationKey("apply", QUEUE, "queue", "prod", "uid-1", "1", "ab");
    const settle1 = incarnationKey("apply", QUEUE, "queue", "prod", "uid-1", "1", "ab", "settle:1");
    const settle2 = incarnationKey("apply", QUEUE, "queue", "prod", "uid-1", "1", "ab", "settle:2");
    expect(plain).toBe(mutationKey("apply", QUEUE.apiVersion, QUEUE.kind, "queue", "prod", "uid-1", "1", "ab"));
    expect(settle1).toBe(mutationKey("apply", QUEUE.apiVersion, QUEUE.kind, "queue", "prod", "uid-1", "1", "ab", "settle:1"));
    expect(new Set([plain, settle1, settle2]).size).toBe(3);
    expect(cancelKey("op_1", "x")).toBe(mutationKey("operation-cancel", "op_1", "x"));
  });

  it("hashes the Go JSON of the array, including Go's HTML escaping", () => {
    const expected = createHash("sha256").update('["apply","a\\u003cb"]').digest("hex");
    expect(mutationKey("apply", "a<b")).toBe(`takoform-${expected}`);
  });

  it("bodyDigestHex is the bare lowercase hex of the exact body bytes, or empty", () => {
    expect(bodyDigestHex(undefined)).toBe("");
    expect(bodyDigestHex("{}")).toBe(createHash("sha256").update("{}").digest("hex"));
  });

  it("TestUploadArtifactStartKeyIsFreshPerInvocation", () => {
    const digest = `sha256:${"c".repeat(64)}`;
    const a = uploadStartKey(digest);
    const b = uploadStartKey(digest);
    expect(a).not.toBe(b);
    const nonce = new Uint8Array(16).fill(7);
    expect(uploadStartKey(digest, undefined, nonce)).toBe(mutationKey("artifact-upload-start", digest, "07".repeat(16)));
  });

  it("commit, cancel and abandon keys follow the table", () => {
    const digest = `sha256:${"c".repeat(64)}`;
    expect(commitKey("up_1", digest)).toBe(mutationKey("artifact-commit", "up_1", digest));
    expect(cancelKey("op_1")).toBe(mutationKey("operation-cancel", "op_1"));
    expect(abandonKey("up_1")).toBe(mutationKey("artifact-upload-abandon", "up_1"));
  });
});
