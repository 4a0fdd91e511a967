package cliapp

import (
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
)

var duelogicFormat = define(adapter[*duelogic.Outcome]{
	name:   "duelogic",
	about:  "the Duelogic podcast: philosophical chairs, an arbiter, interruptions",
	flags:  []string{"preset", "chairs", "perspectives", "max-rounds", "exchanges"},
	fields: map[string]string{"flow.maxExchanges": "max-rounds"},
	format: func(e *env) (engine.Format[*duelogic.Outcome], error) {
		cfg, err := duelogicConfig(e.opt)
		if err != nil {
			return nil, err
		}
		if e.opt.resume == "" {
			// A resumed debate's chairs are the stored ones: resume
			// shows those.
			e.render.SetConfig(cfg)
		}
		return duelogic.NewPodcast(cfg)
	},
	summary: func(r *render.Renderer, res *engine.Result[*duelogic.Outcome]) {
		r.Metrics(res.Detail.Metrics, res.Usage)
	},
	docs: func(res *engine.Result[*duelogic.Outcome]) (map[string]string, error) {
		cfg := res.Detail.Config
		name := func(speaker string) string { return chairName(cfg, speaker) }
		return map[string]string{"md": transcript(res, name, render.MetricsSection(res.Detail.Metrics))}, nil
	},
})

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
			fw := duelogic.Framework(strings.TrimSpace(f))
			if _, ok := duelogic.LookupFramework(fw); !ok {
				return cfg, usagef("--chairs: unknown framework or perspective %q; have %s", fw, frameworkIDs())
			}
			fws = append(fws, fw)
		}
		if n := len(fws); n < duelogic.MinChairs || n > duelogic.MaxChairs {
			noun := "chairs"
			if n == 1 {
				noun = "chair"
			}
			return cfg, usagef("--chairs: %d %s; a debate needs %d to %d", n, noun, duelogic.MinChairs, duelogic.MaxChairs)
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
	return cfg, nil
}

// chairName is "Arbiter", a chair's "Model (Framework)", or the speaker.
func chairName(cfg duelogic.Config, speaker string) string {
	if speaker == duelogic.SpeakerArbiter {
		return "Arbiter"
	}
	for _, c := range cfg.Chairs {
		if c.Position == speaker {
			info, _ := duelogic.LookupFramework(c.Framework)
			return fmt.Sprintf("%s (%s)", c.DisplayName(), info.ShortName())
		}
	}
	return title(speaker)
}

// podcastOptions are the flags only the duelogic format reads (list them in its adapter's
// flags too, so that other formats reject them).
type podcastOptions struct{}

// register declares o's flags on fs.
func (o *podcastOptions) register(fs *flag.FlagSet) {}

// frameworkIDs lists the frameworks and perspectives a chair may take.
func frameworkIDs() string {
	var ids []string
	for _, f := range slices.Concat(duelogic.Frameworks(), duelogic.Perspectives()) {
		ids = append(ids, string(f.ID))
	}
	return strings.Join(ids, ", ")
}
