// The worker's code. It answers first (the app sets runWorkerFirst): its API is backed by the
// migrated database, and everything else is a 404 that the static assets then answer —
// index.html, app.css, and index.html for any other path (SPA mode).
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname.endsWith("/api/visits")) {
      await env.DB.execute("INSERT INTO visits (at) VALUES (?)", [new Date().toISOString()]);
      const { rows } = await env.DB.query("SELECT count(*) AS n FROM visits", []);
      return new Response(`visits: ${rows[0].n}\n`);
    }
    return new Response("not found\n", { status: 404 });
  },
};
