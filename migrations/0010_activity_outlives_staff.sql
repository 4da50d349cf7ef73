PRAGMA foreign_keys=OFF;--> statement-breakpoint
CREATE TABLE `__new_staff_activity` (
	`job_id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`space_id` text NOT NULL,
	`staff_user_id` text,
	`trigger` text NOT NULL,
	`chat_room_id` text,
	`task_id` text,
	`source_message_id` text,
	`reply_message_id` text,
	`provider` text NOT NULL,
	`model` text NOT NULL,
	`status` text NOT NULL,
	`tool_calls` text NOT NULL,
	`prompt_tokens` integer DEFAULT 0 NOT NULL,
	`completion_tokens` integer DEFAULT 0 NOT NULL,
	`duration_ms` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_staff_activity`("job_id", "org_id", "space_id", "staff_user_id", "trigger", "chat_room_id", "task_id", "source_message_id", "reply_message_id", "provider", "model", "status", "tool_calls", "prompt_tokens", "completion_tokens", "duration_ms", "error", "created_at", "started_at", "finished_at") SELECT "job_id", "org_id", "space_id", "staff_user_id", "trigger", "chat_room_id", "task_id", "source_message_id", "reply_message_id", "provider", "model", "status", "tool_calls", "prompt_tokens", "completion_tokens", "duration_ms", "error", "created_at", "started_at", "finished_at" FROM `staff_activity`;--> statement-breakpoint
DROP TABLE `staff_activity`;--> statement-breakpoint
ALTER TABLE `__new_staff_activity` RENAME TO `staff_activity`;--> statement-breakpoint
PRAGMA foreign_keys=ON;--> statement-breakpoint
CREATE INDEX `staff_activity_org_idx` ON `staff_activity` (`org_id`,`created_at`,`job_id`);--> statement-breakpoint
CREATE INDEX `staff_activity_staff_idx` ON `staff_activity` (`staff_user_id`,`created_at`,`job_id`);