// Package eval measures whether a debate helps: it runs the same items
// through several arms — one answer, self-consistency, a Du-style debate,
// the vote of the debate's first answers — at an equal budget, and compares
// them with paired statistics.
package eval
