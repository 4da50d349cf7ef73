CREATE TABLE `automation_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`automation_id` text NOT NULL,
	`space_id` text NOT NULL,
	`trigger` text NOT NULL,
	`status` text NOT NULL,
	`attempt` integer NOT NULL,
	`input` text,
	`output` text,
	`error` text,
	`started_at` integer,
	`finished_at` integer,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `automation_runs_automation_idx` ON `automation_runs` (`automation_id`,`created_at`,`id`);--> statement-breakpoint
CREATE TABLE `webhook_deliveries` (
	`automation_id` text NOT NULL,
	`delivery_id` text NOT NULL,
	`run_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`automation_id`, `delivery_id`),
	FOREIGN KEY (`automation_id`) REFERENCES `automations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `webhook_deliveries_created_idx` ON `webhook_deliveries` (`created_at`);--> statement-breakpoint
ALTER TABLE `automations` ADD `next_run_at` integer;--> statement-breakpoint
ALTER TABLE `automations` ADD `config_problem` text;--> statement-breakpoint
ALTER TABLE `automations` ADD `webhook_secret_ciphertext` text;--> statement-breakpoint
CREATE INDEX `automations_next_run_idx` ON `automations` (`next_run_at`) WHERE "automations"."next_run_at" is not null;--> statement-breakpoint
-- By hand: drizzle-kit leaves out the ON DELETE of a column added with a reference; an automation deleted
-- leaves its messages without it (set null), as their author's deletion does.
ALTER TABLE `chat_messages` ADD `automation_id` text REFERENCES automations(id) ON DELETE SET NULL;--> statement-breakpoint
CREATE INDEX `chat_messages_automation_idx` ON `chat_messages` (`automation_id`) WHERE "chat_messages"."automation_id" is not null;