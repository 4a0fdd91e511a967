package events

import (
	"context"
	"iter"
	"sync"

	"github.com/duelogic/duelogic"
)

// RunFunc runs a debate with sink as its event sink, e.g. by calling
// [duelogic.Orchestrator.Run] on an orchestrator made with
// duelogic.WithSink(sink), or [duelogic.RunFormat] with that option.
type RunFunc func(ctx context.Context, sink duelogic.EventSink) (*duelogic.Result, error)

// Run returns an iterator over the events of a debate: when ranged over, it
// calls run in a new goroutine with a sink that hands each event to the loop,
// in order (the debate waits while the loop body runs), and when run returns
// with an error it yields (zero Event, err) last. The loop's final event of a
// finished debate is debate_ended, whose Result is the debate's result.
//
// If the loop stops early (break, return or panic), run's context is
// cancelled and the iterator waits for run to return before it does, so no
// goroutine outlives the loop; the debate stays resumable. run must return
// once its context is done, and must not emit after it returns.
func Run(ctx context.Context, run RunFunc) iter.Seq2[duelogic.Event, error] {
	return func(yield func(duelogic.Event, error) bool) {
		ctx, cancel := context.WithCancel(ctx)
		events := make(chan duelogic.Event)
		stopped := make(chan struct{}) // closed when the loop is done
		finished := make(chan struct{})
		var err error
		sink := duelogic.SinkFunc(func(_ context.Context, e duelogic.Event) {
			select {
			case events <- e:
			case <-stopped:
			}
		})
		go func() {
			defer close(finished)
			_, err = run(ctx, sink)
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
					yield(duelogic.Event{}, err)
				}
				return
			}
		}
	}
}
