PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_file_nodes` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`parent_id` text,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`name_key` text DEFAULT '' NOT NULL,
	`storage` text,
	`blob_id` text,
	`mime_type` text,
	`size_bytes` integer,
	`checksum_sha256` text,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`deleted_at` integer,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`parent_id`) REFERENCES `file_nodes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`blob_id`) REFERENCES `blobs`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
INSERT INTO `__new_file_nodes`("id", "space_id", "parent_id", "kind", "name", "name_key", "storage", "blob_id", "mime_type", "size_bytes", "checksum_sha256", "created_by", "created_at", "updated_at", "deleted_at") SELECT "id", "space_id", "parent_id", "kind", "name", "name_key", "storage", "blob_id", "mime_type", "size_bytes", "checksum_sha256", "created_by", "created_at", "updated_at", "deleted_at" FROM `file_nodes`;--> statement-breakpoint
DROP TABLE `file_nodes`;--> statement-breakpoint
ALTER TABLE `__new_file_nodes` RENAME TO `file_nodes`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE UNIQUE INDEX `file_nodes_root_key_uq` ON `file_nodes` (`space_id`,`name_key`) WHERE "file_nodes"."deleted_at" IS NULL AND "file_nodes"."parent_id" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `file_nodes_child_key_uq` ON `file_nodes` (`parent_id`,`name_key`) WHERE "file_nodes"."deleted_at" IS NULL AND "file_nodes"."parent_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `file_nodes_space_live_idx` ON `file_nodes` (`space_id`) WHERE "file_nodes"."deleted_at" IS NULL;--> statement-breakpoint
CREATE INDEX `file_nodes_parent_idx` ON `file_nodes` (`parent_id`);--> statement-breakpoint
CREATE INDEX `file_nodes_blob_idx` ON `file_nodes` (`blob_id`);--> statement-breakpoint
CREATE TABLE `__new_task_deliverables` (
	`task_id` text NOT NULL,
	`file_node_id` text NOT NULL,
	`added_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`task_id`, `file_node_id`),
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`file_node_id`) REFERENCES `file_nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_task_deliverables`("task_id", "file_node_id", "added_by", "created_at") SELECT "task_id", "file_node_id", "added_by", "created_at" FROM `task_deliverables`;--> statement-breakpoint
DROP TABLE `task_deliverables`;--> statement-breakpoint
ALTER TABLE `__new_task_deliverables` RENAME TO `task_deliverables`;--> statement-breakpoint
CREATE INDEX `task_deliverables_file_idx` ON `task_deliverables` (`file_node_id`);--> statement-breakpoint
CREATE TABLE `__new_task_messages` (
	`id` text PRIMARY KEY NOT NULL,
	`task_id` text NOT NULL,
	`author_user_id` text,
	`content` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`task_id`) REFERENCES `tasks`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_task_messages`("id", "task_id", "author_user_id", "content", "created_at") SELECT "id", "task_id", "author_user_id", "content", "created_at" FROM `task_messages`;--> statement-breakpoint
DROP TABLE `task_messages`;--> statement-breakpoint
ALTER TABLE `__new_task_messages` RENAME TO `task_messages`;--> statement-breakpoint
CREATE INDEX `task_messages_task_idx` ON `task_messages` (`task_id`,`created_at`,`id`);