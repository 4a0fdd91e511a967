CREATE TABLE IF NOT EXISTS "debates" (
	"id" text NOT NULL DEFAULT '',
	"format" text NOT NULL DEFAULT '',
	"debate_mode" text NOT NULL DEFAULT '',
	"status" text NOT NULL DEFAULT '',
	"proposition" text NOT NULL DEFAULT '',
	"context" text NOT NULL DEFAULT '',
	"config" jsonb NOT NULL DEFAULT '{}'::jsonb,
	"duelogic_config" jsonb,
	"fork_of" text,
	"fork_at" bigint,
	"unattended" boolean NOT NULL DEFAULT false,
	"records" bigint NOT NULL DEFAULT 0,
	"verdict_winner" text,
	"verdict_draw" boolean,
	"verdict_void" boolean,
	"verdict_summary" text,
	"prompt_tokens" bigint,
	"completion_tokens" bigint,
	"cost" double precision,
	"created_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	"started_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	"updated_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	"ended_at" timestamptz,
	PRIMARY KEY ("id")
);

CREATE INDEX IF NOT EXISTS "debates_format_started_at" ON "debates" ("format", "started_at");

CREATE INDEX IF NOT EXISTS "debates_status_created_at" ON "debates" ("status", "created_at");

CREATE TABLE IF NOT EXISTS "utterances" (
	"debate_id" text NOT NULL DEFAULT '',
	"seq" bigint NOT NULL DEFAULT 0,
	"speaker" text NOT NULL DEFAULT '',
	"kind" text NOT NULL DEFAULT '',
	"segment" text NOT NULL DEFAULT '',
	"exchange" bigint NOT NULL DEFAULT 0,
	"round" bigint NOT NULL DEFAULT 0,
	"content" text NOT NULL DEFAULT '',
	"model" text,
	"interrupted" boolean NOT NULL DEFAULT false,
	"interrupted_by" text,
	"cut" boolean NOT NULL DEFAULT false,
	"truncated" boolean NOT NULL DEFAULT false,
	"defaulted" boolean NOT NULL DEFAULT false,
	"reply_to" bigint,
	"reason" text,
	"violation" text,
	"target" text,
	"created_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq")
);

CREATE INDEX IF NOT EXISTS "utterances_debate_id_speaker_seq" ON "utterances" ("debate_id", "speaker", "seq");

CREATE TABLE IF NOT EXISTS "judgments" (
	"debate_id" text NOT NULL DEFAULT '',
	"seq" bigint NOT NULL DEFAULT 0,
	"purpose" text NOT NULL DEFAULT '',
	"step" text NOT NULL DEFAULT '',
	"speaker" text,
	"first" bigint NOT NULL DEFAULT 0,
	"reasked" bigint NOT NULL DEFAULT 0,
	"defaulted" bigint NOT NULL DEFAULT 0,
	"truncated" bigint NOT NULL DEFAULT 0,
	"created_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq", "purpose")
);

CREATE INDEX IF NOT EXISTS "judgments_purpose_debate_id" ON "judgments" ("purpose", "debate_id");

CREATE TABLE IF NOT EXISTS "debate_chairs" (
	"debate_id" text NOT NULL DEFAULT '',
	"chair_position" text NOT NULL DEFAULT '',
	"framework" text NOT NULL DEFAULT '',
	"model_id" text NOT NULL DEFAULT '',
	"model_display_name" text,
	"provider_name" text,
	"created_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "chair_position")
);

CREATE TABLE IF NOT EXISTS "response_evaluations" (
	"debate_id" text NOT NULL DEFAULT '',
	"seq" bigint NOT NULL DEFAULT 0,
	"utterance_seq" bigint,
	"speaker" text NOT NULL DEFAULT '',
	"adherence_score" bigint,
	"steel_manning_attempted" boolean,
	"steel_manning_quality" text,
	"self_critique_attempted" boolean,
	"self_critique_quality" text,
	"framework_consistent" boolean,
	"evaluation_data" jsonb NOT NULL DEFAULT '{}'::jsonb,
	"created_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq")
);

CREATE INDEX IF NOT EXISTS "response_evaluations_debate_id_utterance_seq" ON "response_evaluations" ("debate_id", "utterance_seq");

CREATE TABLE IF NOT EXISTS "chair_interruptions" (
	"debate_id" text NOT NULL DEFAULT '',
	"seq" bigint NOT NULL DEFAULT 0,
	"utterance_seq" bigint,
	"interrupting_chair" text NOT NULL DEFAULT '',
	"interrupted_chair" text NOT NULL DEFAULT '',
	"trigger_reason" text NOT NULL DEFAULT '',
	"trigger_content" text,
	"urgency" double precision,
	"timestamp_ms" bigint NOT NULL DEFAULT 0,
	"created_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq")
);

CREATE TABLE IF NOT EXISTS "formal_entries" (
	"debate_id" text NOT NULL DEFAULT '',
	"entry_seq" bigint NOT NULL DEFAULT 0,
	"record_seq" bigint NOT NULL DEFAULT 0,
	"timestamp" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	"phase" text NOT NULL DEFAULT '',
	"speaker" text NOT NULL DEFAULT '',
	"type" text NOT NULL DEFAULT '',
	"content" text NOT NULL DEFAULT '',
	"sources" bigint NOT NULL DEFAULT 0,
	"rebuttal_to_seq" bigint,
	"target_seq" bigint,
	"redacted" boolean NOT NULL DEFAULT false,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "entry_seq")
);

CREATE INDEX IF NOT EXISTS "formal_entries_debate_id_speaker_entry_seq" ON "formal_entries" ("debate_id", "speaker", "entry_seq");

CREATE TABLE IF NOT EXISTS "formal_sources" (
	"debate_id" text NOT NULL DEFAULT '',
	"entry_seq" bigint NOT NULL DEFAULT 0,
	"source_index" bigint NOT NULL DEFAULT 0,
	"url" text NOT NULL DEFAULT '',
	"title" text NOT NULL DEFAULT '',
	"accessed" text NOT NULL DEFAULT '',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "entry_seq", "source_index")
);

CREATE TABLE IF NOT EXISTS "formal_verifications" (
	"debate_id" text NOT NULL DEFAULT '',
	"entry_seq" bigint NOT NULL DEFAULT 0,
	"source_index" bigint NOT NULL DEFAULT 0,
	"record_seq" bigint NOT NULL DEFAULT 0,
	"url" text NOT NULL DEFAULT '',
	"status" text NOT NULL DEFAULT '',
	"reason" text NOT NULL DEFAULT '',
	"verified_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "entry_seq", "source_index")
);

CREATE INDEX IF NOT EXISTS "formal_verifications_status_debate_id" ON "formal_verifications" ("status", "debate_id");

CREATE TABLE IF NOT EXISTS "debate_rounds" (
	"debate_id" text NOT NULL DEFAULT '',
	"round" bigint NOT NULL DEFAULT 0,
	"arguments" jsonb NOT NULL DEFAULT '[]'::jsonb,
	"rebuttals" jsonb NOT NULL DEFAULT '[]'::jsonb,
	"opening" text,
	"judgment" text,
	"converging" boolean,
	"stagnating" boolean,
	"new_ground" boolean,
	"clear_winner" text,
	"end_reason" text,
	"judgment_data" jsonb,
	"decision" text,
	"guidance" text,
	"decision_auto" boolean,
	"started_at" timestamptz,
	"judged_at" timestamptz,
	"decided_at" timestamptz,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "round")
);

CREATE TABLE IF NOT EXISTS "moderated_decisions" (
	"debate_id" text NOT NULL DEFAULT '',
	"title" text,
	"rounds" bigint,
	"recommendation" text,
	"confidence" text,
	"end_reason" text,
	"dissent" text,
	"synthesis" jsonb,
	"approval" text,
	"approval_note" text,
	"workflow_created" boolean,
	"decided_at" timestamptz,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id")
);

CREATE TABLE IF NOT EXISTS "moderated_perspectives" (
	"debate_id" text NOT NULL DEFAULT '',
	"perspective" text NOT NULL DEFAULT '',
	"position" bigint NOT NULL DEFAULT 0,
	"name" text NOT NULL DEFAULT '',
	"priorities" jsonb,
	"trade_offs" text,
	"model" text,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "perspective")
);

CREATE TABLE IF NOT EXISTS "persuasion_moves" (
	"debate_id" text NOT NULL DEFAULT '',
	"seq" bigint NOT NULL DEFAULT 0,
	"position" bigint NOT NULL DEFAULT 0,
	"move_id" text,
	"round" bigint NOT NULL DEFAULT 0,
	"phase" text NOT NULL DEFAULT '',
	"side" text NOT NULL DEFAULT '',
	"speaker" text NOT NULL DEFAULT '',
	"act" text NOT NULL DEFAULT '',
	"proposition" text NOT NULL DEFAULT '',
	"reasons" jsonb,
	"target" text,
	"attack" text,
	"text" text,
	"challenge" boolean NOT NULL DEFAULT false,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq", "position")
);

CREATE INDEX IF NOT EXISTS "persuasion_moves_debate_id_move_id" ON "persuasion_moves" ("debate_id", "move_id");

CREATE TABLE IF NOT EXISTS "persuasion_commitments" (
	"debate_id" text NOT NULL DEFAULT '',
	"speaker" text NOT NULL DEFAULT '',
	"proposition" text NOT NULL DEFAULT '',
	"committed" boolean NOT NULL DEFAULT false,
	"move_id" text,
	"seq" bigint NOT NULL DEFAULT 0,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "speaker", "proposition")
);

CREATE TABLE IF NOT EXISTS "persuasion_arguments" (
	"debate_id" text NOT NULL DEFAULT '',
	"argument_id" text NOT NULL DEFAULT '',
	"side" text NOT NULL DEFAULT '',
	"text" text NOT NULL DEFAULT '',
	"move_id" text,
	"base" double precision NOT NULL DEFAULT 0,
	"strength" double precision NOT NULL DEFAULT 0,
	"surviving" boolean NOT NULL DEFAULT false,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "argument_id")
);

CREATE INDEX IF NOT EXISTS "persuasion_arguments_debate_id_strength" ON "persuasion_arguments" ("debate_id", "strength");

CREATE TABLE IF NOT EXISTS "scored_rounds" (
	"debate_id" text NOT NULL DEFAULT '',
	"round" bigint NOT NULL DEFAULT 0,
	"category" text NOT NULL DEFAULT '',
	"winner" text NOT NULL DEFAULT '',
	"reasoning" text NOT NULL DEFAULT '',
	"key_points" jsonb,
	"confidence" double precision NOT NULL DEFAULT 0,
	"defaulted" boolean NOT NULL DEFAULT false,
	"pre_score" double precision NOT NULL DEFAULT 0,
	"post_score" double precision NOT NULL DEFAULT 0,
	"delta" double precision NOT NULL DEFAULT 0,
	"record_seq" bigint NOT NULL DEFAULT 0,
	"created_at" timestamptz NOT NULL DEFAULT '0001-01-01 00:00:00+00',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "round")
);

CREATE TABLE IF NOT EXISTS "scored_scores" (
	"debate_id" text NOT NULL DEFAULT '',
	"category" text NOT NULL DEFAULT '',
	"pre" double precision,
	"post" double precision,
	"adjustment" double precision,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "category")
);
