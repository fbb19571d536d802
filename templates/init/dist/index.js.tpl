// The worker's code: every file in dist/ is one module of its bundle. Edit it and run
// `takoform apply` again; `takoform dev` serves it locally and prints its address.
const text = new TextDecoder();

export default {
  async fetch(request, env) {
    // A KV value is bytes: get resolves to an ArrayBuffer, or null when the key holds nothing.
    const stored = await env.COUNTER.get("count");
    const count = (stored === null ? 0 : Number(text.decode(stored))) + 1;
    await env.COUNTER.put("count", String(count));
    return new Response(`${env.greeting}: request number ${count}\n`);
  },
};
