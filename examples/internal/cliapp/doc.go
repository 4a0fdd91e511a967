// Package cliapp is the debate command of examples/cli: its flags, the
// format registry and what it prints and writes. It is a package so that
// builds of the same command with more stores linked in (examples/pgcli,
// with PostgreSQL) share every line of it; [Run] is the whole program.
package cliapp
