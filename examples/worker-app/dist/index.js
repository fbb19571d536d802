// The worker's code. Edit it and run `takoform apply` again: a new bundle and version are created
// beside the old ones, the deployment moves to them, and the old ones are deleted.
// KV values are bytes; `get(key, "text")` reads one back as a string.
export default {
  async fetch(request, env) {
    const count = Number((await env.COUNTER.get("count", "text")) ?? "0") + 1;
    await env.COUNTER.put("count", String(count));
    return new Response(`${env.greeting}: request number ${count}\n`);
  },
};
