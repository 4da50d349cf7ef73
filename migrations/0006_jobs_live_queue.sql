-- staff_activity no longer references jobs: a job's row leaves the table when the job ends, its activity stays.
-- jobs is keyed by its rowid (`seq`, the queue's order) with no index, and keeps only the live queue: the jobs
-- still queued or running are copied in the order they were queued (hand-edited: drizzle-kit copies every row
-- and a `seq` column the old table does not have).
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
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`staff_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
INSERT INTO `__new_staff_activity`("job_id", "org_id", "space_id", "staff_user_id", "trigger", "chat_room_id", "task_id", "source_message_id", "reply_message_id", "provider", "model", "status", "tool_calls", "prompt_tokens", "completion_tokens", "duration_ms", "error", "created_at", "started_at", "finished_at") SELECT "job_id", "org_id", "space_id", "staff_user_id", "trigger", "chat_room_id", "task_id", "source_message_id", "reply_message_id", "provider", "model", "status", "tool_calls", "prompt_tokens", "completion_tokens", "duration_ms", "error", "created_at", "started_at", "finished_at" FROM `staff_activity`;--> statement-breakpoint
DROP TABLE `staff_activity`;--> statement-breakpoint
ALTER TABLE `__new_staff_activity` RENAME TO `staff_activity`;--> statement-breakpoint
CREATE INDEX `staff_activity_org_idx` ON `staff_activity` (`org_id`,`created_at`,`job_id`);--> statement-breakpoint
CREATE INDEX `staff_activity_staff_idx` ON `staff_activity` (`staff_user_id`,`created_at`,`job_id`);--> statement-breakpoint
CREATE TABLE `__new_jobs` (
	`seq` integer PRIMARY KEY NOT NULL,
	`id` text NOT NULL,
	`kind` text NOT NULL,
	`payload` text NOT NULL,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`run_at` integer NOT NULL,
	`lease` text,
	`locked_until` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
INSERT INTO `__new_jobs`("id", "kind", "payload", "status", "attempts", "run_at", "lease", "locked_until", "last_error", "created_at", "updated_at") SELECT "id", "kind", "payload", "status", "attempts", "run_at", "lease", "locked_until", "last_error", "created_at", "updated_at" FROM `jobs` WHERE "status" IN ('queued', 'running') ORDER BY "created_at", "id";--> statement-breakpoint
DROP TABLE `jobs`;--> statement-breakpoint
ALTER TABLE `__new_jobs` RENAME TO `jobs`;