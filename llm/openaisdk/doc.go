// Package openaisdk turns a client of the official OpenAI Go SDK
// (github.com/openai/openai-go/v3) into an [llm.Client], for hosts that
// already configure that SDK (its API key, base URL, Azure or proxy
// middleware) and want duelogic to use it.
//
// [Client] sends each [llm.Request] to the Chat Completions API and
// implements [llm.Streamer] with its event stream. It maps:
//
//   - the request's messages to system, user and assistant messages, its
//     Temperature to temperature and MaxTokens to max_completion_tokens;
//   - Request.Schema to response_format {"type": "json_schema"}, named after
//     the request's Purpose the way duelogic's own llm/openai client names
//     it, and strict when the schema is in OpenAI's strict subset
//     (jsonschema.Strict); a request that sets JSON without a Schema gets
//     {"type": "json_object"};
//   - usage, with prompt_tokens_details.cached_tokens as
//     [llm.Usage.CachedPromptTokens] and
//     completion_tokens_details.reasoning_tokens as
//     [llm.Usage.ReasoningTokens] (streams ask for the usage chunk with
//     stream_options.include_usage);
//   - finish reasons to [llm.FinishStop] and [llm.FinishLength].
//
// # Errors and retries
//
// duelogic has one retry layer, [llm.Retry] (which the debate engine's
// callers wrap around their client), so the Client turns the SDK's own
// retries off: every call carries option.WithMaxRetries(0). Pass
// [WithRequestOptions](option.WithMaxRetries(n)) to have the SDK retry
// instead. An error from the server is returned wrapped so that
// [llm.IsRetryable] follows the rules of duelogic's llm/openai client: the
// server's x-should-retry header when it sends one, else 408, 409, 429 and
// any 5xx are retryable, and every other status (400, 401, 402, 403, 404,
// 422) is final; the wait of retry-after-ms or Retry-After is
// [llm.RetryDelay]. An error that says the prompt exceeds the model's
// context ("context_length_exceeded") matches [llm.ErrContextOverflow] and
// is never retried. [errors.As] still reaches the SDK's *openai.Error.
// A failure with no response from the server (a transport error) is
// returned wrapped and is not retryable: the request may have reached the
// server.
// An error event inside a stream is retryable when its type or code says
// server_error or rate limit; a stream that ends before its finish reason
// fails with [ErrTruncated], which is final (the server may have billed
// the work).
package openaisdk
