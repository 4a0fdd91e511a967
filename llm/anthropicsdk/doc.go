// Package anthropicsdk turns a client of Anthropic's Go SDK
// (github.com/anthropics/anthropic-sdk-go/v2) into an [llm.Client], for
// hosts that already configure that SDK (its API key, base URL, Bedrock or
// Vertex middleware) and want duelogic to use it.
//
// [Client] sends each [llm.Request] to the Messages API and implements
// [llm.Streamer] with its event stream. It maps:
//
//   - the request's leading system messages to the top-level system
//     prompt, and the rest to user, assistant and (for a system message
//     after the conversation has started) system messages in order;
//   - MaxTokens to max_tokens, which the API requires: a request without
//     one gets [DefaultMaxTokens] (see [WithMaxTokens]);
//   - Request.Schema to structured outputs, output_config.format
//     {"type": "json_schema", "schema": ...}: the model's text answer is
//     then one JSON value in the schema, so a JSON reply streams like any
//     other. This is the API's own mechanism for a reply in a schema, and
//     the closest to OpenAI's json_schema response_format; forcing a tool
//     whose input_schema is the schema would also work, but its reply
//     arrives as input_json_delta fragments of a tool call rather than as
//     text. A request that sets JSON without a Schema sends nothing extra:
//     the API has no plain JSON mode, and the prompt asks for JSON;
//   - usage: input_tokens excludes the tokens read from or written to the
//     prompt cache, so [llm.Usage.PromptTokens] is input_tokens +
//     cache_read_input_tokens + cache_creation_input_tokens, of which
//     cache_read_input_tokens are [llm.Usage.CachedPromptTokens];
//     output_tokens_details.thinking_tokens are
//     [llm.Usage.ReasoningTokens];
//   - stop reasons to [llm.FinishStop] (end_turn, stop_sequence) and
//     [llm.FinishLength] (max_tokens, model_context_window_exceeded);
//     others (refusal, pause_turn, tool_use) are passed on.
//
// Request.Temperature is not sent: the API version of this SDK
// (2026-10-21) has no sampling temperature, and the SDK no field for it; a
// host whose model takes one can add it with
// [WithPerRequest] and option.WithJSONSet("temperature", ...).
//
// # Errors and retries
//
// duelogic has one retry layer, [llm.Retry], so the Client turns the SDK's
// own retries off: every call carries option.WithMaxRetries(0). Pass
// [WithRequestOptions](option.WithMaxRetries(n)) to have the SDK retry
// instead. An error from the server is returned wrapped so that
// [llm.IsRetryable] follows the rules of duelogic's llm/openai client: the
// server's x-should-retry header when it sends one, else 408, 409, 429 and
// any 5xx (529 overloaded included) are retryable, and every other status
// is final; the wait of retry-after-ms or Retry-After is
// [llm.RetryDelay]. An error event inside a stream is retryable when its
// type is overloaded_error, api_error, rate_limit_error or timeout_error.
// A prompt that does not fit the model's context ("prompt is too long")
// matches [llm.ErrContextOverflow] and is never retried. [errors.As] still
// reaches the SDK's *anthropic.Error. A failure with no response from the
// server (a transport error) is returned wrapped and is not retryable: the
// request may have reached the server. A stream that ends before its
// message_stop fails with [ErrTruncated], which is final.
package anthropicsdk
