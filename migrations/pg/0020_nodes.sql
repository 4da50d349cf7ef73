-- Hand-written: the nodes serving this database and where each reaches the others (src/db/pg/cluster.ts);
-- `seen_at` is the database's clock at the node's last heartbeat (every second), so nodes' clocks need not agree.
CREATE TABLE cluster_nodes (
  id text COLLATE "C" PRIMARY KEY,
  url text COLLATE "C" NOT NULL,
  started_at bigint NOT NULL,
  seen_at bigint NOT NULL
);
--> statement-breakpoint
-- Which node holds each tunnel's connector (src/features/tunnels/tunnels.nodes.ts): written in the transaction
-- that starts the connection's run, removed in the one that ends it. A row of a node that stopped beating holds
-- nothing.
CREATE TABLE tunnel_holders (
  automation_id text COLLATE "C" PRIMARY KEY REFERENCES automations (id) ON DELETE CASCADE,
  node_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  run_id text COLLATE "C" NOT NULL,
  since bigint NOT NULL
);
--> statement-breakpoint
-- One-time tunnel links (src/features/tunnels/tunnels.passes.ts), so a link asked of one node opens on any:
-- by the SHA-256 of the token, taken (deleted) once.
CREATE TABLE tunnel_links (
  token_hash text COLLATE "C" PRIMARY KEY,
  automation_id text COLLATE "C" NOT NULL,
  user_id text COLLATE "C" NOT NULL,
  service_account_id text COLLATE "C",
  session_id text COLLATE "C",
  expires_at bigint NOT NULL
);
