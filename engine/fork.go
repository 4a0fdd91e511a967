package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/duelogic/duelogic/store"
)

// ErrBadFork: Fork was asked for something it cannot make — a position
// outside the debate, a patch that is not a JSON object, a patched
// configuration the format refuses.
var ErrBadFork = errors.New("engine: bad fork")

// Fork makes a new debate in st holding records 1..atSeq of debateID (the
// debate's first record being 1), its stored configuration changed by
// patch, an RFC 7396 JSON merge patch of the configuration as [Open] takes
// it (nil: unchanged), and returns the new debate's ID. [ResumeStored] (or
// [Resume]) then plays on from there, with the patched configuration: a
// podcast re-judged from its openings by another arbiter model, a formal
// debate's last round played again with another seed.
//
// Nothing is stored when debateID does not exist (store.ErrNotFound),
// atSeq is outside 1..len (or splits a debate whose log is corrupt,
// [ErrCorruptLog]), or patch is not a JSON object or makes a configuration
// the format refuses ([ErrBadFork], wrapping the format's
// [*ValidationError]); a patch of a format that is not registered is
// refused too ([ErrUnknownFormat]), since it cannot be checked. The new
// debate records where it came from (Debate.ForkOf, Debate.ForkAt). A
// store failure while copying leaves a prefix of the fork, which resumes
// like any stopped debate.
func Fork(ctx context.Context, st store.Store, debateID string, atSeq int64, patch json.RawMessage) (newID string, err error) {
	if isNil(st) {
		return "", errors.New("engine: fork: nil store")
	}
	recs, err := st.Records(ctx, debateID)
	if err != nil {
		return "", fmt.Errorf("engine: fork %s: %w", debateID, err)
	}
	if atSeq < 1 || atSeq > int64(len(recs)) {
		return "", fmt.Errorf("%w: %s has records 1..%d; cannot fork at %d", ErrBadFork, debateID, len(recs), atSeq)
	}
	h, err := headOf(recs)
	if err != nil {
		return "", err
	}
	spec := h.Spec
	if patch = bytes.TrimSpace(patch); len(patch) > 0 && !bytes.Equal(patch, []byte("null")) {
		if spec, err = mergePatch(h.Spec, patch); err != nil {
			return "", fmt.Errorf("%w: %s: %w", ErrBadFork, debateID, err)
		}
		open, ok := opener(h.Format)
		if !ok {
			return "", fmt.Errorf("%w: %s is a %q debate; a patch of its configuration cannot be checked", ErrUnknownFormat, debateID, h.Format)
		}
		f, err := open(spec) // an Opener refuses an invalid configuration
		if err != nil {
			return "", fmt.Errorf("%w: %s: the patched configuration: %w", ErrBadFork, debateID, err)
		}
		// What is stored is what the format makes of it, like Run stores.
		if spec, err = json.Marshal(underlying(f)); err != nil {
			return "", fmt.Errorf("engine: fork %s: encode the configuration: %w", debateID, err)
		}
	}
	newID = NewDebateID()
	h.Spec = spec
	h.Debate.ID = newID
	h.Debate.ForkOf, h.Debate.ForkAt = debateID, atSeq
	first, err := headRecord(recs[0], h)
	if err != nil {
		return "", err
	}
	for i, r := range recs[:atSeq] {
		if i == 0 {
			r = first
		}
		r.DebateID = newID
		if err := st.Append(ctx, r); err != nil {
			return newID, fmt.Errorf("engine: fork %s into %s: record %d: %w", debateID, newID, r.Seq, err)
		}
	}
	return newID, nil
}

// headRecord is rec, the first record of a debate, holding h instead.
func headRecord(rec store.Record, h head) (store.Record, error) {
	en, err := decode[entry](rec)
	if err != nil {
		return rec, err
	}
	if en.Value, err = json.Marshal(h); err != nil {
		return rec, fmt.Errorf("engine: encode the debate record: %w", err)
	}
	if rec.Data, err = json.Marshal(en); err != nil {
		return rec, fmt.Errorf("engine: encode the debate record: %w", err)
	}
	return rec, nil
}

// mergePatch applies an RFC 7396 JSON merge patch to doc; both must be
// JSON objects.
func mergePatch(doc, patch json.RawMessage) (json.RawMessage, error) {
	var d, p any
	if err := json.Unmarshal(patch, &p); err != nil {
		return nil, fmt.Errorf("the patch is not JSON: %v", err)
	}
	if _, ok := p.(map[string]any); !ok {
		return nil, errors.New("the patch is not a JSON object")
	}
	if len(bytes.TrimSpace(doc)) == 0 {
		doc = json.RawMessage("{}")
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, fmt.Errorf("%w: the stored configuration: %v", ErrCorruptLog, err)
	}
	out, err := json.Marshal(merge(d, p))
	if err != nil {
		return nil, fmt.Errorf("encode the patched configuration: %v", err)
	}
	return out, nil
}

// merge is RFC 7396's MergePatch(target, patch).
func merge(target, patch any) any {
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	t, ok := target.(map[string]any)
	if !ok {
		t = map[string]any{}
	}
	for k, v := range p {
		if v == nil {
			delete(t, k)
			continue
		}
		t[k] = merge(t[k], v)
	}
	return t
}
