// Hocuspocus with its SQLite extension, as its documentation sets it up: `node hocuspocus.mjs <port> <database file>`.
// Default settings otherwise (a document is stored 2 s after its last change, at most 10 s after the first unstored
// one). No authentication.
import { SQLite } from "@hocuspocus/extension-sqlite";
import { Server } from "@hocuspocus/server";

const [port, database] = process.argv.slice(2);
if (!port || !database) throw new Error("usage: node hocuspocus.mjs <port> <database file>");

const server = new Server({
  port: Number(port),
  address: "127.0.0.1",
  quiet: true,
  extensions: [new SQLite({ database })],
});
await server.listen();
console.log(JSON.stringify({ msg: "hocuspocus is listening", url: `http://127.0.0.1:${port}` }));
