// Package index is the pure part of the SQLite backend's index engine: the
// sort indexes' bucket expressions, the cost model, and the planners of
// span and metric point reads. A planner is a function of a query and the
// statistics it is given (counts the caller read in its transaction); it
// returns a plan value whose String prints the access chosen and why.
// Package sqlite gathers the statistics and executes the plans.
package index
