-- Migration 4: the learning loop v2. teacher_games holds the training
-- samples of the loop one game per row (gen, game): every stone in play
-- order, how many came from the opening, the teacher's choice for each ply
-- after it and the winner (0 draw, 1 Black, 2 White). Points are one byte
-- each (y*15+x). Rows are inserted once (the primary key) and prune never
-- touches them. generations.details holds the loop's measurements of a
-- generation as JSON.
CREATE TABLE teacher_games (
    gen     INTEGER NOT NULL,
    game    INTEGER NOT NULL,
    book    INTEGER NOT NULL,
    winner  INTEGER NOT NULL,
    moves   BLOB    NOT NULL,
    teacher BLOB    NOT NULL,
    PRIMARY KEY (gen, game)
) WITHOUT ROWID;
ALTER TABLE generations ADD COLUMN details TEXT NOT NULL DEFAULT '';
