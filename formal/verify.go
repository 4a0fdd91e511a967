package formal

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/duelogic/duelogic/engine"
	"github.com/duelogic/duelogic/llm"
)

// Status is a verifier's finding on one source.
type Status string

// The findings of the seed's verifier.
const (
	// StatusVerified: the source exists and supports what is cited.
	StatusVerified Status = "verified"
	// StatusUnreliable: the source could not be confirmed, or does not
	// support the claim; the chair warns the debater.
	StatusUnreliable Status = "unreliable"
	// StatusFabricated: the source does not exist; the chair redacts the
	// entry citing it.
	StatusFabricated Status = "fabricated"
)

// parseStatus reads a status leniently ("Verified", "FABRICATED"), or
// returns "".
func parseStatus(s string) Status {
	switch st := Status(strings.ToLower(strings.TrimSpace(s))); st {
	case StatusVerified, StatusUnreliable, StatusFabricated:
		return st
	}
	return ""
}

// Verification is the finding on one source.
type Verification struct {
	Status Status `json:"status"`
	// Reason says why, in a sentence or two.
	Reason string `json:"reason"`
	// Usage is what the check cost in tokens (zero for checks without a
	// model).
	Usage llm.Usage `json:"usage"`
}

// SourceVerifier checks a cited source.
//
// Verify reports whether src exists and supports claim (the text of the entry
// citing it). A source that cannot be checked is a finding (usually
// [StatusUnreliable]), not an error: Verify returns an error only when it
// cannot reach a finding at all — ctx is done, a model call failed — and
// the debate stops with that error (it can be resumed). Verify is called from several goroutines at once and must be safe
// for concurrent use.
type SourceVerifier interface {
	Verify(ctx context.Context, src Source, claim string) (Verification, error)
}

// VerifierFunc adapts a function to [SourceVerifier].
type VerifierFunc func(ctx context.Context, src Source, claim string) (Verification, error)

// Verify calls f(ctx, src, claim).
func (f VerifierFunc) Verify(ctx context.Context, src Source, claim string) (Verification, error) {
	return f(ctx, src, claim)
}

// Combine returns a verifier that asks vs in order: the first that finds the
// source fabricated decides (the rest are not asked); otherwise the last one's
// finding holds. The reasons of all asked are joined and their usage summed.
//
// Combine(http, judge) is what [FetchThenJudge] builds: a page the HTTP check finds
// missing (404, 410, no such host) is fabricated whatever a model thinks;
// any other source is judged by the model (which is not shown the HTTP
// check's finding), so a page that exists but could not be read or matched
// is not held against the debater on that ground alone.
func Combine(vs ...SourceVerifier) SourceVerifier {
	return VerifierFunc(func(ctx context.Context, src Source, claim string) (Verification, error) {
		var out Verification
		var reasons []string
		for _, v := range vs {
			got, err := v.Verify(ctx, src, claim)
			if err != nil {
				return Verification{}, err
			}
			out.Status = got.Status
			out.Usage = out.Usage.Add(got.Usage)
			if got.Reason != "" {
				reasons = append(reasons, got.Reason)
			}
			if got.Status == StatusFabricated {
				break
			}
		}
		out.Reason = strings.Join(reasons, " ")
		if out.Status == "" {
			return Verification{}, errors.New("formal: Combine of no verifiers")
		}
		return out, nil
	})
}

// JudgeOnly is a verifier builder for [WithVerifier] that checks sources with
// the debate's LLM judge alone, without fetching them, so a debate runs
// offline; it is the default.
func JudgeOnly(judge SourceVerifier) SourceVerifier { return judge }

// LLMVerifier asks a model whether a source is real and supports the claim
// citing it (purpose "verification", a JSON reply {"status", "reason"} whose
// JSON Schema the request carries). The model cannot browse: it judges from
// what it knows of the site, the title and the claim. An unreadable reply is
// asked again once (see [engine.JudgeWith]); a reply still unreadable is the
// finding [StatusUnreliable], saying so: the source could not be checked.
type LLMVerifier struct {
	Client llm.Client
	// Model is the verifier's model ID.
	Model string
}

// Verify asks the model for its finding on src.
func (v *LLMVerifier) Verify(ctx context.Context, src Source, claim string) (Verification, error) {
	if v.Client == nil {
		return Verification{}, errors.New("formal: LLMVerifier without a Client")
	}
	req := llm.Request{
		Model: v.Model, Purpose: PurposeVerification, Schema: json.RawMessage(verificationSchema), Temperature: ptr(0.0),
		MaxTokens: MaxTokensVerification, Messages: verificationPrompt(src, claim).Messages(),
	}
	out, res, usage, err := engine.JudgeWith(ctx, v.Client, req, parseVerification)
	if err != nil {
		return Verification{}, fmt.Errorf("formal: verify %s: %w", src.URL, err)
	}
	if res.Defaulted {
		out = Verification{Status: StatusUnreliable, Reason: "The verifier's finding could not be read (" + res.Problem + "), so the source stands unconfirmed."}
	}
	out.Usage = usage
	return out, nil
}

// parseVerification reads the judge's {"status", "reason"} reply.
func parseVerification(reply string) (Verification, error) {
	m, err := jsonObject(reply)
	if err != nil {
		return Verification{}, err
	}
	raw, _ := lookup(m, "status")
	s, _ := raw.(string)
	st := parseStatus(s)
	if st == "" {
		return Verification{}, fmt.Errorf(`"status" is %s; want "verified", "unreliable" or "fabricated"`, describe(raw))
	}
	reason := stringField(m, "reason")
	if reason == "" {
		return Verification{}, errors.New(`"reason" is missing`)
	}
	return Verification{Status: st, Reason: reason}, nil
}
