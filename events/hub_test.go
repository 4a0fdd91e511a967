package events_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/events"
)

func ev(id string, typ engine.EventType, seq int64) engine.Event {
	return engine.Event{DebateID: id, Type: typ, Seq: seq}
}

// drain reads a closed-or-closing subscription to its end.
func drain(s *events.Subscription) []string {
	var out []string
	for e := range s.Events() {
		out = append(out, fmt.Sprintf("%s:%s:%d", e.DebateID, e.Type, e.Seq))
	}
	return out
}

func TestHubFansOutInOrderAndEnds(t *testing.T) {
	ctx := context.Background()
	h := events.NewHub(0)
	h.Open("a")
	s1, s2 := h.Subscribe("a"), h.Subscribe("a")
	other := h.Subscribe("b") // unknown: not live
	h.Emit(ctx, ev("a", engine.EventDebateStarted, 1))
	h.Emit(ctx, ev("b", engine.EventDebateStarted, 1)) // another debate
	h.Emit(ctx, ev("a", engine.EventToken, 0))
	h.Emit(ctx, ev("a", engine.EventDebateEnded, 2))
	if h.Subscribe("a").Live() {
		t.Error("debate a still known after debate_ended")
	}
	h.Emit(ctx, ev("a", engine.EventToken, 0)) // after the end: the old subscribers do not hear it
	want := []string{"a:debate_started:1", "a:token:0", "a:debate_ended:2"}
	for i, s := range []*events.Subscription{s1, s2} {
		if !s.Live() || s.Last() != 0 {
			t.Errorf("sub %d: Live, Last = %v, %d; want true, 0", i, s.Live(), s.Last())
		}
		if diff := cmp.Diff(want, drain(s)); diff != "" {
			t.Errorf("sub %d (-want +got):\n%s", i, diff)
		}
		if err := s.Err(); err != nil {
			t.Errorf("sub %d: Err = %v; want nil after the end", i, err)
		}
	}
	if other.Live() || len(drain(other)) != 0 {
		t.Errorf("subscription to an unknown debate is live or has events")
	}
	// "b" became known by its event.
	if !h.Subscribe("b").Live() {
		t.Error("debate b unknown after its event")
	}
}

func TestHubLastIsHighestSeqBeforeSubscribing(t *testing.T) {
	ctx := context.Background()
	h := events.NewHub(0)
	h.Emit(ctx, ev("a", engine.EventUtterance, 5))
	h.Emit(ctx, ev("a", engine.EventArgumentMap, 4)) // out of order, as side steps may be
	h.Emit(ctx, ev("a", engine.EventToken, 0))
	s := h.Subscribe("a")
	defer s.Close()
	if !s.Live() || s.Last() != 5 {
		t.Errorf("Live, Last = %v, %d; want true, 5", s.Live(), s.Last())
	}
}

func TestHubDropsSlowSubscriberWithoutBlocking(t *testing.T) {
	ctx := context.Background()
	h := events.NewHub(2)
	if h.Subscribe("a").Live() {
		t.Fatal("subscription live before the debate is known")
	}
	h.Open("a")
	slow, fast := h.Subscribe("a"), h.Subscribe("a")
	var got []int64
	for i := int64(1); i <= 5; i++ {
		h.Emit(ctx, ev("a", engine.EventUtterance, i)) // must not block on slow
		e := <-fast.Events()
		got = append(got, e.Seq)
	}
	if diff := cmp.Diff([]int64{1, 2, 3, 4, 5}, got); diff != "" {
		t.Errorf("fast subscriber (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"a:utterance:1", "a:utterance:2"}, drain(slow)); diff != "" {
		t.Errorf("slow subscriber keeps its buffer, then its channel closes (-want +got):\n%s", diff)
	}
	if err := slow.Err(); !errors.Is(err, events.ErrSlowSubscriber) {
		t.Errorf("slow Err = %v; want ErrSlowSubscriber", err)
	}
	if fast.Err() != nil {
		t.Errorf("fast Err = %v", fast.Err())
	}
	fast.Close()
	fast.Close() // twice is fine
	h.Emit(ctx, ev("a", engine.EventUtterance, 6))
}

func TestHubCloseEndsSubscriptionsWithTheRunError(t *testing.T) {
	ctx := context.Background()
	h := events.NewHub(0)
	h.Open("a")
	s := h.Subscribe("a")
	h.Emit(ctx, ev("a", engine.EventDebateStarted, 1))
	boom := errors.New("model down")
	h.Close("a", boom)
	h.Close("a", nil) // forgotten: no effect
	if diff := cmp.Diff([]string{"a:debate_started:1"}, drain(s)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	if err := s.Err(); err != boom {
		t.Errorf("Err = %v; want %v", err, boom)
	}
	if h.Subscribe("a").Live() {
		t.Error("debate still known after Close")
	}
}

func TestHubConcurrentUse(t *testing.T) {
	ctx := context.Background()
	h := events.NewHub(8)
	h.Open("a")
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				s := h.Subscribe("a")
				for range 3 {
					select {
					case <-s.Events():
					default:
					}
				}
				s.Err()
				s.Close()
			}
		})
	}
	for i := range int64(2000) {
		h.Emit(ctx, ev("a", engine.EventUtterance, i+1))
	}
	wg.Wait()
	h.Emit(ctx, ev("a", engine.EventDebateEnded, 3000))
}
