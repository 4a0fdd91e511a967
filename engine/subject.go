package engine

import "context"

// Subject names the utterance of a debate that a model call is about: the
// speech the call generates ([SpeakingOf]), or the one a judgment judges
// ([JudgingOf]). A client wrapper (a tracer) ties the two together: the
// span of a speech and the evaluations of it.
type Subject struct {
	DebateID string
	// Key is the key of the step that stores the utterance, unique in the
	// debate.
	Key string
}

type speakingKey struct{}

type judgingKey struct{}

// SpeakingOf returns the utterance whose speech the model call of ctx
// generates ([Session.Say], [Session.SayWatched]); false for any other
// call.
func SpeakingOf(ctx context.Context) (Subject, bool) {
	s, ok := ctx.Value(speakingKey{}).(Subject)
	return s, ok
}

// JudgingOf returns the utterance that the model call of ctx judges: the
// checks made while a speech streams ([Session.SayWatched]) and the calls
// made with a context from [Session.Judging]; false for any other call.
func JudgingOf(ctx context.Context) (Subject, bool) {
	s, ok := ctx.Value(judgingKey{}).(Subject)
	return s, ok
}

// speaking returns ctx for the speech of the step key.
func (s *Session) speaking(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, speakingKey{}, Subject{DebateID: s.d.ID, Key: key})
}

// judging returns ctx for judgments of sub: no longer a speech's.
func judging(ctx context.Context, sub Subject) context.Context {
	return context.WithValue(context.WithValue(ctx, speakingKey{}, nil), judgingKey{}, sub)
}

// Judging returns ctx for model calls that judge the utterance stored with
// seq (an evaluation of a turn): [JudgingOf] names that utterance to a
// client wrapper, which may put the judgment's result on the span of its
// speech. An unknown seq leaves ctx as it is. It may be called from any
// goroutine.
func (s *Session) Judging(ctx context.Context, seq int64) context.Context {
	s.stateMu.Lock()
	key, ok := s.subjects[seq]
	s.stateMu.Unlock()
	if !ok {
		return ctx
	}
	return judging(ctx, Subject{DebateID: s.d.ID, Key: key})
}

// noteSubject remembers that the utterance seq was stored under key.
func (s *Session) noteSubject(seq int64, key string) {
	s.stateMu.Lock()
	s.subjects[seq] = key
	s.stateMu.Unlock()
}
