// Package sqlitestore is a duelogic store in SQLite.
package sqlitestore
