-- Migration 2: positions is derived from moves instead of stored. Every game
-- that reaches a position plays exactly one recorded move there, so a
-- position's games are the sum of its moves' games; storing them again doubled
-- the rows every write and merge had to place in the B-trees. See doc.go.
DROP TABLE positions;

CREATE VIEW positions (key, games) AS
    SELECT key, sum(games) FROM moves GROUP BY key;
