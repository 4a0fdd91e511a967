-- Projections of every format, one definition shared with the other SQL
-- stores (package store/sqlproj): after the migrations, pgstore creates the
-- tables of that definition that are missing (the formats' own tables, the
-- judgments table) and adds the columns missing from the tables of 0002
-- (debates.format, debates.duelogic_config, the verdict, utterances.cut, ...),
-- and then rebuilds every debate's projections from its log. Existing columns
-- keep their names: debates.config still holds every format's configuration,
-- and debates.duelogic_config (seed 000's name) holds the podcast's.

-- The records whose projection failed: the record is stored, its rows are
-- not; Rebuild clears the debate's faults when it succeeds.
CREATE TABLE projection_faults (
	debate_id text NOT NULL,
	seq bigint NOT NULL,
	error text NOT NULL,
	at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (debate_id, seq)
);
