package cliapp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/store"
)

// setFlags are the --set flags given, in order: key=value each.
type setFlags []string

// String is the flags given, for flag.Value.
func (s *setFlags) String() string { return strings.Join(*s, " ") }

// Set adds one --set; it must be key=value.
func (s *setFlags) Set(v string) error {
	if key, _, ok := strings.Cut(v, "="); !ok || strings.TrimSpace(key) == "" {
		return errors.New("want key=value, a dotted JSON path and its value (flow.maxExchanges=4)")
	}
	*s = append(*s, v)
	return nil
}

// patch is the JSON merge patch the --set flags make.
func (s setFlags) patch() (patch, error) {
	p := patch{}
	for _, kv := range s {
		key, value, _ := strings.Cut(kv, "=")
		if err := p.setJSON(strings.TrimSpace(key), value); err != nil {
			return nil, usagef("--set %s: %v", kv, err)
		}
	}
	return p, nil
}

// fork makes a new debate of the stored debate that spec (ID@SEQ) names:
// its records 1..SEQ, its configuration changed by the --set flags
// (engine.Fork), and plays it on (engine.ResumeStored). It returns the new
// debate's ID. A spec or a --set that is wrong — no @, a SEQ that is not a
// number or not one of the debate's records, a debate that is not stored,
// a configuration the format refuses — is a usage error, and nothing is
// stored.
func fork(ctx context.Context, e *env, spec string, sets setFlags) (string, *engine.Result[engine.Outcome], error) {
	id, seqText, ok := strings.Cut(spec, "@")
	if !ok || id == "" || seqText == "" {
		return "", nil, usagef("--fork %s: want ID@SEQ, a debate and the number of the last of its records the fork keeps (dl-4b41@12)", spec)
	}
	seq, err := strconv.ParseInt(seqText, 10, 64)
	if err != nil {
		return "", nil, usagef("--fork %s: SEQ %q is not a number", spec, seqText)
	}
	p, err := sets.patch()
	if err != nil {
		return "", nil, err
	}
	change, err := p.raw()
	if err != nil {
		return "", nil, err
	}
	if id, err = resolveID(ctx, e.store, id, "--fork"); err != nil {
		return "", nil, err
	}
	recs, err := e.store.Records(ctx, id)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return "", nil, usagef("--fork %s: no debate %s in %s (debate --list shows them)", spec, id, storeName(e.opt.storeDir))
	case err != nil:
		return "", nil, err
	case seq < 1 || seq > int64(len(recs)):
		return "", nil, usagef("--fork %s: SEQ %d is not one of the records of %s, 1..%d", spec, seq, id, len(recs))
	}
	newID, err := engine.Fork(ctx, e.store, id, seq, change)
	if err != nil {
		return newID, nil, forkError(spec, err)
	}
	fmt.Fprintf(e.stderr, "debate: forked %s after record %d into %s\n", id, seq, newID)
	st, err := load(ctx, e, newID)
	if err != nil {
		return newID, nil, err
	}
	res, err := playOn(ctx, e, st, fmt.Sprintf("\n── fork %s of %s after record %d ──", newID, id, seq))
	return newID, res, err
}

// forkError is err, engine.Fork's, as the command reports it: a patched
// configuration the format refuses is a usage error naming every problem
// on one line, by the fields --set names.
func forkError(spec string, err error) error {
	var ve *engine.ValidationError
	switch {
	case errors.As(err, &ve):
		var probs []string
		for _, v := range ve.Violations {
			probs = append(probs, v.Field+": "+v.Problem)
		}
		return usagef("--set: the forked configuration is invalid: %s", strings.Join(probs, "; "))
	case errors.Is(err, engine.ErrBadFork), errors.Is(err, engine.ErrUnknownFormat):
		return usagef("--fork %s: %v", spec, err)
	}
	return err
}
