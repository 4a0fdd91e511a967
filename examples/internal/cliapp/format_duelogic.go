package cliapp

import (
	"flag"
	"slices"
	"strings"

	"github.com/duelogic/duelogic"
	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/examples/internal/render"
)

func init() {
	addFormat(duelogic.FormatName, &formatCLI{
		about:  "the Duelogic podcast: philosophical chairs, an arbiter, interruptions",
		flags:  []string{"preset", "chairs", "perspectives", "max-rounds", "exchanges", "target-minutes"},
		fields: map[string]string{"flow.maxExchanges": "max-rounds", "flow.targetDurationMinutes": "target-minutes"},
		declare: func(fs *flag.FlagSet) any {
			o := new(podcastFlags)
			fs.StringVar(&o.preset, "preset", "", "duelogic: a preset matchup: "+presetIDs())
			fs.StringVar(&o.chairs, "chairs", "", "duelogic: comma-separated frameworks or perspectives, one per chair")
			fs.IntVar(&o.targetMinutes, "target-minutes", duelogic.DefaultConfig().Flow.TargetDurationMinutes,
				"duelogic: the episode's target duration in minutes (flow.targetDurationMinutes), which paces the turns and the number of exchanges (at most --max-rounds); 0: no pacing")
			return o
		},
		config: podcastConfig,
		// The chairs are named by their model and framework, as the
		// configuration (the stored one, resuming) seats them.
		prepare: func(e *env, f any) error {
			if p, ok := f.(*duelogic.Podcast); ok {
				e.render.SetConfig(p.Config)
			}
			return nil
		},
	})
	// Seed 000's success metrics, against their targets, after the
	// verdict.
	addView(view[*duelogic.Outcome]{
		show: func(r *render.Renderer, res *engine.Result[engine.Outcome], o *duelogic.Outcome) {
			r.Metrics(o.Metrics, res.Usage)
		},
	})
}

// podcastFlags are the flags only the duelogic format reads.
type podcastFlags struct {
	preset, chairs string
	targetMinutes  int
}

// podcastConfig sets the podcast's fields the flags given change: the
// chairs (--preset, --perspectives, --chairs, and --model, which seats
// that model in every seat, the arbiter's too), the target duration and
// the exchanges.
func podcastConfig(e *env, p patch) error {
	o, own := e.opt, ownFlags[podcastFlags](e.opt, duelogic.FormatName)
	cfg := duelogic.DefaultConfig()
	if own.preset != "" {
		preset, ok := duelogic.LookupPreset(own.preset)
		if !ok {
			return usagef("unknown preset %q; have %s", own.preset, presetIDs())
		}
		cfg = preset.Apply(cfg)
	}
	if n := o.perspectives; n > 0 {
		ps := duelogic.Perspectives()
		if n > len(ps) {
			return usagef("--perspectives %d: there are %d engineering perspectives", n, len(ps))
		}
		var fws []duelogic.Framework
		for _, p := range ps[:n] {
			fws = append(fws, p.ID)
		}
		cfg = duelogic.Preset{Frameworks: fws}.Apply(cfg)
	}
	if own.chairs != "" {
		var fws []duelogic.Framework
		for _, f := range strings.Split(own.chairs, ",") {
			fw := duelogic.Framework(strings.TrimSpace(f))
			if _, ok := duelogic.LookupFramework(fw); !ok {
				return usagef("--chairs: unknown framework or perspective %q; have %s", fw, frameworkIDs())
			}
			fws = append(fws, fw)
		}
		if n := len(fws); n < duelogic.MinChairs || n > duelogic.MaxChairs {
			noun := "chairs"
			if n == 1 {
				noun = "chair"
			}
			return usagef("--chairs: %d %s; a debate needs %d to %d", n, noun, duelogic.MinChairs, duelogic.MaxChairs)
		}
		cfg = duelogic.Preset{Frameworks: fws}.Apply(cfg)
	}
	if m := o.model; m != "" {
		for i := range cfg.Chairs {
			c := &cfg.Chairs[i]
			c.ModelID, c.ModelDisplayName, c.ProviderName = m, m, ""
		}
		if err := p.set("arbiter.modelId", m); err != nil {
			return err
		}
		if err := p.set("arbiter.modelDisplayName", m); err != nil {
			return err
		}
	}
	if own.preset != "" || own.chairs != "" || o.perspectives > 0 || o.model != "" {
		if err := p.set("chairs", cfg.Chairs); err != nil {
			return err
		}
	}
	if o.set["target-minutes"] {
		if err := p.set("flow.targetDurationMinutes", own.targetMinutes); err != nil {
			return err
		}
	}
	if n := o.rounds; n > 0 {
		return p.set("flow.maxExchanges", n)
	}
	return nil
}

// presetIDs lists the presets.
func presetIDs() string {
	var ids []string
	for _, p := range duelogic.Presets() {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, ", ")
}

// frameworkIDs lists the frameworks and perspectives a chair may take.
func frameworkIDs() string {
	var ids []string
	for _, f := range slices.Concat(duelogic.Frameworks(), duelogic.Perspectives()) {
		ids = append(ids, string(f.ID))
	}
	return strings.Join(ids, ", ")
}
