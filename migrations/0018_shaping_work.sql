CREATE TABLE `file_versions` (
	`id` text PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`size_bytes` integer NOT NULL,
	`checksum_sha256` text NOT NULL,
	`author_user_ids` text DEFAULT '[]' NOT NULL,
	`content` blob NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `file_nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `file_versions_node_idx` ON `file_versions` (`node_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `labels` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`name` text NOT NULL,
	`color` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `labels_space_idx` ON `labels` (`space_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `task_labels` (
	`task_id` text NOT NULL,
	`label_id` text NOT NULL,
	PRIMARY KEY(`task_id`, `label_id`),
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`label_id`) REFERENCES `labels`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `task_labels_label_idx` ON `task_labels` (`label_id`);--> statement-breakpoint
ALTER TABLE `chat_messages` ADD `thread_root_id` text;--> statement-breakpoint
ALTER TABLE `chat_messages` ADD `also_in_room` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `chat_messages` ADD `reply_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `chat_messages` ADD `last_reply_at` integer;--> statement-breakpoint
CREATE INDEX `chat_messages_thread_idx` ON `chat_messages` (`thread_root_id`,`created_at`,`id`) WHERE "chat_messages"."thread_root_id" is not null;--> statement-breakpoint
ALTER TABLE `board_columns` ADD `wip_limit` integer;--> statement-breakpoint
ALTER TABLE `service_accounts` ADD `instructions` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `tasks` ADD `priority` text DEFAULT 'none' NOT NULL;--> statement-breakpoint
ALTER TABLE `tasks` ADD `comment_count` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Added by hand: the comments of the tasks already there, counted once.
UPDATE `tasks` SET `comment_count` = (SELECT count(*) FROM `task_messages` m WHERE m.`task_id` = `tasks`.`id`);
