-- 0006: per-seat client seeds for the dice. A game keeps the dice recipe it was created with:
-- games stored before this migration keep version 1 (the server seed alone); new games use
-- version 2, whose rolls also take every seat's client seed. dice_rolled is set at a game's first
-- roll, after which its client seeds are fixed; version 1 games take no client seeds, so theirs
-- is not back-filled.
ALTER TABLE games ADD COLUMN dice_version INTEGER NOT NULL DEFAULT 1;
ALTER TABLE games ADD COLUMN dice_rolled INTEGER NOT NULL DEFAULT 0;
ALTER TABLE seats ADD COLUMN client_seed TEXT;   -- public: anyone checking the rolls needs it
