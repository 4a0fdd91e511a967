#!/usr/bin/env bash
# .ci/postgres.sh — a private PostgreSQL cluster for the store/pgstore tests.
#
# Sourced (bash), it starts the cluster and leaves it running:
#
#   source .ci/postgres.sh || exit 1    # exports DUELOGIC_PG_DSN and more
#   (cd store/pgstore && go test -race ./...)
#   postgres_stop                       # stops the cluster, removes its files
#
# Executed, it runs a command with the cluster up and stops it afterwards (or,
# with no command, prints the DSN and serves until interrupted):
#
#   .ci/postgres.sh sh -c 'cd store/pgstore && go test -race ./...'
#
# It uses Debian's PostgreSQL server, installing the "postgresql" package with
# apt-get (through sudo unless root) when no server binaries are found. The
# cluster lives in a new temporary directory, belongs to an unprivileged user
# (PostgreSQL refuses to run as root: when run as root the script uses the
# user "nobody", or PG_USER), listens on 127.0.0.1 only, on a free port, with
# trust authentication, and holds one database, "duelogic". Nothing of the
# machine's own clusters is touched.
#
# Exported while it runs:
#   DUELOGIC_PG_DSN      postgres://postgres@127.0.0.1:<port>/duelogic?sslmode=disable
#   DUELOGIC_PG_CTL      a script that stops, starts or restarts the server:
#                        "$DUELOGIC_PG_CTL" stop|start|restart (fault tests)
#   POSTGRES_DIR         the cluster's directory (data, log, socket)
#
# Environment (all optional):
#   PG_BINDIR  directory of initdb and pg_ctl (default: the newest
#              /usr/lib/postgresql/*/bin, or pg_config --bindir)
#   PG_USER    user that owns and runs the cluster when the script runs as
#              root (default: nobody)
#   PG_PORT    port to listen on (default: a free one)

source "$(dirname "${BASH_SOURCE[0]}")/lib.sh" || return 1 2>/dev/null || exit 1

postgres_bindir() {
	local d
	if [ -n "${PG_BINDIR:-}" ]; then
		echo "$PG_BINDIR"
		return 0
	fi
	d="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)"
	if [ -n "$d" ] && [ -x "$d/initdb" ]; then
		echo "$d"
		return 0
	fi
	if command -v pg_config >/dev/null 2>&1; then
		d="$(pg_config --bindir 2>/dev/null)"
		if [ -x "$d/initdb" ]; then
			echo "$d"
			return 0
		fi
	fi
	if command -v initdb >/dev/null 2>&1; then
		dirname "$(command -v initdb)"
		return 0
	fi
	return 1
}

# postgres_as runs a command as the cluster's user.
postgres_as() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u "$POSTGRES_USER" -- "$@"
	else
		"$@"
	fi
}

postgres_free_port() {
	local port i
	for i in $(seq 1 50); do
		port=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			echo "$port"
			return 0
		fi
	done
	return 1
}

postgres_start() {
	local bin port data log sock
	if ! bin="$(postgres_bindir)"; then
		echo "postgres.sh: no PostgreSQL server found" >&2
		ci_apt postgres.sh postgresql || return 1
		bin="$(postgres_bindir)" || {
			echo "postgres.sh: postgresql installed but initdb not found" >&2
			return 1
		}
	fi
	POSTGRES_USER="$(id -un)"
	if [ "$(id -u)" -eq 0 ]; then
		POSTGRES_USER="${PG_USER:-nobody}"
		if ! id "$POSTGRES_USER" >/dev/null 2>&1; then
			echo "postgres.sh: user $POSTGRES_USER does not exist (set PG_USER)" >&2
			return 1
		fi
	fi

	POSTGRES_DIR="$(mktemp -d "${TMPDIR:-/tmp}/duelogic-pg.XXXXXX")" || return 1
	export POSTGRES_DIR POSTGRES_USER
	data="$POSTGRES_DIR/data"
	log="$POSTGRES_DIR/server.log"
	sock="$POSTGRES_DIR/sock"
	mkdir -p "$sock" || return 1
	chmod 0755 "$POSTGRES_DIR"
	if [ "$(id -u)" -eq 0 ]; then
		chown -R "$POSTGRES_USER" "$POSTGRES_DIR" || return 1
	fi

	if ! postgres_as "$bin/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 --locale=C \
		--no-sync >"$POSTGRES_DIR/initdb.log" 2>&1; then
		echo "postgres.sh: initdb failed:" >&2
		cat "$POSTGRES_DIR/initdb.log" >&2
		return 1
	fi
	cat >>"$data/postgresql.conf" <<-EOF
		listen_addresses = '127.0.0.1'
		unix_socket_directories = '$sock'
		max_connections = 200
	EOF

	port="${PG_PORT:-}"
	for _ in 1 2 3; do
		[ -n "${PG_PORT:-}" ] || port="$(postgres_free_port)" || return 1
		if postgres_as "$bin/pg_ctl" -D "$data" -l "$log" -o "-p $port" -w -t 60 start >/dev/null; then
			break
		fi
		port=""
		[ -z "${PG_PORT:-}" ] || break
	done
	if [ -z "$port" ]; then
		echo "postgres.sh: the server did not start; log $log:" >&2
		cat "$log" >&2
		return 1
	fi
	POSTGRES_BIN="$bin"
	export POSTGRES_BIN
	if ! "$bin/psql" -q -h 127.0.0.1 -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 \
		-c 'CREATE DATABASE duelogic' >&2; then
		echo "postgres.sh: could not create the database" >&2
		postgres_stop
		return 1
	fi

	DUELOGIC_PG_CTL="$POSTGRES_DIR/ctl.sh"
	cat >"$DUELOGIC_PG_CTL" <<-EOF
		#!/usr/bin/env bash
		# ctl.sh stop|start|restart: the cluster of $POSTGRES_DIR (written by .ci/postgres.sh).
		set -e
		case "\${1:-restart}" in
		stop) args=(-m fast -w -t 60 stop) ;;
		start) args=(-o "-p $port" -w -t 60 start) ;;
		restart) args=(-o "-p $port" -m fast -w -t 60 restart) ;;
		*) echo "usage: \$0 stop|start|restart" >&2; exit 2 ;;
		esac
		if [ "\$(id -u)" -eq 0 ]; then
			exec runuser -u "$POSTGRES_USER" -- "$bin/pg_ctl" -D "$data" -l "$log" "\${args[@]}"
		fi
		exec "$bin/pg_ctl" -D "$data" -l "$log" "\${args[@]}"
	EOF
	chmod 0755 "$DUELOGIC_PG_CTL"
	DUELOGIC_PG_DSN="postgres://postgres@127.0.0.1:$port/duelogic?sslmode=disable"
	export DUELOGIC_PG_DSN DUELOGIC_PG_CTL
	echo "postgres.sh: PostgreSQL $("$bin/postgres" --version | awk '{print $3}') ready at 127.0.0.1:$port as $POSTGRES_USER (dir $POSTGRES_DIR)" >&2
	return 0
}

# postgres_stop stops the cluster this script started, removes its directory
# and unsets the variables.
postgres_stop() {
	if [ -n "${POSTGRES_DIR:-}" ] && [ -d "$POSTGRES_DIR/data" ]; then
		postgres_as "$POSTGRES_BIN/pg_ctl" -D "$POSTGRES_DIR/data" -m fast -w -t 60 stop >/dev/null 2>&1 || true
	fi
	if [ -n "${POSTGRES_DIR:-}" ]; then
		rm -rf "$POSTGRES_DIR"
	fi
	unset POSTGRES_DIR POSTGRES_BIN DUELOGIC_PG_DSN DUELOGIC_PG_CTL
}

if [ "${BASH_SOURCE[0]}" != "$0" ]; then
	# Sourced: start and leave it running for the caller.
	postgres_start
	return $?
fi

# Executed.
postgres_start || { postgres_stop; exit 1; }
trap postgres_stop EXIT
trap 'exit 130' INT TERM
if [ $# -eq 0 ]; then
	echo "DUELOGIC_PG_DSN=$DUELOGIC_PG_DSN"
	echo "postgres.sh: serving until interrupted" >&2
	# Not tied to the server's pid file: tests stop and start the server.
	while :; do sleep 1; done
fi
"$@"
