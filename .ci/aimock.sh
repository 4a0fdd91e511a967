#!/usr/bin/env bash
# .ci/aimock.sh — run aimock (npm @copilotkit/aimock), an independent
# OpenAI-compatible mock server, for the llm/openai integration tests.
#
# Sourced (bash), it starts the server and leaves it running:
#
#   source .ci/aimock.sh || exit 1     # exports DUELOGIC_AIMOCK_URL and AIMOCK_PID
#   go test -race ./llm/openai/        # the Aimock* tests run instead of skipping
#   aimock_stop                        # or: kill "$AIMOCK_PID"
#
# Executed, it runs a command with the server up and stops it afterwards (or,
# with no command, prints the address and serves until interrupted):
#
#   .ci/aimock.sh go test -race -run Aimock ./llm/openai/
#
# The server listens on 127.0.0.1 (a free port unless AIMOCK_PORT is set),
# serves the fixtures in llm/openai/testdata/aimock/, and accepts only the API
# key "sk-aimock-test-key" (the one the tests send) on every route but /health. aimock is installed from
# the npm registry, at the exact version below, into a cache directory on
# first use; later runs reuse it. Needs node >= 20.15 and npm.
#
# Environment (all optional):
#   AIMOCK_VERSION  aimock version to install (default: the pinned one below)
#   AIMOCK_CACHE    install directory (default: ${XDG_CACHE_HOME:-~/.cache}/duelogic/aimock-<version>)
#   AIMOCK_PORT     port to listen on (default: 0, any free port)
#   AIMOCK_LOG      server log file (default: a new temporary file; exported)

AIMOCK_VERSION="${AIMOCK_VERSION:-1.43.0}"

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || return 1 2>/dev/null || exit 1

aimock_start() {
	local root cache fixtures log pkg bin url
	root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)" || return 1
	fixtures="$root/llm/openai/testdata/aimock"
	cache="${AIMOCK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/duelogic/aimock-$AIMOCK_VERSION}"
	pkg="$cache/node_modules/@copilotkit/aimock"
	bin="$pkg/dist/cli.js" # the "llmock" bin: the one that takes --fixtures

	if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
		echo "aimock.sh: node and npm are required" >&2
		return 1
	fi
	if ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=15)?0:1)'; then
		echo "aimock.sh: node >= 20.15 is required (have $(node --version))" >&2
		return 1
	fi

	if [ "$(node -p "try{require('$pkg/package.json').version}catch(e){''}" 2>/dev/null)" != "$AIMOCK_VERSION" ]; then
		echo "aimock.sh: installing @copilotkit/aimock@$AIMOCK_VERSION into $cache" >&2
		mkdir -p "$cache" || return 1
		npm install --prefix "$cache" --no-save --no-package-lock --no-audit --no-fund \
			--loglevel=error "@copilotkit/aimock@$AIMOCK_VERSION" >&2 || return 1
		if [ "$(node -p "require('$pkg/package.json').version")" != "$AIMOCK_VERSION" ]; then
			echo "aimock.sh: npm installed another version than $AIMOCK_VERSION" >&2
			return 1
		fi
	fi

	log="${AIMOCK_LOG:-$(mktemp "${TMPDIR:-/tmp}/aimock.XXXXXX")}" || return 1
	: >"$log" || return 1
	export AIMOCK_LOG="$log"
	# Started in a subshell so that no job-control notice appears and the
	# process is not tied to this shell's job table; its PID is kept.
	AIMOCK_PID="$(AIMOCK_API_KEYS=sk-aimock-test-key node "$bin" --host 127.0.0.1 --port "${AIMOCK_PORT:-0}" \
		--fixtures "$fixtures" --validate-on-load --log-level info \
		</dev/null >"$log" 2>&1 & echo $!)"
	export AIMOCK_PID

	# Ready when the log names the address and /health answers (~15s at most).
	url="$(ci_wait_ready aimock.sh "$AIMOCK_PID" "$log" 150)" || {
		aimock_stop
		return 1
	}
	export DUELOGIC_AIMOCK_URL="$url"
	echo "aimock.sh: aimock $AIMOCK_VERSION ready at $url (pid $AIMOCK_PID, log $log)" >&2
}

# aimock_stop ends the server this script started (by its PID) and unsets
# the variables.
aimock_stop() {
	ci_kill "${AIMOCK_PID:-}"
	unset AIMOCK_PID DUELOGIC_AIMOCK_URL
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	# Sourced: start and leave it running for the caller.
	aimock_start
	return $?
fi

# Executed.
ci_serve aimock.sh aimock_start aimock_stop DUELOGIC_AIMOCK_URL AIMOCK_PID "$@"
