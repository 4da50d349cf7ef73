CREATE TABLE `chat_read_states` (
	`user_id` text NOT NULL,
	`room_id` text NOT NULL,
	`message_id` text NOT NULL,
	`message_created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`user_id`, `room_id`),
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`room_id`) REFERENCES `chat_rooms`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `chat_read_states_room_idx` ON `chat_read_states` (`room_id`);--> statement-breakpoint
CREATE TABLE `inbox_items` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`kind` text NOT NULL,
	`space_id` text NOT NULL,
	`actor_user_id` text,
	`chat_room_id` text,
	`message_id` text,
	`task_id` text,
	`automation_id` text,
	`proposal_id` text,
	`summary` text NOT NULL,
	`read_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `inbox_items_user_idx` ON `inbox_items` (`user_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `inbox_items_unread_idx` ON `inbox_items` (`user_id`,`chat_room_id`) WHERE "inbox_items"."read_at" is null;--> statement-breakpoint
CREATE INDEX `inbox_items_message_idx` ON `inbox_items` (`message_id`) WHERE "inbox_items"."message_id" is not null;--> statement-breakpoint
CREATE INDEX `inbox_items_task_idx` ON `inbox_items` (`task_id`) WHERE "inbox_items"."task_id" is not null;--> statement-breakpoint
CREATE INDEX `inbox_items_room_idx` ON `inbox_items` (`chat_room_id`) WHERE "inbox_items"."chat_room_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX `inbox_items_automation_uq` ON `inbox_items` (`automation_id`,`user_id`) WHERE "inbox_items"."automation_id" IS NOT NULL AND "inbox_items"."kind" = 'approval';--> statement-breakpoint
CREATE UNIQUE INDEX `inbox_items_proposal_uq` ON `inbox_items` (`proposal_id`,`user_id`) WHERE "inbox_items"."proposal_id" IS NOT NULL AND "inbox_items"."kind" = 'approval';--> statement-breakpoint
CREATE TABLE `notification_settings` (
	`org_id` text NOT NULL,
	`user_id` text NOT NULL,
	`email` text NOT NULL,
	`desktop` text NOT NULL,
	`muted_space_ids` text NOT NULL,
	`muted_room_ids` text NOT NULL,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `user_id`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `notification_settings_user_idx` ON `notification_settings` (`user_id`);