// The y-websocket reference server, run as its package's `y-websocket` command runs it, with the LevelDB
// persistence it enables when YPERSISTENCE is set: `node y-websocket.mjs <port> <leveldb dir>`. No authentication.
const [port, dir] = process.argv.slice(2);
if (!port || !dir) throw new Error("usage: node y-websocket.mjs <port> <leveldb dir>");

process.env.HOST = "127.0.0.1";
process.env.PORT = port;
process.env.YPERSISTENCE = dir;
await import("./node_modules/@y/websocket-server/src/server.js");
