-- Hand-written (drizzle-kit cannot declare WITHOUT ROWID): chat_reactions is stored in its primary key's B-tree,
-- so adding a reaction (a staff member's 💭 in the transaction of the message that mentions it) writes one B-tree
-- fewer. Same columns, keys and index as drizzle-kit's schema. drizzle-kit's table-recreate migrations write a
-- plain CREATE TABLE: one that recreates chat_reactions must add WITHOUT ROWID again by hand.
CREATE TABLE `__new_chat_reactions` (
	`message_id` text NOT NULL,
	`user_id` text NOT NULL,
	`emoji` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`message_id`, `user_id`, `emoji`),
	FOREIGN KEY (`message_id`) REFERENCES `chat_messages`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
INSERT INTO `__new_chat_reactions`("message_id", "user_id", "emoji", "created_at") SELECT "message_id", "user_id", "emoji", "created_at" FROM `chat_reactions`;--> statement-breakpoint
DROP TABLE `chat_reactions`;--> statement-breakpoint
ALTER TABLE `__new_chat_reactions` RENAME TO `chat_reactions`;--> statement-breakpoint
CREATE INDEX `chat_reactions_user_idx` ON `chat_reactions` (`user_id`);
