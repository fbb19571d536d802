// The worker's code. Edit it and run `takoform apply` again: a new bundle and version are created
// beside the old ones, the deployment moves to them, and the old ones are deleted.
// A KV value is bytes: get resolves to an ArrayBuffer (or null when the key holds nothing).
const text = new TextDecoder();

export default {
  async fetch(request, env) {
    const stored = await env.COUNTER.get("count");
    const count = (stored === null ? 0 : Number(text.decode(stored))) + 1;
    await env.COUNTER.put("count", String(count));
    return new Response(`${env.greeting}: request number ${count}\n`);
  },
};
