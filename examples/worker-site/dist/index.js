// The worker's code: the assets answer first (index.html, app.css, and index.html for any other
// path in SPA mode); what reaches the worker is its API, backed by the migrated database.
export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/api/visits") {
      await env.DB.execute("INSERT INTO visits (at) VALUES (?)", [{ type: "text", value: new Date().toISOString() }]);
      return new Response("visit recorded\n");
    }
    return new Response("not found\n", { status: 404 });
  },
};
