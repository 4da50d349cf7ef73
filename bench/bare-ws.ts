/**
 * The WebSocket yardstick: the least a server can do for the real-time scenarios, run by the same bun as the
 * harness. `/relay/{room}`: every binary frame goes to the room's other sockets (a relay that stores nothing
 * and reads nothing). `/events`: a live-events socket; `POST /publish` sends its body to every one of them.
 */
const server = Bun.serve<{ room: string }>({
  hostname: "127.0.0.1",
  port: Number(process.argv[2] ?? 0),
  development: false,
  fetch(request, srv) {
    const url = new URL(request.url);
    if (url.pathname === "/") return Response.json({ status: "ok" });
    if (url.pathname === "/publish" && request.method === "POST") {
      return request.text().then((body) => {
        srv.publish("events", body);
        return new Response(null, { status: 201 });
      });
    }
    const room = url.pathname.startsWith("/relay/")
      ? url.pathname.slice(7)
      : url.pathname === "/events"
        ? "events"
        : "";
    if (room && srv.upgrade(request, { data: { room } })) return undefined;
    return new Response("not found", { status: 404 });
  },
  websocket: {
    open(ws) {
      ws.subscribe(ws.data.room);
    },
    message(ws, message) {
      if (ws.data.room !== "events") ws.publish(ws.data.room, message);
    },
  },
});
console.log(JSON.stringify({ msg: "bare-ws is listening", url: server.url.origin }));

export {};
