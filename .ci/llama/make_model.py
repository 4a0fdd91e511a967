#!/usr/bin/env python3
"""Write a tiny synthetic qwen2 GGUF model for the llama-server integration tests.

    PYTHONPATH=<llama.cpp>/gguf-py python3 make_model.py VOCAB.gguf OUT.gguf

VOCAB.gguf is one of llama.cpp's vocab-only files (models/ggml-vocab-qwen2.gguf):
its tokenizer keys (tokens, merges, special ids, chat template) are copied as
they are, so the server tokenizes and applies the chat template like a real
Qwen2 model. The weights are new: a few small transformer layers of random
numbers (seeded, so every run writes the same file), fast on two CPU cores.

The model must be able to end an answer, or no test could see the finish
reason "stop": a purely random model almost never samples an end-of-turn
token. So the token embeddings are random except for a short chain of tokens,
whose embeddings are made orthogonal, and the output head maps each of them
to the next one: the reply to any chat prompt (which ends in "\n" after
"<|im_start|>assistant") is REPLY below, then "<|im_end|>". The layers stay
random but small next to the embeddings, so they do not change that choice.
Any other context gives near-random tokens, which soon fall into the chain.
"""

import sys

import numpy as np

import gguf

ARCH = "qwen2"
N_EMBD = 64  # hidden size
N_LAYER = 4
N_HEAD = 4  # head size 16
N_HEAD_KV = 2  # grouped-query attention, as in Qwen2
N_FF = 128
N_CTX_TRAIN = 4096
SEED = 20260301

# The chain: after the prompt's last token ("\n", byte-level BPE "Ċ"), the
# model says these tokens, then ends its turn.
START = "Ċ"
REPLY = ["Hello", "Ġfrom", "Ġa", "Ġtiny", "Ġtest", "Ġmodel", "."]
END = "<|im_end|>"
QUOTE = '"'

# Fallback when the vocab file carries no chat template: ChatML, as Qwen2 uses.
CHATML = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


def copy_tokenizer(reader, writer):
    """Copy every tokenizer.* key of the vocab file; return the token list."""
    tokens = None
    for key, field in reader.fields.items():
        if not key.startswith("tokenizer."):
            continue
        vtype = field.types[0]
        value = field.contents()
        if vtype == gguf.GGUFValueType.ARRAY:
            writer.add_key_value(key, value, vtype, sub_type=field.types[-1])
        else:
            writer.add_key_value(key, value, vtype)
        if key == gguf.Keys.Tokenizer.LIST:
            tokens = value
    if tokens is None:
        sys.exit(f"{reader.data.filename}: no {gguf.Keys.Tokenizer.LIST}")
    if gguf.Keys.Tokenizer.CHAT_TEMPLATE not in reader.fields:
        writer.add_chat_template(CHATML)
    return tokens


def weights(rng, tokens):
    """The model's tensors, by GGUF name (numpy shapes are ggml's reversed)."""
    n_vocab = len(tokens)
    head = N_EMBD // N_HEAD
    n_kv = N_HEAD_KV * head
    index = {t: i for i, t in enumerate(tokens)}
    chain = [START] + REPLY + [END]
    missing = [t for t in chain + [QUOTE] if t not in index]
    if missing:
        sys.exit(f"tokens not in the vocabulary: {missing}")
    ids = [index[t] for t in chain]

    def rand(*shape, std=0.02):
        return rng.normal(0.0, std, size=shape).astype(np.float32)

    # Embeddings of RMS 1; the chain's are orthogonal to one another.
    embd = rng.normal(0.0, 1.0, size=(n_vocab, N_EMBD)).astype(np.float32)
    q, _ = np.linalg.qr(rng.normal(size=(N_EMBD, len(ids))))
    embd[ids] = (q.T * np.sqrt(N_EMBD)).astype(np.float32)
    # Output head: small random rows, except that the row of each chain token
    # points along the embedding of the token before it.
    out = rand(n_vocab, N_EMBD)
    for prev, nxt in zip(ids, ids[1:]):
        out[nxt] = 6.0 * embd[prev] / np.linalg.norm(embd[prev])
    # Second choice after the reply's last token: a double quote. Where a
    # grammar forbids the end of turn (a reply constrained to a JSON schema),
    # the model closes the string it is in, so that it gets to the end of the
    # object instead of writing until max_tokens.
    last = ids[-2]
    out[index[QUOTE]] = 4.0 * embd[last] / np.linalg.norm(embd[last])

    t = {
        "token_embd.weight": embd.astype(np.float16),
        "output_norm.weight": np.ones(N_EMBD, dtype=np.float32),
        "output.weight": out.astype(np.float16),
    }
    for i in range(N_LAYER):
        b = f"blk.{i}."
        t[b + "attn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        t[b + "attn_q.weight"] = rand(N_EMBD, N_EMBD)
        t[b + "attn_q.bias"] = rand(N_EMBD)
        t[b + "attn_k.weight"] = rand(n_kv, N_EMBD)
        t[b + "attn_k.bias"] = rand(n_kv)
        t[b + "attn_v.weight"] = rand(n_kv, N_EMBD)
        t[b + "attn_v.bias"] = rand(n_kv)
        t[b + "attn_output.weight"] = rand(N_EMBD, N_EMBD)
        t[b + "ffn_norm.weight"] = np.ones(N_EMBD, dtype=np.float32)
        t[b + "ffn_gate.weight"] = rand(N_FF, N_EMBD)
        t[b + "ffn_up.weight"] = rand(N_FF, N_EMBD)
        t[b + "ffn_down.weight"] = rand(N_EMBD, N_FF)
    return t


def main(argv):
    if len(argv) != 3:
        sys.exit("usage: make_model.py VOCAB.gguf OUT.gguf")
    vocab_path, out_path = argv[1], argv[2]
    reader = gguf.GGUFReader(vocab_path)
    arch = reader.fields.get(gguf.Keys.General.ARCHITECTURE)
    if arch is None or arch.contents() != ARCH:
        sys.exit(f"{vocab_path}: not a {ARCH} vocabulary")

    writer = gguf.GGUFWriter(out_path, ARCH)
    writer.add_name("duelogic-ci-tiny-qwen2")
    writer.add_description("random weights, for integration tests only")
    writer.add_context_length(N_CTX_TRAIN)
    writer.add_embedding_length(N_EMBD)
    writer.add_block_count(N_LAYER)
    writer.add_feed_forward_length(N_FF)
    writer.add_head_count(N_HEAD)
    writer.add_head_count_kv(N_HEAD_KV)
    writer.add_rope_freq_base(1000000.0)
    writer.add_layer_norm_rms_eps(1e-6)
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)
    tokens = copy_tokenizer(reader, writer)

    for name, tensor in weights(np.random.default_rng(SEED), tokens).items():
        writer.add_tensor(name, tensor)

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    main(sys.argv)
