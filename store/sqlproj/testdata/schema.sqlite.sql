CREATE TABLE IF NOT EXISTS "debates" (
	"id" TEXT NOT NULL DEFAULT '',
	"format" TEXT NOT NULL DEFAULT '',
	"debate_mode" TEXT NOT NULL DEFAULT '',
	"status" TEXT NOT NULL DEFAULT '',
	"proposition" TEXT NOT NULL DEFAULT '',
	"context" TEXT NOT NULL DEFAULT '',
	"config" TEXT NOT NULL DEFAULT '{}',
	"duelogic_config" TEXT,
	"fork_of" TEXT,
	"fork_at" INTEGER,
	"unattended" INTEGER NOT NULL DEFAULT 0,
	"records" INTEGER NOT NULL DEFAULT 0,
	"verdict_winner" TEXT,
	"verdict_draw" INTEGER,
	"verdict_void" INTEGER,
	"verdict_summary" TEXT,
	"prompt_tokens" INTEGER,
	"completion_tokens" INTEGER,
	"cost" REAL,
	"created_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	"started_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	"updated_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	"ended_at" TEXT,
	PRIMARY KEY ("id")
);

CREATE INDEX IF NOT EXISTS "debates_format_started_at" ON "debates" ("format", "started_at");

CREATE INDEX IF NOT EXISTS "debates_status_created_at" ON "debates" ("status", "created_at");

CREATE TABLE IF NOT EXISTS "utterances" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"seq" INTEGER NOT NULL DEFAULT 0,
	"speaker" TEXT NOT NULL DEFAULT '',
	"kind" TEXT NOT NULL DEFAULT '',
	"segment" TEXT NOT NULL DEFAULT '',
	"exchange" INTEGER NOT NULL DEFAULT 0,
	"round" INTEGER NOT NULL DEFAULT 0,
	"content" TEXT NOT NULL DEFAULT '',
	"model" TEXT,
	"interrupted" INTEGER NOT NULL DEFAULT 0,
	"interrupted_by" TEXT,
	"cut" INTEGER NOT NULL DEFAULT 0,
	"truncated" INTEGER NOT NULL DEFAULT 0,
	"defaulted" INTEGER NOT NULL DEFAULT 0,
	"reply_to" INTEGER,
	"reason" TEXT,
	"violation" TEXT,
	"target" TEXT,
	"created_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq")
);

CREATE INDEX IF NOT EXISTS "utterances_debate_id_speaker_seq" ON "utterances" ("debate_id", "speaker", "seq");

CREATE TABLE IF NOT EXISTS "judgments" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"seq" INTEGER NOT NULL DEFAULT 0,
	"purpose" TEXT NOT NULL DEFAULT '',
	"step" TEXT NOT NULL DEFAULT '',
	"speaker" TEXT,
	"first" INTEGER NOT NULL DEFAULT 0,
	"reasked" INTEGER NOT NULL DEFAULT 0,
	"defaulted" INTEGER NOT NULL DEFAULT 0,
	"truncated" INTEGER NOT NULL DEFAULT 0,
	"created_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq", "purpose")
);

CREATE INDEX IF NOT EXISTS "judgments_purpose_debate_id" ON "judgments" ("purpose", "debate_id");

CREATE TABLE IF NOT EXISTS "debate_chairs" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"chair_position" TEXT NOT NULL DEFAULT '',
	"framework" TEXT NOT NULL DEFAULT '',
	"model_id" TEXT NOT NULL DEFAULT '',
	"model_display_name" TEXT,
	"provider_name" TEXT,
	"created_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "chair_position")
);

CREATE TABLE IF NOT EXISTS "response_evaluations" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"seq" INTEGER NOT NULL DEFAULT 0,
	"utterance_seq" INTEGER,
	"speaker" TEXT NOT NULL DEFAULT '',
	"adherence_score" INTEGER,
	"steel_manning_attempted" INTEGER,
	"steel_manning_quality" TEXT,
	"self_critique_attempted" INTEGER,
	"self_critique_quality" TEXT,
	"framework_consistent" INTEGER,
	"evaluation_data" TEXT NOT NULL DEFAULT '{}',
	"created_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq")
);

CREATE INDEX IF NOT EXISTS "response_evaluations_debate_id_utterance_seq" ON "response_evaluations" ("debate_id", "utterance_seq");

CREATE TABLE IF NOT EXISTS "chair_interruptions" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"seq" INTEGER NOT NULL DEFAULT 0,
	"utterance_seq" INTEGER,
	"interrupting_chair" TEXT NOT NULL DEFAULT '',
	"interrupted_chair" TEXT NOT NULL DEFAULT '',
	"trigger_reason" TEXT NOT NULL DEFAULT '',
	"trigger_content" TEXT,
	"urgency" REAL,
	"timestamp_ms" INTEGER NOT NULL DEFAULT 0,
	"created_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq")
);

CREATE TABLE IF NOT EXISTS "formal_entries" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"entry_seq" INTEGER NOT NULL DEFAULT 0,
	"record_seq" INTEGER NOT NULL DEFAULT 0,
	"timestamp" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	"phase" TEXT NOT NULL DEFAULT '',
	"speaker" TEXT NOT NULL DEFAULT '',
	"type" TEXT NOT NULL DEFAULT '',
	"content" TEXT NOT NULL DEFAULT '',
	"sources" INTEGER NOT NULL DEFAULT 0,
	"rebuttal_to_seq" INTEGER,
	"target_seq" INTEGER,
	"redacted" INTEGER NOT NULL DEFAULT 0,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "entry_seq")
);

CREATE INDEX IF NOT EXISTS "formal_entries_debate_id_speaker_entry_seq" ON "formal_entries" ("debate_id", "speaker", "entry_seq");

CREATE TABLE IF NOT EXISTS "formal_sources" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"entry_seq" INTEGER NOT NULL DEFAULT 0,
	"source_index" INTEGER NOT NULL DEFAULT 0,
	"url" TEXT NOT NULL DEFAULT '',
	"title" TEXT NOT NULL DEFAULT '',
	"accessed" TEXT NOT NULL DEFAULT '',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "entry_seq", "source_index")
);

CREATE TABLE IF NOT EXISTS "formal_verifications" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"entry_seq" INTEGER NOT NULL DEFAULT 0,
	"source_index" INTEGER NOT NULL DEFAULT 0,
	"record_seq" INTEGER NOT NULL DEFAULT 0,
	"url" TEXT NOT NULL DEFAULT '',
	"status" TEXT NOT NULL DEFAULT '',
	"reason" TEXT NOT NULL DEFAULT '',
	"verified_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "entry_seq", "source_index")
);

CREATE INDEX IF NOT EXISTS "formal_verifications_status_debate_id" ON "formal_verifications" ("status", "debate_id");

CREATE TABLE IF NOT EXISTS "debate_rounds" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"round" INTEGER NOT NULL DEFAULT 0,
	"arguments" TEXT NOT NULL DEFAULT '[]',
	"rebuttals" TEXT NOT NULL DEFAULT '[]',
	"opening" TEXT,
	"judgment" TEXT,
	"converging" INTEGER,
	"stagnating" INTEGER,
	"new_ground" INTEGER,
	"clear_winner" TEXT,
	"end_reason" TEXT,
	"judgment_data" TEXT,
	"decision" TEXT,
	"guidance" TEXT,
	"decision_auto" INTEGER,
	"started_at" TEXT,
	"judged_at" TEXT,
	"decided_at" TEXT,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "round")
);

CREATE TABLE IF NOT EXISTS "moderated_decisions" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"title" TEXT,
	"rounds" INTEGER,
	"recommendation" TEXT,
	"confidence" TEXT,
	"end_reason" TEXT,
	"dissent" TEXT,
	"synthesis" TEXT,
	"approval" TEXT,
	"approval_note" TEXT,
	"workflow_created" INTEGER,
	"decided_at" TEXT,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id")
);

CREATE TABLE IF NOT EXISTS "moderated_perspectives" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"perspective" TEXT NOT NULL DEFAULT '',
	"position" INTEGER NOT NULL DEFAULT 0,
	"name" TEXT NOT NULL DEFAULT '',
	"priorities" TEXT,
	"trade_offs" TEXT,
	"model" TEXT,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "perspective")
);

CREATE TABLE IF NOT EXISTS "persuasion_moves" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"seq" INTEGER NOT NULL DEFAULT 0,
	"position" INTEGER NOT NULL DEFAULT 0,
	"move_id" TEXT,
	"round" INTEGER NOT NULL DEFAULT 0,
	"phase" TEXT NOT NULL DEFAULT '',
	"side" TEXT NOT NULL DEFAULT '',
	"speaker" TEXT NOT NULL DEFAULT '',
	"act" TEXT NOT NULL DEFAULT '',
	"proposition" TEXT NOT NULL DEFAULT '',
	"reasons" TEXT,
	"target" TEXT,
	"attack" TEXT,
	"text" TEXT,
	"challenge" INTEGER NOT NULL DEFAULT 0,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "seq", "position")
);

CREATE INDEX IF NOT EXISTS "persuasion_moves_debate_id_move_id" ON "persuasion_moves" ("debate_id", "move_id");

CREATE TABLE IF NOT EXISTS "persuasion_commitments" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"speaker" TEXT NOT NULL DEFAULT '',
	"proposition" TEXT NOT NULL DEFAULT '',
	"committed" INTEGER NOT NULL DEFAULT 0,
	"move_id" TEXT,
	"seq" INTEGER NOT NULL DEFAULT 0,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "speaker", "proposition")
);

CREATE TABLE IF NOT EXISTS "persuasion_arguments" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"argument_id" TEXT NOT NULL DEFAULT '',
	"side" TEXT NOT NULL DEFAULT '',
	"text" TEXT NOT NULL DEFAULT '',
	"move_id" TEXT,
	"base" REAL NOT NULL DEFAULT 0,
	"strength" REAL NOT NULL DEFAULT 0,
	"surviving" INTEGER NOT NULL DEFAULT 0,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "argument_id")
);

CREATE INDEX IF NOT EXISTS "persuasion_arguments_debate_id_strength" ON "persuasion_arguments" ("debate_id", "strength");

CREATE TABLE IF NOT EXISTS "scored_rounds" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"round" INTEGER NOT NULL DEFAULT 0,
	"category" TEXT NOT NULL DEFAULT '',
	"winner" TEXT NOT NULL DEFAULT '',
	"reasoning" TEXT NOT NULL DEFAULT '',
	"key_points" TEXT,
	"confidence" REAL NOT NULL DEFAULT 0,
	"defaulted" INTEGER NOT NULL DEFAULT 0,
	"pre_score" REAL NOT NULL DEFAULT 0,
	"post_score" REAL NOT NULL DEFAULT 0,
	"delta" REAL NOT NULL DEFAULT 0,
	"record_seq" INTEGER NOT NULL DEFAULT 0,
	"created_at" TEXT NOT NULL DEFAULT '0001-01-01T00:00:00.000000000Z',
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "round")
);

CREATE TABLE IF NOT EXISTS "scored_scores" (
	"debate_id" TEXT NOT NULL DEFAULT '',
	"category" TEXT NOT NULL DEFAULT '',
	"pre" REAL,
	"post" REAL,
	"adjustment" REAL,
	FOREIGN KEY ("debate_id") REFERENCES "debates" ("id") ON DELETE CASCADE,
	PRIMARY KEY ("debate_id", "category")
);
