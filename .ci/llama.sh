#!/usr/bin/env bash
# .ci/llama.sh — build and run llama.cpp's llama-server, a real
# OpenAI-compatible inference server, with a tiny synthetic model, for the
# llm/openai integration tests.
#
# Sourced (bash), it starts the server and leaves it running:
#
#   source .ci/llama.sh || exit 1      # exports DUELOGIC_LLAMACPP_URL and LLAMA_PID
#   go test -race ./llm/openai/        # the LlamaServer* tests run instead of skipping
#   llama_stop                         # or: kill "$LLAMA_PID"
#
# Executed, it runs a command with the server up and stops it afterwards (or,
# with no command, prints the address and serves until interrupted):
#
#   .ci/llama.sh go test -race -run LlamaServer ./llm/openai/
#
# The llama.cpp source is the one the npm package node-llama-cpp ships (a git
# bundle, llama/gitRelease.bundle), installed at the exact version below into
# a cache directory. From it llama-server is built with cmake (CPU only,
# Release, the server target alone; 20-30 minutes on two cores the first
# time, printed), and .ci/llama/make_model.py writes the model: a few small qwen2
# layers of random weights with the real Qwen2 tokenizer and chat template,
# copied from the source's vocab-only models/ggml-vocab-qwen2.gguf. The binary
# and the model are cached and reused by later runs; the model is rebuilt
# when make_model.py changes. Missing tools (cmake, a C++ compiler, git, curl,
# Debian's python3 with numpy and yaml) are installed with apt-get.
#
# The server listens on 127.0.0.1 (a free port unless LLAMA_PORT is set) with
# a small context (LLAMA_CTX tokens shared by LLAMA_PARALLEL slots). It needs
# no API key. Its replies: see make_model.py.
#
# Environment (all optional):
#   LLAMA_NPM_VERSION  node-llama-cpp version whose llama.cpp is built (default: the pinned one below)
#   LLAMA_CACHE        cache directory (default: ${XDG_CACHE_HOME:-~/.cache}/duelogic/llama-<version>)
#   LLAMA_PORT         port to listen on (default: 0, any free port)
#   LLAMA_CTX          context size in tokens (default: 8192; 4096 a slot)
#   LLAMA_PARALLEL     parallel slots (default: 2)
#   LLAMA_LOG          server log file (default: a new temporary file; exported)

LLAMA_NPM_VERSION="${LLAMA_NPM_VERSION:-3.22.1}"

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || return 1 2>/dev/null || exit 1

# llama_need_tools installs what building the server (build) or writing the
# model (model) needs, when missing.
llama_need_tools() {
	local pkgs=() what
	command -v git >/dev/null 2>&1 || pkgs+=(git)
	command -v curl >/dev/null 2>&1 || pkgs+=(curl)
	for what in "$@"; do
		case "$what" in
		build)
			command -v cmake >/dev/null 2>&1 || pkgs+=(cmake)
			{ command -v c++ >/dev/null 2>&1 && command -v make >/dev/null 2>&1; } || pkgs+=(build-essential)
			;;
		model)
			# Debian's python3, whatever python3 comes first on PATH: its
			# numpy is the one apt installs.
			[ -x /usr/bin/python3 ] || pkgs+=(python3)
			/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || pkgs+=(python3-numpy)
			/usr/bin/python3 -c 'import yaml' >/dev/null 2>&1 || pkgs+=(python3-yaml)
			;;
		esac
	done
	if [ ${#pkgs[@]} -gt 0 ]; then
		ci_apt llama.sh "${pkgs[@]}" || return 1
	fi
}

# llama_source installs node-llama-cpp into $1/npm (when missing) and clones
# the llama.cpp source it ships into $1/src.
llama_source() {
	local cache="$1" pkg
	pkg="$cache/npm/node_modules/node-llama-cpp"
	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "llama.sh: node and npm are required" >&2
		return 1
	fi
	if [ "$(node -p "try{require('$pkg/package.json').version}catch(e){''}" 2>/dev/null)" != "$LLAMA_NPM_VERSION" ]; then
		echo "llama.sh: installing node-llama-cpp@$LLAMA_NPM_VERSION into $cache/npm" >&2
		mkdir -p "$cache/npm" || return 1
		# Its install scripts would fetch or build binaries of its own, and its
		# optional dependencies are prebuilt binaries: only the source is used.
		npm install --prefix "$cache/npm" --no-save --no-package-lock --no-audit --no-fund \
			--ignore-scripts --omit=optional --loglevel=error "node-llama-cpp@$LLAMA_NPM_VERSION" >&2 || return 1
		if [ "$(node -p "require('$pkg/package.json').version")" != "$LLAMA_NPM_VERSION" ]; then
			echo "llama.sh: npm installed another version than $LLAMA_NPM_VERSION" >&2
			return 1
		fi
	fi
	if [ ! -f "$pkg/llama/gitRelease.bundle" ]; then
		echo "llama.sh: node-llama-cpp@$LLAMA_NPM_VERSION has no llama/gitRelease.bundle" >&2
		return 1
	fi
	if [ ! -f "$cache/src/CMakeLists.txt" ]; then
		rm -rf "$cache/src"
		git -c advice.detachedHead=false clone --quiet "$pkg/llama/gitRelease.bundle" "$cache/src" >&2
		[ -f "$cache/src/CMakeLists.txt" ] || { echo "llama.sh: cloning the llama.cpp bundle failed" >&2; return 1; }
	fi
}

# llama_build builds llama-server from $1/src into $1/bin.
llama_build() {
	local cache="$1" build t0 t1
	build="$cache/build"
	t0=$(date +%s)
	echo "llama.sh: building llama-server (CPU, Release) with $(nproc) jobs; log $cache/build.log" >&2
	rm -rf "$build"
	# No network during the build: no web UI download, no TLS (the server
	# is reached over plain HTTP on loopback).
	if ! {
		cmake -S "$cache/src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF \
			-DGGML_CCACHE=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF \
			-DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
			-DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_OPENSSL=OFF &&
			cmake --build "$build" --config Release --target llama-server -j"$(nproc)"
	} >"$cache/build.log" 2>&1; then
		echo "llama.sh: the build failed; the end of $cache/build.log:" >&2
		tail -n 40 "$cache/build.log" >&2
		return 1
	fi
	mkdir -p "$cache/bin" || return 1
	cp "$build/bin/llama-server" "$cache/bin/llama-server.tmp" && mv "$cache/bin/llama-server.tmp" "$cache/bin/llama-server" || return 1
	rm -rf "$build"
	t1=$(date +%s)
	echo "llama.sh: built llama-server in $((t1 - t0)) s" >&2
}

# llama_model writes the model $2 with the script $3 from the source in $1.
llama_model() {
	local cache="$1" out="$2" script="$3" old t0 t1
	t0=$(date +%s)
	PYTHONPATH="$cache/src/gguf-py" /usr/bin/python3 "$script" "$cache/src/models/ggml-vocab-qwen2.gguf" "$out.tmp" >&2 || {
		rm -f "$out.tmp"
		echo "llama.sh: writing the model failed" >&2
		return 1
	}
	mv "$out.tmp" "$out" || return 1
	for old in "$cache"/model-*.gguf; do # those of earlier versions of the script
		[ "$old" = "$out" ] || rm -f "$old"
	done
	t1=$(date +%s)
	echo "llama.sh: wrote $out ($(du -h "$out" | cut -f1)) in $((t1 - t0)) s" >&2
}

llama_start() {
	local root cache bin script model log url need=() t0
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" || return 1
	cache="${LLAMA_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/duelogic/llama-$LLAMA_NPM_VERSION}"
	bin="$cache/bin/llama-server"
	script="$root/.ci/llama/make_model.py"
	model="$cache/model-$(sha256sum "$script" | cut -c1-12).gguf"

	[ -x "$bin" ] || need+=(build)
	[ -f "$model" ] || need+=(model)
	if [ ${#need[@]} -gt 0 ]; then
		llama_need_tools "${need[@]}" || return 1
		mkdir -p "$cache" || return 1
		llama_source "$cache" || return 1
		if [ ! -x "$bin" ]; then
			llama_build "$cache" || return 1
		fi
		if [ ! -f "$model" ]; then
			llama_model "$cache" "$model" "$script" || return 1
		fi
		# The source (200 MB) is cloned again from the bundle when needed.
		rm -rf "$cache/src"
	fi
	command -v curl >/dev/null 2>&1 || llama_need_tools || return 1

	log="${LLAMA_LOG:-$(mktemp "${TMPDIR:-/tmp}/llama-server.XXXXXX")}" || return 1
	: >"$log" || return 1
	export LLAMA_LOG="$log"
	t0=$(date +%s%N)
	# Started in a subshell so that no job-control notice appears and the
	# process is not tied to this shell's job table; its PID is kept. One
	# thread: the model is tiny, and several threads spin against each
	# other and against the tests running beside them (on two busy cores, a
	# token then takes seconds instead of milliseconds).
	LLAMA_PID="$("$bin" --model "$model" --alias tiny-qwen2 --host 127.0.0.1 --port "${LLAMA_PORT:-0}" \
		--ctx-size "${LLAMA_CTX:-8192}" --parallel "${LLAMA_PARALLEL:-2}" --threads 1 \
		--no-webui --offline </dev/null >"$log" 2>&1 & echo $!)"
	export LLAMA_PID

	# Ready when the log names the address and /health answers 200 (it
	# answers 503 while the model loads); 60 s at most.
	url="$(ci_wait_ready llama.sh "$LLAMA_PID" "$log" 600)" || {
		llama_stop
		return 1
	}
	export DUELOGIC_LLAMACPP_URL="$url/v1"
	echo "llama.sh: llama-server ready at $url in $((($(date +%s%N) - t0) / 1000000)) ms (pid $LLAMA_PID, model $model, log $log)" >&2
}

# llama_stop ends the server this script started (by its PID) and unsets
# the variables.
llama_stop() {
	ci_kill "${LLAMA_PID:-}"
	unset LLAMA_PID DUELOGIC_LLAMACPP_URL
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	# Sourced: start and leave it running for the caller.
	llama_start
	return $?
fi

# Executed.
ci_serve llama.sh llama_start llama_stop DUELOGIC_LLAMACPP_URL LLAMA_PID "$@"
