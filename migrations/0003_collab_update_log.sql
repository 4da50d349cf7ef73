CREATE TABLE `file_doc_updates` (
	`seq` integer PRIMARY KEY NOT NULL,
	`node_id` text NOT NULL,
	`data` blob NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`node_id`) REFERENCES `file_nodes`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `file_doc_updates_node_idx` ON `file_doc_updates` (`node_id`,`seq`);