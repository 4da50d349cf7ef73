DROP INDEX `file_nodes_root_name_uq`;--> statement-breakpoint
DROP INDEX `file_nodes_child_name_uq`;--> statement-breakpoint
ALTER TABLE `file_nodes` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Existing rows: ASCII folding is the best SQL can do; new names are folded by the app.
UPDATE `file_nodes` SET `name_key` = lower(`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `file_nodes_root_key_uq` ON `file_nodes` (`space_id`,`name_key`) WHERE "file_nodes"."deleted_at" IS NULL AND "file_nodes"."parent_id" IS NULL;--> statement-breakpoint
CREATE UNIQUE INDEX `file_nodes_child_key_uq` ON `file_nodes` (`parent_id`,`name_key`) WHERE "file_nodes"."deleted_at" IS NULL AND "file_nodes"."parent_id" IS NOT NULL;--> statement-breakpoint
CREATE INDEX `file_nodes_created_by_idx` ON `file_nodes` (`created_by`);--> statement-breakpoint
DROP INDEX `roles_org_name_uq`;--> statement-breakpoint
ALTER TABLE `roles` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Existing rows: ASCII folding is the best SQL can do; new names are folded by the app.
UPDATE `roles` SET `name_key` = lower(`name`);--> statement-breakpoint
CREATE UNIQUE INDEX `roles_org_key_uq` ON `roles` (`org_id`,`name_key`);--> statement-breakpoint
DROP INDEX `chat_rooms_space_idx`;--> statement-breakpoint
ALTER TABLE `chat_rooms` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Existing rows: ASCII folding is the best SQL can do; new names are folded by the app.
UPDATE `chat_rooms` SET `name_key` = lower(`name`);--> statement-breakpoint
CREATE INDEX `chat_rooms_created_by_idx` ON `chat_rooms` (`created_by`);--> statement-breakpoint
CREATE UNIQUE INDEX `chat_rooms_key_uq` ON `chat_rooms` (`space_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `chat_rooms_space_idx` ON `chat_rooms` (`space_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `invites_org_idx`;--> statement-breakpoint
CREATE INDEX `invites_created_by_idx` ON `invites` (`created_by`);--> statement-breakpoint
CREATE INDEX `invites_accepted_by_idx` ON `invites` (`accepted_by`);--> statement-breakpoint
CREATE INDEX `invites_org_idx` ON `invites` (`org_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `signup_requests_org_idx`;--> statement-breakpoint
CREATE INDEX `signup_requests_resolved_by_idx` ON `signup_requests` (`resolved_by`);--> statement-breakpoint
CREATE INDEX `signup_requests_org_idx` ON `signup_requests` (`org_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `spaces_org_idx`;--> statement-breakpoint
CREATE INDEX `spaces_created_by_idx` ON `spaces` (`created_by`);--> statement-breakpoint
CREATE INDEX `spaces_org_idx` ON `spaces` (`org_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `service_accounts_org_idx`;--> statement-breakpoint
ALTER TABLE `service_accounts` ADD `name_key` text DEFAULT '' NOT NULL;--> statement-breakpoint
-- Existing rows: ASCII folding is the best SQL can do; new names are folded by the app.
UPDATE `service_accounts` SET `name_key` = lower(`name`);--> statement-breakpoint
CREATE INDEX `service_accounts_created_by_idx` ON `service_accounts` (`created_by`);--> statement-breakpoint
CREATE UNIQUE INDEX `service_accounts_key_uq` ON `service_accounts` (`org_id`,`name_key`);--> statement-breakpoint
CREATE INDEX `service_accounts_org_idx` ON `service_accounts` (`org_id`,`created_at`,`id`);--> statement-breakpoint
DROP INDEX `tasks_assignee_idx`;--> statement-breakpoint
CREATE INDEX `tasks_created_by_idx` ON `tasks` (`created_by`);--> statement-breakpoint
CREATE INDEX `tasks_assignee_idx` ON `tasks` (`assignee_user_id`,`updated_at`,`id`);--> statement-breakpoint
CREATE INDEX `chat_messages_author_idx` ON `chat_messages` (`author_user_id`);--> statement-breakpoint
CREATE INDEX `chat_reactions_user_idx` ON `chat_reactions` (`user_id`);--> statement-breakpoint
CREATE INDEX `task_deliverables_added_by_idx` ON `task_deliverables` (`added_by`);--> statement-breakpoint
CREATE INDEX `task_messages_author_idx` ON `task_messages` (`author_user_id`);--> statement-breakpoint
ALTER TABLE `blobs` DROP COLUMN `complete`;