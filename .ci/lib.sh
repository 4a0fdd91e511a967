# .ci/lib.sh — shell functions the .ci scripts share; they source it.

# ci_as_root runs a command as root: directly, or with sudo.
ci_as_root() {
	if [ "$(id -u)" -eq 0 ]; then
		"$@"
	elif command -v sudo >/dev/null 2>&1; then
		sudo "$@"
	else
		echo "ci: need root (or sudo) to run: $*" >&2
		return 1
	fi
}

# ci_apt NAME PACKAGE... installs Debian packages, updating the package
# lists first; NAME (the calling script) prefixes its message.
ci_apt() {
	local name="$1"
	shift
	echo "$name: installing Debian packages: $*" >&2
	ci_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -qq >&2 || return 1
	ci_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >&2 || return 1
}

# ci_wait_ready NAME PID LOG TRIES waits, TRIES times 0.1 s at most, for a
# server (process PID, writing LOG) to log the http://127.0.0.1:PORT
# address it listens on and to answer 200 on its /health; it prints the
# address. It fails, printing the log, when the server exits or the time
# runs out.
ci_wait_ready() {
	local name="$1" pid="$2" log="$3" tries="$4" url="" i
	for i in $(seq 1 "$tries"); do
		if ! kill -0 "$pid" 2>/dev/null; then
			echo "$name: the server exited during startup; log $log:" >&2
			cat "$log" >&2
			return 1
		fi
		if [ -z "$url" ]; then
			url="$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9][0-9]*\).*/\1/p' "$log" | head -n 1)"
		fi
		if [ -n "$url" ] && curl -fsS --max-time 1 "$url/health" >/dev/null 2>&1; then
			echo "$url"
			return 0
		fi
		sleep 0.1
	done
	echo "$name: the server did not become ready; log $log:" >&2
	cat "$log" >&2
	return 1
}

# ci_kill PID ends a process and waits for it, 5 s at most.
ci_kill() {
	local i
	if [ -n "$1" ] && kill -0 "$1" 2>/dev/null; then
		kill "$1" 2>/dev/null
		for i in $(seq 1 50); do
			kill -0 "$1" 2>/dev/null || break
			sleep 0.1
		done
	fi
}

# ci_serve NAME START STOP URLVAR PIDVAR [COMMAND...] is an executed server
# script's main: it starts the server (function START), stops it (STOP) on
# exit, and runs COMMAND; with no command, it prints URLVAR's value and
# serves until interrupted or the server (PIDVAR's process) ends.
ci_serve() {
	local name="$1" start="$2" stop="$3" urlvar="$4" pidvar="$5"
	shift 5
	"$start" || exit 1
	trap "$stop" EXIT
	trap 'exit 130' INT TERM
	if [ $# -eq 0 ]; then
		echo "$urlvar=${!urlvar}"
		echo "$name: serving until interrupted" >&2
		while kill -0 "${!pidvar}" 2>/dev/null; do sleep 1; done
		exit 0
	fi
	"$@"
}
