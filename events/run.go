package events

import (
	"context"
	"iter"
	"sync"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// RunFunc runs or resumes a debate with sink as its event sink and returns
// how it ended: e.g. engine.Run or engine.Resume with engine.WithSink(sink)
// (what [RunFormat] and [ResumeFormat] do), or a [duelogic.Orchestrator] made
// with duelogic.WithSink(sink). Its result is not needed: the debate_ended
// event carries the usage and the format's outcome ([engine.Ended]).
type RunFunc func(ctx context.Context, sink engine.EventSink) error

// RunFormat returns an iterator over the events of a new debate d of format
// f, played by [engine.Run] with client and opts; see [Run]. The iterator is
// the debate's sink: an [engine.WithSink] among opts is overridden (give the
// other sinks the events from the loop body, or use [FanOut] in a RunFunc).
func RunFormat[R any](ctx context.Context, client llm.Client, f engine.Format[R], d engine.Debate, opts ...engine.Option) iter.Seq2[engine.Event, error] {
	return Run(ctx, func(ctx context.Context, sink engine.EventSink) error {
		_, err := engine.Run(ctx, client, f, d, withSink(opts, sink)...)
		return err
	})
}

// ResumeFormat returns an iterator over the events of the stopped debate
// debateID of format f as [engine.Resume] continues it with client and opts:
// the events of the records it adds, not of those already stored (read
// those with [engine.Replay]). Resuming a finished debate yields nothing. The
// sink is the iterator's, as with [RunFormat].
func ResumeFormat[R any](ctx context.Context, client llm.Client, f engine.Format[R], debateID string, opts ...engine.Option) iter.Seq2[engine.Event, error] {
	return Run(ctx, func(ctx context.Context, sink engine.EventSink) error {
		_, err := engine.Resume(ctx, client, f, debateID, withSink(opts, sink)...)
		return err
	})
}

// withSink returns opts with sink as the last, winning, WithSink; opts is
// not changed.
func withSink(opts []engine.Option, sink engine.EventSink) []engine.Option {
	return append(opts[:len(opts):len(opts)], engine.WithSink(sink))
}

// Run returns an iterator over the events of a debate: when ranged over, it
// calls run in a new goroutine with a sink that hands each event to the loop,
// in order (the debate waits while the loop body runs), and when run returns
// with an error it yields (zero Event, err) last. The loop's final event of a
// finished debate is debate_ended, whose Data is an [engine.Ended].
//
// If the loop stops early (break, return or panic), run's context is
// cancelled and the iterator waits for run to return before it does, so no
// goroutine outlives the loop; the debate stays resumable. run must return
// once its context is done, and must not emit after it returns.
func Run(ctx context.Context, run RunFunc) iter.Seq2[engine.Event, error] {
	return func(yield func(engine.Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		events := make(chan engine.Event)
		stopped := make(chan struct{}) // closed when the loop is done
		finished := make(chan struct{})
		var err error
		sink := engine.SinkFunc(func(_ context.Context, e engine.Event) {
			select {
			case events <- e:
			case <-stopped:
			}
		})
		go func() {
			defer close(finished)
			err = run(ctx, sink)
		}()
		var once sync.Once
		stop := func() {
			once.Do(func() {
				close(stopped)
				cancel()
				<-finished
			})
		}
		defer stop()
		for {
			select {
			case e := <-events:
				if !yield(e, nil) {
					return
				}
			case <-finished:
				stop()
				if err != nil {
					yield(engine.Event{}, err)
				}
				return
			}
		}
	}
}
