-- Hand-written (a table outside the drizzle schema, as `search_state`): how far the inbox items of chat posts are
-- written. They are written after their post commits, in batches (src/features/inbox/inbox.batch.ts); `posts` is
-- the time (epoch ms) of the last batch that committed: every post stored before it has its items, and one stored
-- after has a `created_at` at or after it (a post is stamped with the clock, or later). A start writes the items
-- of the posts created since (less a margin) that a crash left waiting, skipping anyone who has one already.
CREATE TABLE `inbox_state` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `inbox_state` (`name`, `value`) VALUES ('posts', CAST(unixepoch('subsec') * 1000 AS INTEGER));
