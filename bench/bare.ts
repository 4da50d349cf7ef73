/** The yardstick: the smallest JSON endpoint Bun.serve can answer, run by the same bun as the harness. */
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: Number(process.argv[2] ?? 0),
  development: false,
  fetch: () => Response.json({ status: "ok" }),
});
console.log(JSON.stringify({ msg: "bare is listening", url: server.url.origin }));
