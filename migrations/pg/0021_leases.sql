-- Hand-written: work that one node at a time does, each a row held by a node until `until`, the database's clock
-- (src/db/pg/cluster.ts `Cluster.lease`): the email sweep. A row of a node gone (cluster_nodes) holds nothing.
CREATE TABLE cluster_leases (
  name text COLLATE "C" PRIMARY KEY,
  node text COLLATE "C" NOT NULL,
  until bigint NOT NULL
);
