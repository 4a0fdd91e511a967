// Package acceptance holds the cross-format acceptance tests of the module:
// every debate format driven the same way — New(DefaultConfig()), then
// engine.Run and engine.Resume with the offline stub, a pinned clock and a
// store — and checked against the same promises. Each format package also
// runs engine/enginetest on itself. It has no non-test code beyond this
// comment.
package acceptance
