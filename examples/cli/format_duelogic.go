package main

import (
	"context"
	"strings"

	"github.com/duelogic/duelogic"
)

var duelogicFormat = &format{
	name:    "duelogic",
	about:   "the Duelogic podcast: philosophical chairs, an arbiter, interruptions",
	flags:   []string{"preset", "chairs", "perspectives", "max-rounds", "exchanges"},
	metrics: true,
	run: func(ctx context.Context, e *env, d duelogic.Debate) (*outcome, error) {
		cfg, err := duelogicConfig(e.opt)
		if err != nil {
			return nil, err
		}
		e.render.SetConfig(cfg)
		o, err := duelogic.New(cfg, e.client, duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		if err != nil {
			return nil, configError(err)
		}
		res, err := o.Run(ctx, d)
		if err != nil {
			return nil, configError(err)
		}
		return &outcome{id: res.DebateID, result: res}, nil
	},
	resume: func(ctx context.Context, e *env, id string) (*outcome, error) {
		o, err := duelogic.New(duelogic.DefaultConfig(), e.client, duelogic.WithStore(e.store), duelogic.WithSink(e.sink))
		if err != nil {
			return nil, err
		}
		res, err := o.Resume(ctx, id)
		if err != nil {
			return nil, err
		}
		return &outcome{id: id, result: res}, nil
	},
}

// duelogicConfig is the default config changed by the flags.
func duelogicConfig(o *options) (duelogic.Config, error) {
	cfg := duelogic.DefaultConfig()
	if o.preset != "" {
		p, ok := duelogic.LookupPreset(o.preset)
		if !ok {
			return cfg, usagef("unknown preset %q; have %s", o.preset, presetIDs())
		}
		cfg = p.Apply(cfg)
	}
	if n := o.perspectives; n > 0 {
		ps := duelogic.Perspectives()
		if n > len(ps) {
			return cfg, usagef("--perspectives %d: there are %d engineering perspectives", n, len(ps))
		}
		var fws []duelogic.Framework
		for _, p := range ps[:n] {
			fws = append(fws, p.ID)
		}
		cfg = duelogic.Preset{Frameworks: fws}.Apply(cfg)
	}
	if o.chairs != "" {
		var fws []duelogic.Framework
		for _, f := range strings.Split(o.chairs, ",") {
			fws = append(fws, duelogic.Framework(strings.TrimSpace(f)))
		}
		cfg = duelogic.Preset{Frameworks: fws}.Apply(cfg)
	}
	if o.rounds > 0 {
		cfg.Flow.MaxExchanges = o.rounds
	}
	if o.model != "" {
		for i := range cfg.Chairs {
			c := &cfg.Chairs[i]
			c.ModelID, c.ModelDisplayName, c.ProviderName = o.model, o.model, ""
		}
		cfg.Arbiter.ModelID, cfg.Arbiter.ModelDisplayName = o.model, o.model
	}
	if err := cfg.Validate(); err != nil {
		return cfg, configError(err)
	}
	return cfg, nil
}
