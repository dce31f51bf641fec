-- 0006_client_seeds.sql (PostgreSQL): per-seat client seeds for the dice; games keep the dice
-- recipe they were created with (1 for games stored before, 2 for new ones, set by the game's
-- creation). The counterpart of migrations/0006_client_seeds.sql.
ALTER TABLE games ADD COLUMN dice_version BIGINT NOT NULL DEFAULT 1;
ALTER TABLE games ADD COLUMN dice_rolled BIGINT NOT NULL DEFAULT 0;
ALTER TABLE seats ADD COLUMN client_seed TEXT COLLATE "C";   -- public: anyone checking the rolls needs it
