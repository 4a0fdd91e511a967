package sqlproj

import "github.com/duelogic/duelogic/engine"

// The names of the common tables, which every debate of every format has.
const (
	TableDebates    = "debates"
	TableUtterances = "utterances"
	TableJudgments  = "judgments"
)

func col(name string, t engine.ColumnType, doc string) engine.Column {
	return engine.Column{Name: name, Type: t, Doc: doc}
}

func req(name string, t engine.ColumnType, doc string) engine.Column {
	return engine.Column{Name: name, Type: t, NotNull: true, Doc: doc}
}

// commonTables are the tables every debate has, from the engine's own
// records. Their names and first columns are the and the seeds'
// (debate_mode, config, created_at... are kept from pgstore's first schema,
// so that existing queries go on working).
var commonTables = []engine.Table{
	{
		Name: TableDebates,
		Doc:  "one row per debate whose first record is the engine's",
		Columns: []engine.Column{
			req("id", engine.ColText, "the debate's ID"),
			req("format", engine.ColText, "the format's name: duelogic, formal, moderated, persuasion, scored, ..."),
			req("debate_mode", engine.ColText, "the format's name again (seed 000's column)"),
			req("status", engine.ColText, "running or finished"),
			req("proposition", engine.ColText, ""),
			req("context", engine.ColText, ""),
			req("config", engine.ColJSON, "the format's stored configuration"),
			col("duelogic_config", engine.ColJSON, "seed 000's name: the podcast's configuration (NULL for other formats)"),
			col("fork_of", engine.ColText, "the debate this one was forked from (engine.Fork)"),
			col("fork_at", engine.ColInt, "the last record of fork_of it was copied up to"),
			req("unattended", engine.ColBool, ""),
			req("records", engine.ColInt, "the Seq of the last record projected"),
			col("verdict_winner", engine.ColText, "the verdict's winner (a speaker ID); NULL when none"),
			col("verdict_draw", engine.ColBool, ""),
			col("verdict_void", engine.ColBool, ""),
			col("verdict_summary", engine.ColText, "one line"),
			col("prompt_tokens", engine.ColInt, "the debate's usage, when it ended"),
			col("completion_tokens", engine.ColInt, ""),
			col("cost", engine.ColReal, "what it cost at the host's prices"),
			req("created_at", engine.ColTime, "the first record's time"),
			req("started_at", engine.ColTime, "the first record's time"),
			req("updated_at", engine.ColTime, "the last record's time"),
			col("ended_at", engine.ColTime, "the time of the record that ended it"),
		},
		Key:     []string{"id"},
		Indexes: [][]string{{"format", "started_at"}, {"status", "created_at"}},
	},
	{
		Name: TableUtterances,
		Doc:  "everything said in a debate, one row per utterance record",
		Columns: []engine.Column{
			req("debate_id", engine.ColText, ""),
			req("seq", engine.ColInt, "the record that holds it"),
			req("speaker", engine.ColText, ""),
			req("kind", engine.ColText, ""),
			req("segment", engine.ColText, ""),
			req("exchange", engine.ColInt, "the round, 0 outside rounds (pgstore's first name)"),
			req("round", engine.ColInt, "the round, 0 outside rounds"),
			req("content", engine.ColText, ""),
			col("model", engine.ColText, ""),
			req("interrupted", engine.ColBool, "another speaker cut into it, or marked it"),
			col("interrupted_by", engine.ColText, ""),
			req("cut", engine.ColBool, "stopped mid-turn: content is what was said up to the cut"),
			req("truncated", engine.ColBool, "the model stopped at its token cap"),
			req("defaulted", engine.ColBool, "stands for a reply the model could not give usably"),
			col("reply_to", engine.ColInt, "the utterance it answers"),
			col("reason", engine.ColText, ""),
			col("violation", engine.ColText, ""),
			col("target", engine.ColText, ""),
			req("created_at", engine.ColTime, ""),
		},
		Key:     []string{"debate_id", "seq"},
		Indexes: [][]string{{"debate_id", "speaker", "seq"}},
	},
	{
		Name: TableJudgments,
		Doc:  "how the judgments of each step were read, by purpose (engine.JudgmentCounts)",
		Columns: []engine.Column{
			req("debate_id", engine.ColText, ""),
			req("seq", engine.ColInt, "the record of the step that made them"),
			req("purpose", engine.ColText, "the llm.Request.Purpose"),
			req("step", engine.ColText, "the step's key"),
			col("speaker", engine.ColText, ""),
			req("first", engine.ColInt, "first reply used"),
			req("reasked", engine.ColInt, "reply used after the one re-ask"),
			req("defaulted", engine.ColInt, "no usable reply: the default applied"),
			req("truncated", engine.ColInt, "replies cut at their token cap"),
			req("created_at", engine.ColTime, ""),
		},
		Key:     []string{"debate_id", "seq", "purpose"},
		Indexes: [][]string{{"purpose", "debate_id"}},
	},
}
