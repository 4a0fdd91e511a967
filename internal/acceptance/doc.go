// Package acceptance holds the cross-format acceptance tests of the module:
// every debate format played end to end on the offline stub with a pinned
// clock, a failing store and resume. It has no non-test code beyond this
// comment.
package acceptance
