// The api worker: records an order in the shared namespace and queues a job for it.
export default {
  async fetch(request, env) {
    const id = String(Date.now());
    await env.ORDERS.put(id, "received");
    await env.JOBS.send({ order: id });
    return new Response(`order ${id} received\n`);
  },
};
