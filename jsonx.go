package duelogic

import (
	"math"

	"github.com/duelogic/duelogic/internal/llmtext"
)

// Shorthands for the reply-reading helpers of package llmtext.
var (
	extractJSONObject = llmtext.Object
	field             = llmtext.Lookup
	asNumber          = llmtext.Number
	asBool            = llmtext.Bool
	asString          = llmtext.String
	asStrings         = llmtext.Strings
	asMap             = llmtext.Map
	truncateRunes     = llmtext.Truncate
	fence             = llmtext.Fence
	oneLine           = llmtext.OneLine
)

// errNoJSON means a model's reply held no JSON object.
var errNoJSON = llmtext.ErrNoJSON

func clamp(x, lo, hi float64) float64 { return math.Max(lo, math.Min(hi, x)) }
