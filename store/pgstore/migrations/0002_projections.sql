-- Projections of the record log in the tables of the seed, written in the
-- transaction of the record they come from; Rebuild derives them again.

CREATE TABLE debates (
	id text PRIMARY KEY,
	debate_mode text NOT NULL,           -- the format's name: 'duelogic', 'formal', ...
	config jsonb NOT NULL,               -- the format's stored configuration
	proposition text NOT NULL,
	context text NOT NULL DEFAULT '',
	status text NOT NULL CHECK (status IN ('running', 'finished')),
	records bigint NOT NULL,             -- the Seq of the last record projected
	created_at timestamptz NOT NULL,     -- the first record's time
	updated_at timestamptz NOT NULL      -- the last record's time
);
CREATE INDEX debates_unfinished ON debates (created_at, id) WHERE status <> 'finished';

CREATE TABLE debate_chairs (
	debate_id text NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
	chair_position text NOT NULL,
	framework text NOT NULL,
	model_id text NOT NULL,
	model_display_name text,
	provider_name text,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (debate_id, chair_position)
);

CREATE TABLE utterances (
	debate_id text NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
	seq bigint NOT NULL,                 -- the record that holds it
	speaker text NOT NULL,
	kind text NOT NULL,
	segment text NOT NULL,
	exchange integer NOT NULL DEFAULT 0,
	content text NOT NULL,
	model text,
	interrupted boolean NOT NULL DEFAULT false,
	interrupted_by text,
	reply_to bigint,
	reason text,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (debate_id, seq)
);
CREATE INDEX utterances_speaker ON utterances (debate_id, speaker, seq);

CREATE TABLE response_evaluations (
	debate_id text NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
	seq bigint NOT NULL,                 -- the evaluation's record
	utterance_seq bigint,                -- the utterance evaluated
	speaker text NOT NULL,
	adherence_score integer CHECK (adherence_score BETWEEN 0 AND 100),
	steel_manning_attempted boolean,
	steel_manning_quality text,
	self_critique_attempted boolean,
	self_critique_quality text,
	framework_consistent boolean,
	evaluation_data jsonb NOT NULL,
	created_at timestamptz NOT NULL,
	PRIMARY KEY (debate_id, seq),
	FOREIGN KEY (debate_id, utterance_seq) REFERENCES utterances (debate_id, seq) ON DELETE CASCADE
);
CREATE INDEX response_evaluations_utterance ON response_evaluations (debate_id, utterance_seq);

CREATE TABLE chair_interruptions (
	debate_id text NOT NULL REFERENCES debates (id) ON DELETE CASCADE,
	seq bigint NOT NULL,                 -- the interruption's record
	utterance_seq bigint,                -- the utterance cut into
	interrupting_chair text NOT NULL,
	interrupted_chair text NOT NULL,
	trigger_reason text NOT NULL,
	trigger_content text,
	urgency numeric(3, 2),
	timestamp_ms bigint NOT NULL,        -- milliseconds since the debate's first record
	created_at timestamptz NOT NULL,
	PRIMARY KEY (debate_id, seq)
);
