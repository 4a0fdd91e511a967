package duelogic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
	"github.com/duelogic/duelogic/store"
)

// StoredEvaluation is one evaluation a stored podcast debate holds: the
// arbiter's judgment of one chair response, with the request that asked
// for it rebuilt from the stored transcript, so that another judge can be
// asked the same question without any speech of the debate being asked
// again (a judge audit: see package eval).
type StoredEvaluation struct {
	// Key is the key of the evaluation's step ("eval:x2:chair_1"), unique
	// in the debate.
	Key string `json:"key"`
	// Seq is the evaluation record's; UtteranceSeq the evaluated response's.
	Seq          int64 `json:"seq"`
	UtteranceSeq int64 `json:"utteranceSeq"`
	// Speaker is the evaluated chair's position, Model its model.
	Speaker string `json:"speaker"`
	Model   string `json:"model"`
	// Request is the evaluation as the arbiter was asked for it: its
	// model, purpose ([PurposeEvaluation]), messages, schema, temperature
	// and completion cap, before the engine's per-call changes (a host's
	// [engine.WithMaxTokens] or prompt hook, the prompt-cache key, the
	// schema's own cap that [engine.Judge] raises MaxTokens to).
	Request llm.Request `json:"-"`
	// Evaluation is the arbiter's, nil when its reply could not be used
	// (Problem says why).
	Evaluation *ResponseEvaluation `json:"evaluation"`
	Problem    string              `json:"problem,omitempty"`
}

// ErrNotPodcast: [StoredEvaluations] was given a debate of another format.
var ErrNotPodcast = errors.New("duelogic: not a podcast debate")

// StoredEvaluations returns the evaluations of the stored podcast debate
// debateID, in the order they were made, each with the request that asked
// for it, rebuilt from the debate's configuration and transcript as the
// debate built it: the evaluation prompt of the response (told who cut it
// off, when someone did) and of the turn it answered. cat is the catalog
// the debate was played with (nil: [DefaultCatalog]). A debate still
// unfinished gives the evaluations stored so far; a debate played at the
// Relaxed level gives none. It reads the store only.
func StoredEvaluations(ctx context.Context, st store.Store, debateID string, cat *Catalog) ([]StoredEvaluation, error) {
	recs, err := st.Records(ctx, debateID)
	if err != nil {
		return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w", debateID, err)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w", debateID, store.ErrNotFound)
	}
	if cat == nil {
		cat = DefaultCatalog()
	}
	first, err := engine.StepOf(recs[0])
	if err != nil {
		return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w", debateID, err)
	}
	head, ok := first.Head()
	switch {
	case !ok:
		return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w: no debate record first", debateID, engine.ErrCorruptLog)
	case head.Format != FormatName:
		return nil, fmt.Errorf("%w: %s is a %q debate", ErrNotPodcast, debateID, head.Format)
	}
	var p Podcast
	if err := json.Unmarshal(head.Spec, &p); err != nil {
		return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w: %w", debateID, engine.ErrCorruptLog, err)
	}
	cfg := p.Config
	var (
		tr  []Utterance // the transcript so far, as the debate's session held it
		out []StoredEvaluation
	)
	for _, rec := range recs[1:] {
		step, err := engine.StepOf(rec)
		if err != nil {
			return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w", debateID, err)
		}
		switch {
		case rec.Type == RecordUtterance && step.Event != nil && step.Event.Utterance != nil:
			tr = append(tr, *step.Event.Utterance)
		case rec.Type == RecordEvaluation && !step.Side:
			var ev evaluationRecord
			if err := json.Unmarshal(step.Value, &ev); err != nil {
				return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w: record %d: %w", debateID, engine.ErrCorruptLog, rec.Seq, err)
			}
			if !ev.Evaluated {
				continue
			}
			se, err := storedEvaluation(cfg, cat, tr, step, ev)
			if err != nil {
				return nil, fmt.Errorf("duelogic: stored evaluations of %s: %w", debateID, err)
			}
			out = append(out, se)
		}
	}
	return out, nil
}

// storedEvaluation rebuilds the request of evaluation ev, stored by step,
// from the transcript tr as it stood then, as [play.respond] and
// [play.reviewStep] built it.
func storedEvaluation(cfg Config, cat *Catalog, tr []Utterance, step engine.StoredStep, ev evaluationRecord) (StoredEvaluation, error) {
	at := -1
	for i := range tr {
		if tr[i].Seq == ev.UtteranceSeq {
			at = i
			break
		}
	}
	if at < 0 {
		return StoredEvaluation{}, fmt.Errorf("%w: evaluation %q of utterance %d, which is not in the transcript before it", engine.ErrCorruptLog, step.Key, ev.UtteranceSeq)
	}
	u := tr[at]
	ch, ok := cfg.chair(u.Speaker)
	if !ok {
		return StoredEvaluation{}, fmt.Errorf("%w: evaluation %q of %q, who is no chair", engine.ErrCorruptLog, step.Key, u.Speaker)
	}
	prev := ""
	if a := answeredTurn(tr[max(0, at-4):at], u.Speaker); a != nil {
		prev = speakerLabel(cfg, cat, a.Speaker) + ":\n" + truncateRunes(a.Content, windowTurnRunes)
	}
	cutBy := ""
	if u.Cut {
		cutBy = speakerLabel(cfg, cat, u.InterruptedBy)
	}
	p := evaluationPrompt(cfg, cat, ch.Position, prev, u.Content, cutBy)
	req := llm.Request{
		Model: cfg.Arbiter.ModelID, Purpose: PurposeEvaluation, MaxTokens: maxTokens(cfg, PurposeEvaluation),
		Messages: p.Messages(), Schema: json.RawMessage(evaluationSchema), Temperature: ptr(0.2),
	}
	return StoredEvaluation{
		Key: step.Key, Seq: step.Seq, UtteranceSeq: u.Seq, Speaker: u.Speaker, Model: ch.ModelID,
		Request: req, Evaluation: ev.Evaluation, Problem: ev.EvalError,
	}, nil
}

// answeredTurn is the turn a response by position answers, given the
// (at most four) utterances before it: the last one by someone else, as
// [play.respond] finds it (nil when there is none).
func answeredTurn(before []Utterance, position string) *Utterance {
	for i := len(before) - 1; i >= 0; i-- {
		if before[i].Speaker != position {
			return &before[i]
		}
	}
	return nil
}
