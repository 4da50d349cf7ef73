-- Hand-written (drizzle-kit cannot declare virtual tables or triggers): the search index (src/features/search/).
--
-- search_docs holds one row per searchable item (a chat message, a task, a task message, a file node): where it
-- lives, when it was made, and the text it is found by (`title`: a task's title or a file's name; `body`: the
-- message, the description, the file's text). Its rowid `doc` keys two FTS5 indexes that read their text from
-- it (external content, so the text is stored once): search_text (whole words, case and accents folded) and
-- search_names (trigrams of file names, for any part of a name). The triggers keep both indexes equal to the
-- rows. The search feature writes the rows from the domain events: inside the transaction of each write, but for
-- a new chat message, indexed after its post commits in batches (`search_state` says how far).
-- `secure-delete`: a deleted item's words leave the index at once, as its text leaves its table.
CREATE TABLE `search_docs` (
	`doc` integer PRIMARY KEY,
	`kind` text NOT NULL,
	`item_id` text NOT NULL,
	`space_id` text NOT NULL,
	`parent_id` text,
	`created_at` integer NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`body` text DEFAULT '' NOT NULL,
	`version` text
);
--> statement-breakpoint
CREATE UNIQUE INDEX `search_docs_item_uq` ON `search_docs` (`item_id`);
--> statement-breakpoint
-- The messages of a task (deleted with it); a chat message is not in this index: every post would write it.
CREATE INDEX `search_docs_task_idx` ON `search_docs` (`parent_id`) WHERE `kind` = 'task_message';
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_text` USING fts5(title, body, content='search_docs', content_rowid='doc', tokenize='unicode61 remove_diacritics 2');
--> statement-breakpoint
INSERT INTO `search_text`(`search_text`, `rank`) VALUES ('secure-delete', 1);
--> statement-breakpoint
CREATE VIRTUAL TABLE `search_names` USING fts5(title, content='search_docs', content_rowid='doc', tokenize='trigram remove_diacritics 1');
--> statement-breakpoint
INSERT INTO `search_names`(`search_names`, `rank`) VALUES ('secure-delete', 1);
--> statement-breakpoint
CREATE TRIGGER `search_docs_ai` AFTER INSERT ON `search_docs` BEGIN
	INSERT INTO `search_text`(rowid, title, body) VALUES (new.doc, new.title, new.body);
	INSERT INTO `search_names`(rowid, title) SELECT new.doc, new.title WHERE new.kind = 'file';
END;
--> statement-breakpoint
CREATE TRIGGER `search_docs_ad` AFTER DELETE ON `search_docs` BEGIN
	INSERT INTO `search_text`(`search_text`, rowid, title, body) VALUES ('delete', old.doc, old.title, old.body);
	INSERT INTO `search_names`(`search_names`, rowid, title) SELECT 'delete', old.doc, old.title WHERE old.kind = 'file';
END;
--> statement-breakpoint
CREATE TRIGGER `search_docs_au` AFTER UPDATE OF title, body ON `search_docs` BEGIN
	INSERT INTO `search_text`(`search_text`, rowid, title, body) VALUES ('delete', old.doc, old.title, old.body);
	INSERT INTO `search_text`(rowid, title, body) VALUES (new.doc, new.title, new.body);
	INSERT INTO `search_names`(`search_names`, rowid, title) SELECT 'delete', old.doc, old.title WHERE old.kind = 'file';
	INSERT INTO `search_names`(rowid, title) SELECT new.doc, new.title WHERE new.kind = 'file';
END;
--> statement-breakpoint
-- Rooms deleted whose messages are still in the index: searches leave them out, and a pass over the index
-- removes them in steps beside the other work (as chat removes the messages themselves).
CREATE TABLE `search_room_purges` (
	`room_id` text PRIMARY KEY NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
-- What an install already holds, oldest first, so `doc` follows creation time as it does from here on. The
-- characters 1 and 2 mark matches in excerpts: the indexed copy of a text holds U+FFFD in their place.
INSERT INTO `search_docs` (`kind`, `item_id`, `space_id`, `parent_id`, `created_at`, `title`, `body`, `version`)
SELECT kind, item_id, space_id, parent_id, created_at, title, body, version FROM (
	SELECT 'message' AS kind, m.id AS item_id, m.space_id, m.room_id AS parent_id, m.created_at, '' AS title, replace(replace(m.content, char(1), char(65533)), char(2), char(65533)) AS body, NULL AS version
	FROM `chat_messages` m JOIN `chat_rooms` r ON r.id = m.room_id
	WHERE m.deleted_at IS NULL AND r.deleted_at IS NULL AND m.content <> ''
	UNION ALL
	SELECT 'task', t.id, t.space_id, NULL, t.created_at, replace(replace(t.title, char(1), char(65533)), char(2), char(65533)), replace(replace(t.description, char(1), char(65533)), char(2), char(65533)), NULL FROM `tasks` t
	UNION ALL
	SELECT 'task_message', c.id, t.space_id, c.task_id, c.created_at, '', replace(replace(c.content, char(1), char(65533)), char(2), char(65533)), NULL
	FROM `task_messages` c JOIN `tasks` t ON t.id = c.task_id
	UNION ALL
	SELECT 'file', n.id, n.space_id, NULL, n.created_at, replace(replace(n.name, char(1), char(65533)), char(2), char(65533)), replace(replace(coalesce(d.text, ''), char(1), char(65533)), char(2), char(65533)), CASE WHEN d.node_id IS NULL THEN NULL ELSE n.checksum_sha256 END
	FROM `file_nodes` n LEFT JOIN `file_docs` d ON d.node_id = n.id
	WHERE n.deleted_at IS NULL
) ORDER BY created_at, item_id;
--> statement-breakpoint
-- How far new chat messages are indexed: `messages` is the time (epoch ms) of the last batch that committed; every
-- message stored before it is indexed, and one stored after has a `created_at` at or after it (a post is stamped
-- with the clock, or later). A start indexes the messages created since (less a margin) that a crash left out.
CREATE TABLE `search_state` (
	`name` text PRIMARY KEY NOT NULL,
	`value` integer NOT NULL
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `search_state` (`name`, `value`) VALUES ('messages', CAST(unixepoch('subsec') * 1000 AS INTEGER));
