# Kensa's own statistics over the results files named on the command line: aggregate_all of
# kensa.aggregate (Kensa v0.7.0), one JSON object per scenario, per-run results left out.
import json
import sys

from kensa.aggregate import aggregate_all
from kensa.models import Result

by_scenario = {}
for path in sys.argv[1:]:
    with open(path) as f:
        for raw in json.load(f):
            r = Result.model_validate(raw)
            by_scenario.setdefault(r.scenario_id, []).append(r)
out = [a.model_dump(mode="json", exclude={"per_run_results"}) for a in aggregate_all(by_scenario)]
json.dump(out, sys.stdout)
