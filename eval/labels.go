package eval

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
)

// ErrBadLabels: a labels file could not be read, or a label names an
// evaluation the audited debates do not hold.
var ErrBadLabels = errors.New("eval: bad labels")

// EvaluationLabel is a person's evaluation of one chair response of a
// podcast debate, which the jurors (and the debate's arbiter) of
// [RunEvaluationAudit] are compared with, field by field (Cohen's kappa).
//
// As a line of a labels file ([ReadEvaluationLabels]) it reads
//
//	{"debate": "dl-…", "utterance": 12, "speaker": "chair_1",
//	 "adherence": 70, "steelManning": true, "selfCritique": false}
//
// "utterance" is the seq of the evaluated response: the number each
// record of the debate's store carries, given beside every evaluation in
// the audit's JSON ("utteranceSeq") and in the labels template the eval
// command writes. "key", the evaluation's step key ("eval:x2:chair_1",
// also in the audit's JSON), may name it instead. "speaker", optional, is
// the chair the person heard, checked against the evaluation so that a
// mistyped number is caught. "adherence" is a score of 0 to 100 or one of
// [AdherenceBands]; "steelManning" and "selfCritique" whether the response
// attempted them. Any of the three may be left out (or null): a field not
// labelled is not compared.
type EvaluationLabel struct {
	Debate string
	// Utterance is the evaluated response's seq, or 0 when Key names the
	// evaluation instead.
	Utterance int64
	Key       string
	// Speaker, when not "", is checked against the evaluated chair.
	Speaker string
	// Categories maps each labelled field (of [EvaluationFields]) to its
	// category, as [EvaluationCategory] names them.
	Categories map[string]string
}

// AdherenceBands are the categories of [FieldAdherence], in order.
func AdherenceBands() []string { return []string{"0-24", "25-49", "50-74", "75-100"} }

// evaluationLabelLine is an EvaluationLabel as a line of a labels file.
type evaluationLabelLine struct {
	Debate       string          `json:"debate"`
	Utterance    int64           `json:"utterance,omitempty"`
	Key          string          `json:"key,omitempty"`
	Speaker      string          `json:"speaker,omitempty"`
	Adherence    json.RawMessage `json:"adherence,omitempty"`
	SteelManning *bool           `json:"steelManning,omitempty"`
	SelfCritique *bool           `json:"selfCritique,omitempty"`
}

// MarshalJSON writes l as a line of a labels file (the adherence as its
// band).
func (l EvaluationLabel) MarshalJSON() ([]byte, error) {
	line := evaluationLabelLine{Debate: l.Debate, Utterance: l.Utterance, Key: l.Key, Speaker: l.Speaker}
	if c, ok := l.Categories[FieldAdherence]; ok {
		line.Adherence, _ = json.Marshal(c)
	}
	attempted := func(field string) *bool {
		c, ok := l.Categories[field]
		if !ok {
			return nil
		}
		b := c == "attempted"
		return &b
	}
	line.SteelManning, line.SelfCritique = attempted(FieldSteelManning), attempted(FieldSelfCritique)
	return json.Marshal(line)
}

// ReadEvaluationLabels reads people's evaluations of podcast responses:
// JSON Lines of [EvaluationLabel]. A blank line is skipped; a line that is
// not such an object, names no debate, names its evaluation both or
// neither ways, gives a score outside 0..100 or an unknown band, or labels
// an evaluation a line before it labelled is an error naming the line
// ([ErrBadLabels]).
func ReadEvaluationLabels(r io.Reader) ([]EvaluationLabel, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	var out []EvaluationLabel
	seen := map[[2]string]bool{}
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		l, err := parseEvaluationLabel(b)
		if err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrBadLabels, line, err)
		}
		id := [2]string{l.Debate, l.Key}
		if l.Key == "" {
			id[1] = fmt.Sprint(l.Utterance)
		}
		if seen[id] {
			return nil, fmt.Errorf("%w: line %d: the evaluation of %s in debate %s is labelled twice", ErrBadLabels, line, id[1], l.Debate)
		}
		seen[id] = true
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: line %d: longer than %d bytes", ErrBadLabels, line+1, MaxLineBytes)
		}
		return nil, fmt.Errorf("eval: read labels: %w", err)
	}
	return out, nil
}

// parseEvaluationLabel reads one line of a labels file.
func parseEvaluationLabel(b []byte) (EvaluationLabel, error) {
	var l evaluationLabelLine
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&l); err != nil {
		return EvaluationLabel{}, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return EvaluationLabel{}, errors.New("more than one JSON value")
	}
	out := EvaluationLabel{Debate: strings.TrimSpace(l.Debate), Utterance: l.Utterance, Key: strings.TrimSpace(l.Key),
		Speaker: strings.TrimSpace(l.Speaker), Categories: map[string]string{}}
	switch {
	case out.Debate == "":
		return out, errors.New(`want a "debate"`)
	case l.Utterance < 0:
		return out, fmt.Errorf("utterance %d: want the response's seq (1 or more)", l.Utterance)
	case (out.Utterance == 0) == (out.Key == ""):
		return out, errors.New(`name the evaluation by "utterance" (the response's seq) or by "key", one of them`)
	}
	if a := bytes.TrimSpace(l.Adherence); len(a) > 0 && !bytes.Equal(a, []byte("null")) {
		var score float64
		var band string
		switch {
		case json.Unmarshal(a, &score) == nil:
			if !(score >= 0 && score <= 100) {
				return out, fmt.Errorf("adherence %s: want 0 to 100", a)
			}
			band = EvaluationCategory(&duelogic.ResponseEvaluation{AdherenceScore: int(score)}, FieldAdherence)
		case json.Unmarshal(a, &band) == nil:
			if band = strings.TrimSpace(band); !slices.Contains(AdherenceBands(), band) {
				return out, fmt.Errorf("adherence %q: want a score of 0 to 100 or one of %s", band, strings.Join(AdherenceBands(), ", "))
			}
		default:
			return out, fmt.Errorf("adherence %s: want a score of 0 to 100 or one of %s", a, strings.Join(AdherenceBands(), ", "))
		}
		out.Categories[FieldAdherence] = band
	}
	for field, b := range map[string]*bool{FieldSteelManning: l.SteelManning, FieldSelfCritique: l.SelfCritique} {
		if b != nil {
			out.Categories[field] = EvaluationCategory(&duelogic.ResponseEvaluation{
				SteelManning: duelogic.MandateCheck{Attempted: *b}, SelfCritique: duelogic.MandateCheck{Attempted: *b}}, field)
		}
	}
	return out, nil
}

// labelsOf returns the labels of each of evals, the evaluations of
// debate (nil where none), and an error ([ErrBadLabels]) for a label of
// debate that names no evaluation of it, or the wrong speaker.
func labelsOf(debate string, evals []duelogic.StoredEvaluation, labels []EvaluationLabel) ([]map[string]string, error) {
	out := make([]map[string]string, len(evals))
	for _, l := range labels {
		if l.Debate != debate {
			continue
		}
		i := slices.IndexFunc(evals, func(e duelogic.StoredEvaluation) bool {
			return l.Key != "" && e.Key == l.Key || l.Key == "" && e.UtteranceSeq == l.Utterance
		})
		switch {
		case i < 0 && l.Key != "":
			return nil, fmt.Errorf("%w: debate %s has no evaluation %q", ErrBadLabels, debate, l.Key)
		case i < 0:
			return nil, fmt.Errorf("%w: debate %s has no evaluation of utterance %d", ErrBadLabels, debate, l.Utterance)
		case l.Speaker != "" && l.Speaker != evals[i].Speaker:
			return nil, fmt.Errorf("%w: debate %s: utterance %d is %s's, not %s's", ErrBadLabels, debate, evals[i].UtteranceSeq, evals[i].Speaker, l.Speaker)
		case out[i] != nil:
			return nil, fmt.Errorf("%w: debate %s: the evaluation of utterance %d is labelled twice (by key and by seq)", ErrBadLabels, debate, evals[i].UtteranceSeq)
		}
		out[i] = l.Categories
	}
	return out, nil
}
