// Package openai is a client for OpenAI-compatible chat completions APIs —
// OpenAI, OpenRouter, Ollama, vLLM, LM Studio, llama.cpp's server and the
// many others that copy the shape — written on net/http alone. [Client]
// implements [llm.Client] and [llm.Streamer], so it plugs straight into the
// debate engine:
//
//	client := openai.New(openai.Config{APIKey: os.Getenv("OPENAI_API_KEY")})
//	resp, err := client.Complete(ctx, llm.Request{
//		Model:    "gpt-4.1-mini",
//		Messages: []llm.Message{{Role: llm.User, Content: "Steel-man the other side."}},
//	})
//
// # Servers
//
// OpenAI needs only the key ([DefaultBaseURL] is used). Its reasoning models
// want max_completion_tokens instead of max_tokens:
//
//	openai.New(openai.Config{APIKey: key, UseMaxCompletionTokens: true})
//
// OpenRouter takes its attribution headers in Headers and its routing
// preferences in ExtraBody:
//
//	openai.New(openai.Config{
//		BaseURL: "https://openrouter.ai/api/v1",
//		APIKey:  os.Getenv("OPENROUTER_API_KEY"),
//		Headers: http.Header{
//			"HTTP-Referer": {"https://example.com/debates"},
//			"X-Title":      {"Duelogic"},
//		},
//		ExtraBody: map[string]any{
//			"provider": map[string]any{"order": []string{"Anthropic"}, "allow_fallbacks": false},
//		},
//	})
//
// Local servers need no key (an empty APIKey sends no Authorization header):
//
//	openai.New(openai.Config{BaseURL: "http://localhost:11434/v1"}) // Ollama
//	openai.New(openai.Config{BaseURL: "http://localhost:8000/v1"})  // vLLM (vllm serve)
//	openai.New(openai.Config{BaseURL: "http://localhost:8080"})     // llama.cpp (llama-server)
//
// vLLM's sampling extensions go in ExtraBody, e.g.
// map[string]any{"top_k": 20, "repetition_penalty": 1.05}. LM Studio
// (http://localhost:1234/v1) accepts only JSON schemas as response_format,
// so give one for the [llm.Request.JSON] requests that carry no Schema:
//
//	openai.New(openai.Config{
//		BaseURL:        "http://localhost:1234/v1",
//		ResponseFormat: json.RawMessage(`{"type":"json_schema","json_schema":{"name":"reply","schema":{"type":"object"}}}`),
//	})
//
// # Base URL
//
// The chat completions URL is derived from [Config.BaseURL] so that no path
// segment is lost or doubled, with or without a trailing slash:
//
//   - a path that already ends in /chat/completions is used as it is;
//   - a path with a version segment anywhere (v1, v1beta, v4, ...) gets
//     /chat/completions: https://openrouter.ai/api/v1,
//     https://api.groq.com/openai/v1,
//     https://generativelanguage.googleapis.com/v1beta/openai;
//   - any other path gets /v1/chat/completions: http://localhost:8000 and
//     http://localhost:8000/v1 reach the same endpoint, and
//     https://openrouter.ai/api becomes https://openrouter.ai/api/v1/...
//
// A server whose endpoint has no version segment at all (Perplexity's
// https://api.perplexity.ai/chat/completions) is reached by giving the full
// endpoint URL. The query string is kept (Azure's api-version).
//
// # Requests
//
// A request carries model, messages, temperature (sent whenever
// [llm.Request.Temperature] is set, even to 0), max_tokens or
// max_completion_tokens (only when MaxTokens > 0), a response_format when
// the request wants JSON (see below), and for streams "stream": true with
// stream_options.include_usage so that token usage arrives at the end.
// [Config.ExtraBody] adds any other field. Every request has an
// Idempotency-Key header of its own, repeated when it is retried.
//
// # Structured output
//
// A request with an [llm.Request.Schema] asks for it with
//
//	"response_format": {"type": "json_schema", "json_schema":
//	    {"name": "<purpose>", "schema": <Schema>, "strict": true}}
//
// which OpenAI, llama.cpp, vLLM, Ollama and LM Studio turn into a
// constraint on what the model may write. The name is the request's
// Purpose, its characters outside a-z, A-Z, 0-9, '_' and '-' replaced by
// '_', cut at 64 ("reply" when nothing is left); "strict" is false for a
// schema outside OpenAI's strict subset ([jsonschema.Strict]). A request
// that wants JSON without a Schema ([llm.Request.JSON]) sends
// {"type":"json_object"}, or [Config.ResponseFormat].
//
// Not every server takes these. When one answers 400 (or 422) with an
// error that names response_format, json_schema or structured outputs, the
// client sends the same request again at once with the next simpler
// format — json_schema, then json_object (or [Config.ResponseFormat]),
// then none, the prompt alone asking for JSON — and remembers the refusal
// for the request's model: later requests of the same [Client] for that
// model start at the format that worked, while other models behind the same
// server (a gateway, several models loaded in LM Studio) are still sent the
// richest. The step is logged once per model to [Config.Logger]. Any other 400 is final, as
// before. The caller validates the reply in any case.
//
// # Retries
//
// A failed request is sent again, up to [Config.MaxRetries] times (default
// 2), only when that is safe:
//
//   - the server answered 408, 409, 429 or 5xx, or sent x-should-retry: true
//     (x-should-retry: false forbids a retry whatever the status); 402
//     (out of credits) and every other 4xx are final;
//   - the connection failed before the request was written in full (a
//     refused or timed-out dial, a reset during the TLS handshake, a
//     temporary DNS failure), so the server cannot have acted on it.
//
// One more case is handled below the client, by net/http's Transport: a
// request sent on a reused keep-alive connection that the server closed
// before answering a single byte — llama-server and uvicorn drop idle
// connections after about five seconds, and a request may go out at that
// very moment — is sent again on a fresh connection, because it carries
// an Idempotency-Key and a body that can be read again. A Config.HTTPClient
// whose Transport is not an [*http.Transport] must do this itself.
//
// A connection that fails after the request was written, and anything that
// goes wrong once a 200 response has started, is not retried: the server
// may have generated (and billed) the answer. Such errors also report
// [llm.IsRetryable] false, except for error objects whose type says the
// server failed; a caller that prefers paying twice to failing can retry
// [ErrTruncated] itself.
//
// The wait before a retry is the server's retry-after-ms or Retry-After
// (seconds or an HTTP date), capped at one minute; else 0.5s doubling up to
// 8s, less up to a quarter at random. Cancelling ctx ends the wait.
//
// # Streams
//
// [Client.Stream] reads server-sent events per the WHATWG rules: "data:"
// with or without a space, multi-line data, "\r\n" line endings, comment
// lines such as OpenRouter's ": OPENROUTER PROCESSING" (skipped, however
// many), lines of several megabytes (up to 8 MiB). Chunks with only a role,
// with null or empty choices, and usage on any chunk (the last one counts)
// are handled. A stream that ends without a finish_reason or [DONE] is an
// [ErrTruncated] error, never a short success; an error event keeps the
// partial text in [StreamError]. A stream cut after its finish_reason but
// before its usage chunk succeeds with usage estimated at about four
// characters a token, and says so. [Config.IdleTimeout] (default 2 minutes)
// bounds the silence between chunks, not the length of a stream, so long
// debate turns are never cut. Cancelling ctx closes the connection at once.
//
// # Errors and secrets
//
// A non-2xx response becomes an [*APIError] parsed from any known error
// body shape, with the request ID from the response headers. A prompt too
// long for the model's context matches [llm.ErrContextOverflow] and is
// never retried; the error says the prompt's and the context's sizes when
// the server gives them (llama.cpp does). Finish reasons are normalized to
// [llm.FinishStop] and [llm.FinishLength] where the provider uses other
// words for them. The API key
// never appears in errors, logs or the String of [Config] and [Client]:
// errors carry only the server's message (with the key removed should the
// server echo it), never request headers or bodies. Bodies are size-capped:
// error bodies at 1 MiB, other responses and streamed answers at 32 MiB.
//
// [jsonschema.Strict]: https://pkg.go.dev/github.com/duelogic/duelogic/llm/jsonschema#Strict
package openai
