-- The record log: the source of truth. One row per record; the database
-- keeps each debate's sequence whole: seq is unique per debate, starts at 1,
-- and a record can only follow the one before it (records_prev_fkey).
CREATE TABLE records (
	debate_id text NOT NULL,
	seq bigint NOT NULL CHECK (seq >= 1),
	prev_seq bigint GENERATED ALWAYS AS (NULLIF(seq - 1, 0)) STORED,
	type text NOT NULL,
	-- time is the record's Time in RFC 3339 with nanoseconds and its offset.
	time text NOT NULL,
	-- data is the record's Data byte for byte (json keeps its text).
	data json NOT NULL,
	stored_at timestamptz NOT NULL DEFAULT now(),
	CONSTRAINT records_pkey PRIMARY KEY (debate_id, seq),
	CONSTRAINT records_prev_fkey FOREIGN KEY (debate_id, prev_seq) REFERENCES records (debate_id, seq)
);

-- Every debate with records has a record 1: Debates lists them from here.
CREATE INDEX records_first ON records (debate_id COLLATE "C") WHERE seq = 1;
