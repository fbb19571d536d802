// A generated stack of many independent resources (issue 14: "a 300-resource stack"): KV
// namespaces and queues in turn, each with the attributes a user would set, and an output that
// reads one computed attribute.

const KV = "takoform_edge_kv_namespace";
const Q = "takoform_at_least_once_queue";

export function bigStack(count: number, prefix = "big"): Record<string, unknown> {
  const kv: Record<string, unknown> = {};
  const q: Record<string, unknown> = {};
  for (let i = 0; i < count; i++) {
    if (i % 2 === 0) kv[`kv${i}`] = { name: `${prefix}-kv-${i}` };
    else q[`q${i}`] = { name: `${prefix}-q-${i}`, message_retention_seconds: 600 + i };
  }
  return { resource: { [KV]: kv, [Q]: q }, output: { first_kv_uid: { value: `\${${KV}.kv0.uid}` } } };
}
