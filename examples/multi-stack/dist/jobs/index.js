// The jobs worker: reports the state of an order from the shared namespace.
const text = new TextDecoder();

export default {
  async fetch(request, env) {
    const id = new URL(request.url).searchParams.get("order") ?? "";
    const stored = await env.ORDERS.get(id);
    return new Response(stored === null ? "unknown order\n" : `${text.decode(stored)}\n`);
  },
};
