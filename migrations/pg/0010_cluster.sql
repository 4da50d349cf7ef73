-- Hand-written: what a node wrote that the other nodes on this database must hear (src/db/pg/cluster.ts).
-- `seq` follows commit order (every write holds the one write lock); rows older than ten minutes are removed.
CREATE TABLE cluster_events (
  seq bigserial PRIMARY KEY,
  node text COLLATE "C" NOT NULL,
  kind text COLLATE "C" NOT NULL,
  body text NOT NULL,
  created_at bigint NOT NULL
);
--> statement-breakpoint
CREATE INDEX cluster_events_created_idx ON cluster_events (created_at);
