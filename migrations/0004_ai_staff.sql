CREATE TABLE `automations` (
	`id` text PRIMARY KEY NOT NULL,
	`org_id` text NOT NULL,
	`space_id` text NOT NULL,
	`name` text NOT NULL,
	`kind` text NOT NULL,
	`config` text NOT NULL,
	`status` text NOT NULL,
	`oauth_token_ciphertext` text,
	`created_by_user_id` text,
	`created_by_service_account_id` text,
	`reviewed_by_user_id` text,
	`reviewed_at` integer,
	`rejection_reason` text,
	`last_run_at` integer,
	`last_error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`created_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`created_by_service_account_id`) REFERENCES `service_accounts`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`reviewed_by_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `automations_space_idx` ON `automations` (`space_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `automations_org_status_idx` ON `automations` (`org_id`,`status`);--> statement-breakpoint
CREATE INDEX `automations_created_by_user_idx` ON `automations` (`created_by_user_id`);--> statement-breakpoint
CREATE INDEX `automations_created_by_sa_idx` ON `automations` (`created_by_service_account_id`);--> statement-breakpoint
CREATE INDEX `automations_reviewed_by_idx` ON `automations` (`reviewed_by_user_id`);--> statement-breakpoint
CREATE TABLE `file_proposals` (
	`id` text PRIMARY KEY NOT NULL,
	`space_id` text NOT NULL,
	`node_id` text NOT NULL,
	`author_user_id` text,
	`base_content_sha256` text NOT NULL,
	`proposed_content` text NOT NULL,
	`note` text NOT NULL,
	`status` text NOT NULL,
	`created_at` integer NOT NULL,
	`resolved_at` integer,
	`resolved_by` text,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`node_id`) REFERENCES `file_nodes`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`author_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null,
	FOREIGN KEY (`resolved_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `file_proposals_node_idx` ON `file_proposals` (`node_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `file_proposals_author_idx` ON `file_proposals` (`author_user_id`);--> statement-breakpoint
CREATE INDEX `file_proposals_resolved_by_idx` ON `file_proposals` (`resolved_by`);--> statement-breakpoint
CREATE TABLE `integrations` (
	`org_id` text NOT NULL,
	`provider` text NOT NULL,
	`key_ciphertext` text NOT NULL,
	`key_hint` text NOT NULL,
	`updated_by` text,
	`updated_at` integer NOT NULL,
	PRIMARY KEY(`org_id`, `provider`),
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `integrations_updated_by_idx` ON `integrations` (`updated_by`);--> statement-breakpoint
CREATE TABLE `jobs` (
	`id` text PRIMARY KEY NOT NULL,
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
CREATE INDEX `jobs_status_run_idx` ON `jobs` (`status`,`run_at`);--> statement-breakpoint
CREATE TABLE `staff_activity` (
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
	FOREIGN KEY (`job_id`) REFERENCES `jobs`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`org_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`staff_user_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `staff_activity_org_idx` ON `staff_activity` (`org_id`,`created_at`,`job_id`);--> statement-breakpoint
CREATE INDEX `staff_activity_staff_idx` ON `staff_activity` (`staff_user_id`,`created_at`,`job_id`);--> statement-breakpoint
CREATE TABLE `space_git_links` (
	`space_id` text PRIMARY KEY NOT NULL,
	`repo_url` text NOT NULL,
	`ref` text NOT NULL,
	`updated_by` text,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`space_id`) REFERENCES `spaces`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`updated_by`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE INDEX `space_git_links_updated_by_idx` ON `space_git_links` (`updated_by`);