DROP INDEX `chat_rooms_key_uq`;--> statement-breakpoint
ALTER TABLE `chat_rooms` ADD `deleted_at` integer;--> statement-breakpoint
CREATE INDEX `chat_rooms_deleted_idx` ON `chat_rooms` (`deleted_at`) WHERE "chat_rooms"."deleted_at" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX `chat_rooms_key_uq` ON `chat_rooms` (`space_id`,`name_key`) WHERE "chat_rooms"."deleted_at" is null;