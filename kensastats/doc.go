// Package kensastats is the variance report over recorded Kensa runs (`kensa stats`): per
// scenario and per check the pass rate with a 95% Wilson interval, pass^k, flakiness, cost and
// duration statistics and Kensa's anomaly flags — computed as Kensa computes them where Kensa
// has them (aggregate.py, analyzer.py) — and what no harness gives: each run replayed twice to
// prove the evaluator's own variance is zero, so that the remaining variance is the agent's,
// and for a flaky case the first point where a passing and a failing run's evidence diverge.
//
// # Numbers
//
//   - pass_rate = passes / runs, rounded to 4 places (aggregate.py).
//   - status_counts counts runs by the status Kensa records: a pending run (criteria and no
//     recorded judgement) is an error, as Kensa records a run it cannot judge; pending says
//     how many of those errors are pending runs.
//   - pass_k["k"] = pass_rate^k (independence), rounded to 6 places, k = 1, 3, 5 (aggregate.py
//     has 3 and 5; 1 is the pass rate at 6 places).
//   - pass_k_observed["k"] = the unbiased estimator C(c,k)/C(n,k) for each case (scenario and
//     dataset row) with n ≥ k runs, c of them passing, averaged over those cases; null when no
//     case has k runs.
//   - wilson95 = the Wilson score interval with z = 1.959963984540054, 4 places. Kensa has no
//     interval.
//   - cost and duration: mean, sample standard deviation (n - 1), min, max of the runs' trace
//     cost_usd and duration_seconds, 6 places (aggregate.compute_variance_stats).
//   - kensa_flaky is Kensa's high_variance: 0.2 < pooled pass rate < 0.8, all rows pooled.
//     flaky is a mixed outcome among repeats of one case (same scenario, same dataset row),
//     so a dataset row that always fails is reported as a row effect, not as flakiness.
//   - flags are analyzer.py's: error (an error span), cost_outlier and latency_outlier (more
//     than 3× the median over every run in the report), repeated_tool_call, high_turn_count
//     (more than 20 LLM calls).
//
// # Which runs, and why each did not pass
//
// GatherSelected counts the runs a Filter keeps — run ids (one kensa run invocation, or one run
// of Kensa's), kensa run tags, a recorded start time, scenarios — read from manifests before
// anything is replayed, then, per scenario whose definition tree changed, only the runs of the
// definition of its latest run. The report's Selection states the count, the filter and the
// definitions dropped, and lists the runs counted, each with Reason: the first cause of its not
// passing, derived from the bundle alone.
//
// Floats are binary64 computed in Kensa's order (internal/pyvalue) and printed with a fixed
// number of places: 4 for rates and intervals, 6 for pass^k, cost and duration.
package kensastats
